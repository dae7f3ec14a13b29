// The main window: the original model (or the previous step) and the current step side by side
// (GraphPanes laid out in the background), the pass pipeline to step through, the rewrite log of
// every step so far, the inspector, search, the model overview, recent files and drag and drop,
// and error dialogs for bad files. Until a model is open the central area is a start page and
// the actions that need a model are disabled. The dock layout is saved and restored (View > Reset
// layout brings the default back); File > Save optimized model writes the current step, File >
// Export a pane's drawing. Selecting a node on one side (or a search result, a rewrite, a profile
// row) centers each side on its own counterpart, found through provenance, and highlights the
// nodes it came from or turned into on the other side.
// The Profile dock profiles the after side and paints its heatmap there. Loading a model runs on
// a worker thread (TaskRunner) with progress and Cancel in the status bar; the Passes dock
// (PassPanel) applies passes on the same runner and the window shows each step it moves to.
#pragma once

#include "app/model_diff.h"
#include "app/pass_panel.h"
#include "app/recent_files.h"
#include "app/rewrite_log_panel.h"
#include "app/window_work.h"
#include "core/graph/model.h"
#include "viewer/node_origin.h"
#include "viewer/node_search.h"
#include "viewer/scope_tree.h"

#include <QLabel>
#include <QMainWindow>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QSplitter;
class QStackedWidget;

namespace graphlens {

class ComparisonPanel;
class GraphPane;
class GraphScene;
class ModelOverview;
class NodeInspector;
class ProfilePanel;
class SearchPanel;
class StartPage;
class TaskProgress;
class TaskRunner;
class ViewLink;

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
    /// The file the model shown was opened from; empty before the first successful open.
    QString modelPath() const { return modelPath_; }

    /// Sizes the window to the available geometry of its screen.
    void fitToScreen();
    /// Restores the geometry, dock layout and split saveLayout() stored; false (and the default
    /// layout kept) when there is none or it is from another version of the layout.
    bool restoreLayout();
    /// Stores the geometry, the dock layout and the panes' split in QSettings (also done when
    /// the window closes).
    void saveLayout() const;
    /// View > Reset layout: every dock back in its default place and size, shown and docked.
    void resetLayout();
    /// The central area's page shown while no model is open.
    StartPage* startPage() const { return startPage_; }
    bool startPageShown() const;
    /// The splitter holding the two graph panes.
    QSplitter* paneSplitter() const { return split_; }

    /// Writes the current step's model to `path` in the background (File > Save optimized
    /// model): fused operators kept for ONNX Runtime, or with `standardOpsOnly` lowered to
    /// standard ONNX operators. modelSaved() or saveFailed() tells how it went; a failure also
    /// shows a dialog unless `quiet`. False when it did not start (no model, or work running).
    bool saveOptimizedModel(const QString& path, bool standardOpsOnly, bool quiet = false);
    /// Writes the focused pane's drawing as SVG or PNG (by the extension): what its view shows,
    /// or with `wholeGraph` the whole graph (File > Export). Returns the error, empty when written.
    QString exportImage(const QString& path, bool wholeGraph);

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
    RewriteLogPanel* rewriteLog() const { return rewriteLog_; }
    /// What the left pane shows against the current step (the Passes dock's Compare with box).
    CompareWith compareWith() const { return passPanel_->compareWith(); }
    void setCompareWith(CompareWith with) { passPanel_->setCompareWith(with); }
    /// The snapshot the left side shows (0: the original).
    size_t leftStep() const { return leftStep_; }
    NodeInspector* inspector() const { return inspector_; }
    SearchPanel* searchPanel() const { return searchPanel_; }
    ProfilePanel* profilePanel() const { return profilePanel_; }

    // ---- comparisons (window_compare.cpp) ----------------------------------------------------
    /// File > Compare with...: opens `path` as B and compares it with the current step (A) in the
    /// background; when done the split shows A on the left and B on the right, with the nodes
    /// only in A, only in B and changed marked and the Error overlay. comparisonShown() or
    /// comparisonFailed() tells how it went (a failure also shows a dialog unless `quiet`; the
    /// model shown stays). False when it did not start (no model, or work running).
    bool compareWithFile(const QString& path, bool quiet = false);
    /// The current step on the CPU (A) against the first Vulkan device (B).
    bool compareBackends(bool quiet = false);
    /// The left side's snapshot (A) against the current step (B), matched through provenance:
    /// float against quantized after quantize-int8-weights.
    bool compareSteps(bool quiet = false);
    /// The current step (A) against a copy run through quantize-int8-weights (B), shown as A vs B:
    /// the quantization error lens.
    bool compareQuantized(bool quiet = false);
    /// The Bisect button: applies the enabled pipeline entries to the loaded model one at a time
    /// (bisectPasses) and shows the first divergent step against the loaded model, its pass
    /// selected in the pipeline and its nodes highlighted; bisectFinished() follows.
    bool bisectPipeline(bool quiet = false);
    /// Tests: the passes a bisection runs instead of the enabled pipeline entries.
    using PassFactory = std::function<std::vector<std::unique_ptr<Pass>>()>;
    void setBisectPassFactory(PassFactory factory) { bisectFactory_ = std::move(factory); }
    ComparisonPanel* comparisonPanel() const { return comparison_; }
    /// The comparison shown in the Comparison dock; nullptr when there is none.
    const ModelDiff* diff() const { return diff_.get(); }
    /// True while the panes show a comparison's A and B (File > Compare with..., a bisection).
    bool diffShown() const { return diffShown_; }
    const DiffMarks& diffMarks() const { return diffMarks_; }
    QString lastCompareError() const { return lastCompareError_; }

signals:
    /// Both sides of the current step are laid out and in their scenes.
    void graphShown();
    /// A model was loaded and its original graph is being shown.
    void modelLoaded(const QString& path);
    /// A model could not be opened; `error` is lastError().
    void loadFailed(const QString& error);
    /// Applying passes ended (done, cancelled or failed); `steps` of them were kept.
    void passesApplied(int steps);
    /// A comparison is in the Comparison dock (and on the panes).
    void comparisonShown();
    /// A comparison could not be made; `error` is lastCompareError().
    void comparisonFailed(const QString& error);
    /// A bisection ended: `pass` is the first divergent pass, empty when none diverged.
    void bisectFinished(const QString& pass);
    /// saveOptimizedModel() wrote `path`.
    void modelSaved(const QString& path);
    /// saveOptimizedModel() failed; `error` says why.
    void saveFailed(const QString& error);

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
    /// The first show gives the docks their default sizes for the window's size.
    void showEvent(QShowEvent* event) override;

private:
    void buildMenus();
    void buildDocks();
    /// The Outline dock (objectName "outlineDock"): the name-scope groups, tabbed with Search.
    void buildOutlineDock();
    /// The Comparison dock (objectName "comparisonDock") and its connections.
    void buildComparisonDock();
    void chooseAndCompare();
    /// Runs `prepare` (in the worker) and computeDiff on its request as a TaskRunner task titled `title`.
    bool runDiff(const QString& title, bool quiet, std::function<DiffRequest()> prepare);
    void showDiff(std::shared_ptr<const ModelDiff> diff);
    void showBisect(std::shared_ptr<const ModelDiff> diff);
    void failDiff(const QString& title, const QString& reason, bool quiet);
    /// The fills of both panes: the Error overlay where a pane shows a side of the comparison,
    /// else the profile's heatmap (after) and the before/after speedup (before).
    void updateFills();
    /// The Comparison section of the inspector for `node` on `side`, when it is a compared node.
    void inspectComparison(const GraphPane* side, NodeId node);
    /// In a comparison shown on the panes: the nodes `node` is matched with on the other side.
    std::vector<NodeId> diffCounterparts(const GraphPane* side, NodeId node) const;
    void chooseAndOpen();
    void chooseAndSave(bool standardOpsOnly);
    void chooseAndExport(bool wholeGraph);
    /// Enables the actions for the state: none of the work actions while work runs, none of the
    /// model actions without a model; the start page or the panes in the central area.
    void updateActions();
    void fillRecentMenu();
    void updateStatus();
    /// Shows the stepper's current step on the right and the original or the previous step on
    /// the left: layouts for both sides, diff marks, captions, the rewrite log.
    void showStep();
    void fillRewriteLog();
    void paneShown();
    void showLoaded(const QString& path, LoadedModel loaded);
    void failLoad(const QString& path, const QString& reason, bool quiet);
    void setWorking(bool working);
    void searchHitActivated(SearchSide side, NodeId node);
    void groupSelected(GraphPane* side, GroupId group);
    /// The selection on `side` changed: inspect it, center each side on its own counterpart
    /// and highlight its relatives on the other side.
    void nodeSelected(GraphPane* side, NodeId node);
    /// Selects and centers `node` on `side`, centers the other side on the first of the nodes
    /// made from the same original nodes and highlights those.
    void focusCounterparts(GraphPane* side, NodeId node);
    /// The boxes on the other side made from the same original nodes as `node` on `side`.
    std::vector<NodeId> counterpartsOf(const GraphPane* side, NodeId node) const;
    /// Centers `side` on `node` and the other side on the first of `counterparts`, and keeps
    /// which node the selection centered each side for.
    void centerBoth(GraphPane* side, NodeId node, const std::vector<NodeId>& counterparts);
    /// A rewrite log line: its nodes on each side, selected on the right where it has some.
    void focusRewrite(size_t step, RewriteLogPanel::Entry kind, size_t index);
    /// The results of the passes that made the graph `side` shows, oldest first.
    std::vector<const PassResult*> resultsBehind(const GraphPane* side) const;
    GraphPane* focusedPane() const;

    ComparisonPanel* comparison_ = nullptr;
    std::shared_ptr<const ModelDiff> diff_;
    DiffMarks diffMarks_;
    bool diffShown_ = false;
    QString lastCompareError_;
    PassFactory bisectFactory_;
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
    RewriteLogPanel* rewriteLog_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    std::optional<ModelSummary> loadedSummary_;  ///< of the model as loaded: step 0's status line
    int statusGeneration_ = 0;  ///< bumped per status update; an older summary coming back is dropped
    int loadGeneration_ = 0;    ///< bumped per model shown; its late FLOP count is dropped for a newer one
    TaskRunner* tasks_ = nullptr;
    TaskProgress* taskProgress_ = nullptr;
    std::vector<QAction*> workActions_;  ///< disabled while work runs
    std::vector<QAction*> modelActions_;  ///< disabled while no model is open
    QStackedWidget* central_ = nullptr;
    StartPage* startPage_ = nullptr;
    QSplitter* split_ = nullptr;
    QString modelPath_;
    bool layoutRestored_ = false;  ///< the dock sizes came from saved settings
    bool docksSized_ = false;      ///< the first show sized the docks
    PassPanel* passPanel_ = nullptr;
    bool profileWhenIdle_ = false;  ///< a profile was asked for while passes ran
    QString lastError_;
    bool stepShowPending_ = false;  ///< graphShown() is due when both sides are laid out
    bool alignPanes_ = false;       ///< the first step of a new model is due: line the left up with the right
    ViewLink* viewLink_ = nullptr;
    size_t leftStep_ = 0;           ///< the snapshot the left side shows
    bool focusing_ = false;         ///< a focus action is moving both sides
    NodeId centeredFor_[2] = {kNoId, kNoId};  ///< per side: the selection both sides were last centered for
};

} // namespace graphlens
