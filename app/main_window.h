// The main window: open a model, show it, report bad files in a dialog.
#pragma once

#include "core/graph/model.h"

#include <QLabel>
#include <QMainWindow>

#include <memory>
#include <optional>

namespace graphlens {

class ModelOverview;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    /// Loads `path` and shows it; on failure shows an error dialog (unless `quiet`) and keeps the
    /// current model. Returns whether the model was opened.
    bool openModel(const QString& path, bool quiet = false);

    const Model* model() const { return model_ ? &*model_ : nullptr; }
    ModelOverview* overview() const { return overview_; }
    /// The last load error, empty after a successful load.
    QString lastError() const { return lastError_; }

private:
    void chooseAndOpen();
    void updateStatus();

    std::optional<Model> model_;
    ModelOverview* overview_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QString lastError_;
};

} // namespace graphlens
