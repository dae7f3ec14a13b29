// The main window: the graph before and after the current pass side by side (GraphPanes laid
// out in the background), the pass pipeline to step through, the rewrite log, the inspector,
// search, the model overview, recent files and drag and drop, and error dialogs for bad files.
// Selecting a node on one side highlights the nodes it came from or turned into on the other.
// The Profile dock profiles the after side and paints its heatmap there.
#pragma once

#include "app/pass_stepper.h"
#include "app/recent_files.h"
#include "core/graph/model.h"
#include "viewer/node_origin.h"

#include <QLabel>
#include <QMainWindow>

#include <functional>
#include <optional>

class QDockWidget;
class QListWidget;
class QListWidgetItem;

namespace graphlens {

class GraphPane;
class GraphScene;
class ModelOverview;
class NodeInspector;
class ProfilePanel;
class SearchPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    /// Loads `path` and shows it; on failure shows an error dialog (unless `quiet`) and keeps the
    /// current model. Returns whether the model was opened; opened models go to the recent files.
    bool openModel(const QString& path, bool quiet = false);
    /// Opens a recent file; one that no longer exists leaves the list with a status-bar message.
    bool openRecent(const QString& path);
    const Model* model() const { return model_ ? &*model_ : nullptr; }
    ModelOverview* overview() const { return overview_; }
    /// The last load error, empty after a successful load.
    QString lastError() const { return lastError_; }
    const RecentFiles& recentFiles() const { return recent_; }

    PassStepper& stepper() { return stepper_; }
    GraphPane* beforePane() const { return before_; }
    GraphPane* afterPane() const { return after_; }
    GraphScene* beforeScene() const;
    GraphScene* afterScene() const;
    /// True while a layout for the current step is still being computed.
    bool layoutPending() const;
    QListWidget* rewriteLog() const { return rewriteLog_; }
    NodeInspector* inspector() const { return inspector_; }
    SearchPanel* searchPanel() const { return searchPanel_; }
    ProfilePanel* profilePanel() const { return profilePanel_; }

signals:
    /// Both sides of the current step are laid out and in their scenes.
    void graphShown();

public slots:
    void applyNextPass();
    void applyAllPasses();
    void stepBack();
    void stepForward();
    void resetPasses();
    /// Shows the Search dock and puts the cursor in its query line.
    void find();
    /// Profiles the graph after the current step in the background (the Profile dock's button);
    /// the Profile panel's profileReady() tells when it is in.
    void profileCurrentStep();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void buildDocks();
    void chooseAndOpen();
    void fillRecentMenu();
    void updateStatus();
    /// Shows the stepper's current step: layouts for both sides, diff marks, the rewrite log.
    void showStep();
    void fillRewriteLog(const Graph& before, const Graph& after);
    void paneShown();
    void runGuarded(const std::function<void()>& work);
    /// The selection on `side` changed: highlight its relatives on the other side, inspect it.
    void nodeSelected(GraphPane* side, NodeId node);
    void focusRewrite(QListWidgetItem* item);
    GraphPane* focusedPane() const;

    std::optional<Model> model_;
    PassStepper stepper_;
    RecentFiles recent_;
    ModelOverview* overview_ = nullptr;
    GraphPane* before_ = nullptr;
    GraphPane* after_ = nullptr;
    ProvenanceIndex beforeIndex_;
    ProvenanceIndex afterIndex_;
    NodeInspector* inspector_ = nullptr;
    SearchPanel* searchPanel_ = nullptr;
    QDockWidget* searchDock_ = nullptr;
    ProfilePanel* profilePanel_ = nullptr;
    QListWidget* passList_ = nullptr;
    QListWidget* rewriteLog_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QString lastError_;
    bool stepShowPending_ = false;  ///< graphShown() is due when both sides are laid out
    bool syncing_ = false;
};

} // namespace graphlens
