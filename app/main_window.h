// The main window: the graph before and after the current pass side by side (Graphviz layout in
// a worker thread), the pass pipeline to step through, the rewrite log, the model overview, and
// error dialogs for bad files.
#pragma once

#include "app/pass_stepper.h"
#include "core/graph/model.h"

#include <QLabel>
#include <QMainWindow>

#include <functional>
#include <optional>

class QListWidget;

namespace graphlens {

class GraphScene;
class GraphView;
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

    PassStepper& stepper() { return stepper_; }
    GraphScene* beforeScene() const { return beforeScene_; }
    GraphScene* afterScene() const { return afterScene_; }
    /// True while a layout for the current step is still being computed.
    bool layoutPending() const { return pendingLayouts_ > 0; }
    QListWidget* rewriteLog() const { return rewriteLog_; }

signals:
    /// Both sides of the current step are laid out and in their scenes.
    void graphShown();

public slots:
    void applyNextPass();
    void applyAllPasses();
    void stepBack();
    void stepForward();
    void resetPasses();

private:
    void buildDocks();
    void chooseAndOpen();
    void updateStatus();
    /// Shows the stepper's current step: layouts for both sides, diff marks, the rewrite log.
    void showStep();
    void layoutInBackground(GraphScene* scene, const Graph& graph, std::vector<NodeId> marked, bool removed);
    void runGuarded(const std::function<void()>& work);

    std::optional<Model> model_;
    PassStepper stepper_;
    ModelOverview* overview_ = nullptr;
    GraphScene* beforeScene_ = nullptr;
    GraphScene* afterScene_ = nullptr;
    GraphView* beforeView_ = nullptr;
    GraphView* afterView_ = nullptr;
    QListWidget* passList_ = nullptr;
    QListWidget* rewriteLog_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QString lastError_;
    int generation_ = 0;
    int pendingLayouts_ = 0;
    bool syncing_ = false;
};

} // namespace graphlens
