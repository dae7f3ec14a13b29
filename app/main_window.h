// The main window: the graph before and after the current pass side by side (GraphPanes laid
// out in the background), the pass pipeline to step through, the rewrite log, the inspector,
// search, the model overview, recent files and drag and drop, and error dialogs for bad files.
// Selecting a node on one side highlights the nodes it came from or turned into on the other.
// The Profile dock profiles the after side and paints its heatmap there. Loading a model runs on
// a worker thread (TaskRunner) with progress and Cancel in the status bar; the Passes dock
// (PassPanel) applies passes on the same runner and the window shows each step it moves to.
#pragma once

#include "app/pass_panel.h"
#include "app/recent_files.h"
#include "app/window_work.h"
#include "core/graph/model.h"
#include "viewer/node_origin.h"
#include "viewer/node_search.h"
#include "viewer/scope_tree.h"

#include <QLabel>
#include <QMainWindow>

#include <optional>

class QAction;
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
class TaskProgress;
class TaskRunner;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    /// Starts loading `path` in the background and returns; modelLoaded() or loadFailed() tells
    /// how it went. On failure it shows an error dialog (unless `quiet`) and keeps the current
    /// model. False when the load did not start: a missing file (loadFailed() was emitted) or
    /// other work still running. Opened models go to the recent files.
    bool openModel(const QString& path, bool quiet = false);
    /// Opens a recent file; one that no longer exists leaves the list with a status-bar message.
    bool openRecent(const QString& path);
    const Model* model() const { return model_ ? &*model_ : nullptr; }
    ModelOverview* overview() const { return overview_; }
    /// The last load error, empty after a successful load.
    QString lastError() const { return lastError_; }
    const RecentFiles& recentFiles() const { return recent_; }

    PassStepper& stepper() { return passPanel_->stepper(); }
    const PassStepper& stepper() const { return passPanel_->stepper(); }
    /// The Passes dock: the pipeline, the Verify box and the apply / step flow.
    PassPanel* passPanel() const { return passPanel_; }
    GraphPane* beforePane() const { return before_; }
    GraphPane* afterPane() const { return after_; }
    GraphScene* beforeScene() const;
    GraphScene* afterScene() const;
    /// True while the current step is not fully shown yet: a load or passes still running, or
    /// a layout still being computed.
    bool layoutPending() const;
    /// True while a load or passes run in the background; opening and applying wait for it.
    bool busy() const;
    TaskRunner* tasks() const { return tasks_; }
    TaskProgress* taskProgress() const { return taskProgress_; }
    /// Whether applied passes are verified numerically (the Passes dock's Verify box).
    void setVerifySteps(bool on) { passPanel_->setVerifySteps(on); }
    QListWidget* rewriteLog() const { return rewriteLog_; }
    NodeInspector* inspector() const { return inspector_; }
    SearchPanel* searchPanel() const { return searchPanel_; }
    ProfilePanel* profilePanel() const { return profilePanel_; }

signals:
    /// Both sides of the current step are laid out and in their scenes.
    void graphShown();
    /// A model was loaded and its original graph is being shown.
    void modelLoaded(const QString& path);
    /// A model could not be opened; `error` is lastError().
    void loadFailed(const QString& error);
    /// Applying passes ended (done, cancelled or failed); `steps` of them were kept.
    void passesApplied(int steps);

public slots:
    /// Apply next / Apply all: run in the background; passesApplied() tells when they are in.
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
    /// Cancels the running load or passes (Esc, the status bar's Cancel).
    void cancelWork();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    /// Cancels the work running; the window waits for its current step when it is destroyed.
    void closeEvent(QCloseEvent* event) override;

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
    void showLoaded(const QString& path, LoadedModel loaded);
    void failLoad(const QString& path, const QString& reason, bool quiet);
    void setWorking(bool working);
    void searchHitActivated(SearchSide side, NodeId node);
    void groupSelected(GraphPane* side, GroupId group);
    /// The selection on `side` changed: highlight its relatives on the other side, inspect it.
    void nodeSelected(GraphPane* side, NodeId node);
    void focusRewrite(QListWidgetItem* item);
    GraphPane* focusedPane() const;

    std::optional<Model> model_;
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
    QListWidget* rewriteLog_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    std::optional<ModelSummary> loadedSummary_;  ///< of the model as loaded: step 0's status line
    int statusGeneration_ = 0;  ///< bumped per status update; an older summary coming back is dropped
    int loadGeneration_ = 0;    ///< bumped per model shown; its late FLOP count is dropped for a newer one
    TaskRunner* tasks_ = nullptr;
    TaskProgress* taskProgress_ = nullptr;
    std::vector<QAction*> workActions_;  ///< disabled while work runs
    PassPanel* passPanel_ = nullptr;
    bool profileWhenIdle_ = false;  ///< a profile was asked for while passes ran
    QString lastError_;
    bool stepShowPending_ = false;  ///< graphShown() is due when both sides are laid out
    bool syncing_ = false;
};

} // namespace graphlens
