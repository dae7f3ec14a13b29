// MainWindow: menus and shortcuts, the split before/after canvas, docks for the pass pipeline,
// the rewrite log, the inspector, search, the model overview and the profile, and a status bar
// with the model's figures. The start page stands in the central area until a model is open;
// the layout, the action states and the file actions are in main_window_state.cpp.
#include "app/main_window.h"

#include "app/backend_compare_panel.h"
#include "app/cli/model_report.h"
#include "app/compare_panel.h"
#include "app/comparison_panel.h"
#include "app/dock_layout.h"
#include "app/profile_panel.h"
#include "app/start_page.h"
#include "app/task_progress.h"
#include "app/task_runner.h"
#include "core/graph/model_summary.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/group_summary.h"
#include "viewer/model_overview.h"
#include "viewer/node_inspector.h"
#include "viewer/node_label.h"
#include "viewer/scope_outline.h"
#include "viewer/search_panel.h"
#include "viewer/view_link.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>

#include <utility>

namespace graphlens {
namespace {

/// The nodes among `nodes` that `graph` draws as boxes.
std::vector<NodeId> drawnOnly(const Graph& graph, std::vector<NodeId> nodes) {
    std::erase_if(nodes, [&graph](NodeId n) { return !graph.hasNode(n) || isDrawnAsParameter(graph, graph.node(n)); });
    return nodes;
}

/// The local model file (.onnx, TF.js model.json, TensorFlow .pb) among dropped URLs; empty
/// when there is none.
QString droppedModel(const QMimeData* mime) {
    for (const QUrl& url : mime->urls()) {
        const QString file = url.toLocalFile();
        for (const char* suffix : {".onnx", ".json", ".pb"})
            if (url.isLocalFile() && file.endsWith(QLatin1String(suffix), Qt::CaseInsensitive)) return file;
    }
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphLens"));
    setAcceptDrops(true);
    resize(1400, 860);
    before_ = new GraphPane;
    after_ = new GraphPane;
    split_ = new QSplitter(Qt::Horizontal, this);
    split_->addWidget(before_);
    split_->addWidget(after_);
    split_->setChildrenCollapsible(false);
    split_->setStretchFactor(0, 1);  // both panes grow and shrink alike
    split_->setStretchFactor(1, 1);
    startPage_ = new StartPage(this);
    connect(startPage_, &StartPage::openRequested, this, &MainWindow::chooseAndOpen);
    connect(startPage_, &StartPage::recentRequested, this, &MainWindow::openRecent);
    central_ = new QStackedWidget(this);
    central_->addWidget(startPage_);
    central_->addWidget(split_);
    setCentralWidget(central_);
    // Zoom and pans follow each other; centering a node moves one side only, so each side can
    // show its own counterpart of a selection.
    viewLink_ = new ViewLink(before_, after_, this);
    // A new model: the left lines up with the right once; later steps keep each side's own view.
    connect(this, &MainWindow::graphShown, this, [this] {
        if (std::exchange(alignPanes_, false)) viewLink_->align(after_, before_);
    });
    for (auto [side, other] : {std::pair{before_, after_}, std::pair{after_, before_}}) {
        connect(side->scene(), &GraphScene::selectedNodeChanged, this, [this, side = side](NodeId node) { nodeSelected(side, node); });
        connect(side->scene(), &GraphScene::selectedGroupChanged, this, [this, side = side](GroupId group) { groupSelected(side, group); });
        connect(side, &GraphPane::graphShown, this, &MainWindow::paneShown);
        // A group toggled on one side toggles the group of the same path on the other.
        connect(side, &GraphPane::groupToggled, other, &GraphPane::setGroupCollapsed);
    }
    tasks_ = new TaskRunner(this);
    taskProgress_ = new TaskProgress(tasks_, this);
    statusBar()->addPermanentWidget(taskProgress_);
    connect(tasks_, &TaskRunner::started, this, [this] { setWorking(true); });
    connect(tasks_, &TaskRunner::finished, this, [this] { setWorking(false); });
    connect(tasks_, &TaskRunner::failed, this, [this](const QString& title, const QString& message) {
        QMessageBox::critical(this, title, message);
    });
    statusLabel_ = new QLabel(tr("No model"), this);
    statusBar()->addPermanentWidget(statusLabel_);
    buildDocks();
    buildMenus();
    arrangeDefaultDocks(*this);
    startPage_->setRecentFiles(recent_.paths());
    updateActions();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    workActions_.push_back(file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpen));
    workActions_.back()->setObjectName("openAction");
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    recent->setObjectName("recentMenu");
    workActions_.push_back(recent->menuAction());
    connect(recent, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    QAction* compareWith = file->addAction(tr("Compare &with..."), this, &MainWindow::chooseAndCompare);
    compareWith->setObjectName("compareWithAction");
    compareWith->setStatusTip(tr("Open a second model (B) and compare it node by node with the one shown (A)"));
    workActions_.push_back(compareWith);
    modelActions_.push_back(compareWith);
    file->addSeparator();
    QAction* save = file->addAction(tr("&Save optimized model..."), QKeySequence::Save, this, [this] { chooseAndSave(false); });
    save->setObjectName("saveAction");
    QAction* savePortable = file->addAction(tr("Save optimized model, standard ONNX ops &only..."), this, [this] { chooseAndSave(true); });
    savePortable->setObjectName("savePortableAction");
    savePortable->setStatusTip(tr("Fused operators rewritten as standard ONNX operators, as 'graphlens optimize --portable' writes them"));
    QAction* exportView = file->addAction(tr("&Export view..."), this, [this] { chooseAndExport(false); });
    exportView->setObjectName("exportViewAction");
    QAction* exportGraph = file->addAction(tr("Export &whole graph..."), this, [this] { chooseAndExport(true); });
    exportGraph->setObjectName("exportGraphAction");
    workActions_.insert(workActions_.end(), {save, savePortable});
    modelActions_.insert(modelActions_.end(), {save, savePortable, exportView, exportGraph});
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    modelActions_.push_back(edit->addAction(tr("&Find..."), QKeySequence::Find, this, &MainWindow::find));
    modelActions_.back()->setObjectName("findAction");
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit to window"), QKeySequence(Qt::Key_F), this, [this] { focusedPane()->view()->fitToWindow(); });
    QAction* zoomIn = view->addAction(tr("Zoom &in"), this, [this] { focusedPane()->view()->zoomIn(); });
    zoomIn->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal), QKeySequence::ZoomIn});
    QAction* zoomOut = view->addAction(tr("Zoom &out"), this, [this] { focusedPane()->view()->zoomOut(); });
    zoomOut->setShortcuts({QKeySequence(Qt::Key_Minus), QKeySequence::ZoomOut});
    QAction* overviewMap = view->addAction(tr("O&verview map"));
    overviewMap->setObjectName("minimapAction");
    overviewMap->setCheckable(true);
    overviewMap->setChecked(true);
    connect(overviewMap, &QAction::toggled, this, [this](bool on) {
        for (GraphPane* pane : {before_, after_}) pane->setMinimapEnabled(on);
    });
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout)->setObjectName("resetLayoutAction");
    QMenu* passes = menuBar()->addMenu(tr("&Passes"));
    workActions_.push_back(passes->addAction(tr("Apply &next"), QKeySequence(Qt::Key_N), this, &MainWindow::applyNextPass));
    workActions_.back()->setObjectName("applyNextAction");
    workActions_.push_back(passes->addAction(tr("Apply &all"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::applyAllPasses));
    workActions_.back()->setObjectName("applyAllAction");
    workActions_.push_back(passes->addAction(tr("Step &back"), QKeySequence::Undo, this, &MainWindow::stepBack));
    workActions_.back()->setObjectName("stepBackAction");
    workActions_.push_back(passes->addAction(tr("Step &forward"), QKeySequence::Redo, this, &MainWindow::stepForward));
    workActions_.back()->setObjectName("stepForwardAction");
    workActions_.push_back(passes->addAction(tr("&Reset"), this, &MainWindow::resetPasses));
    workActions_.back()->setObjectName("resetPassesAction");
    const auto passActions = workActions_.end() - 5;  // Apply next to Reset
    modelActions_.insert(modelActions_.end(), passActions, workActions_.end());
    passes->addSeparator();
    QAction* previous = passes->addAction(tr("Compare with &previous step"));
    previous->setObjectName("compareWithPreviousAction");
    previous->setCheckable(true);
    previous->setToolTip(tr("Left pane: the step before the current one instead of the original model"));
    connect(previous, &QAction::toggled, this, [this](bool on) { setCompareWith(on ? CompareWith::PreviousStep : CompareWith::Original); });
    connect(passPanel_, &PassPanel::compareWithChanged, previous, [previous](CompareWith with) { previous->setChecked(with == CompareWith::PreviousStep); });
    passes->addSeparator();
    QAction* cancel = passes->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelWork);
    cancel->setObjectName("cancelAction");
    cancel->setEnabled(false);  // only while work runs, so Esc stays free otherwise
}

void MainWindow::buildDocks() {
    // Each dock is placed by arrangeDefaultDocks() and saved by its objectName.
    auto* passDock = new QDockWidget(tr("Passes"), this);
    passDock->setObjectName(kPassesDock);
    passPanel_ = new PassPanel(tasks_, passDock);
    passDock->setWidget(passPanel_);

    searchDock_ = new QDockWidget(tr("Search"), this);
    searchDock_->setObjectName(kSearchDock);
    searchPanel_ = new SearchPanel(searchDock_);
    searchDock_->setWidget(searchPanel_);
    connect(searchPanel_, &SearchPanel::nodeActivated, this, &MainWindow::searchHitActivated);
    buildOutlineDock();

    auto* logDock = new QDockWidget(tr("Rewrite log"), this);
    logDock->setObjectName(kRewriteLogDock);
    rewriteLog_ = new RewriteLogPanel(logDock);
    logDock->setWidget(rewriteLog_);
    connect(rewriteLog_, &RewriteLogPanel::entryActivated, this, &MainWindow::focusRewrite);

    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspectorDock->setObjectName(kInspectorDock);
    inspector_ = new NodeInspector(inspectorDock);
    inspectorDock->setWidget(inspector_);

    auto* overviewDock = new QDockWidget(tr("Model"), this);
    overviewDock->setObjectName(kModelDock);
    overview_ = new ModelOverview(overviewDock);
    overviewDock->setWidget(overview_);

    auto* profileDock = new QDockWidget(tr("Profile"), this);
    profileDock->setObjectName(kProfileDock);
    profilePanel_ = new ProfilePanel(profileDock);
    // Below the panes the dock is wide and low: the panel puts its controls beside its tabs there.
    profileDock->setWidget(profilePanel_);
    connect(profilePanel_, &ProfilePanel::profileRequested, this, &MainWindow::profileCurrentStep);
    connect(profilePanel_, &ProfilePanel::nodeFillsChanged, this, [this] {
        if (!profilePanel_->nodeFills().empty() && comparison_->errorOverlay() && diff_ && after_->graph() == &diff_->b->graph)
            comparison_->setErrorOverlay(false);  // a profile heatmap asked for takes the after side over
        updateFills();
    });
    connect(profilePanel_, &ProfilePanel::nodeActivated, this, [this](NodeId node) { focusCounterparts(after_, node); });
    // Before/After: the current step against the original or the previous step, folded onto the
    // loaded model; speedup on the before side when it shows the baseline.
    ComparePanel* compare = profilePanel_->comparePanel();
    connect(compare, &ComparePanel::compareRequested, this, [this, compare] {
        if (model_) compare->startCompare(compareSides(stepper(), compare->baseline(), leftStep_));
    });
    connect(compare, &ComparePanel::beforeFillsChanged, this, &MainWindow::updateFills);
    connect(compare, &ComparePanel::nodeActivated, this, [this](NodeId node) { focusCounterparts(before_, node); });
    connect(compare, &ComparePanel::afterNodeActivated, this, [this](NodeId node) { focusCounterparts(after_, node); });
    // Backends: the current step on the CPU and on the Vulkan device, side by side.
    BackendComparePanel* backends = profilePanel_->backendComparePanel();
    connect(backends, &BackendComparePanel::compareRequested, this, [this, backends] {
        if (model_) backends->startCompare(stepper().sharedCurrent());
    });
    // The pass flow shows each step it moves to; passes about to run make the profile stale.
    connect(passPanel_, &PassPanel::stepChanged, this, &MainWindow::showStep);
    connect(passPanel_, &PassPanel::compareWithChanged, this, [this] {
        if (model_ && !busy()) showStep();  // otherwise the step the work ends on shows it
    });
    connect(passPanel_, &PassPanel::applyStarted, profilePanel_, &ProfilePanel::dropProfile);  // the after side will change
    connect(passPanel_, &PassPanel::passesApplied, this, &MainWindow::passesApplied);
    connect(passPanel_, &PassPanel::statusMessage, statusBar(), &QStatusBar::showMessage);
    buildComparisonDock();
}

void MainWindow::buildOutlineDock() {
    auto* dock = new QDockWidget(tr("Outline"), this);
    dock->setObjectName(kOutlineDock);
    auto* outline = new ScopeOutline(dock);
    dock->setWidget(outline);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    tabifyDockWidget(searchDock_, dock);
    // The groups of the after side (the current step); a click opens the group on both sides.
    connect(after_, &GraphPane::graphShown, outline, [this, outline] { outline->setScopes(after_->sharedScopes()); });
    connect(outline, &ScopeOutline::groupActivated, this, [this](const QString& path) {
        for (GraphPane* pane : {before_, after_}) pane->revealGroup(path);
    });
}

void MainWindow::profileCurrentStep() {
    findChild<QDockWidget*>(kProfileDock)->raise();  // its tab, where the results come
    profileWhenIdle_ = busy();  // the step is about to change: profile the one that comes
    if (model_ && !profileWhenIdle_) profilePanel_->startProfile(stepper().sharedCurrent());
}

GraphScene* MainWindow::beforeScene() const { return before_->scene(); }
GraphScene* MainWindow::afterScene() const { return after_->scene(); }
bool MainWindow::layoutPending() const { return busy() || before_->layoutPending() || after_->layoutPending(); }
bool MainWindow::busy() const { return tasks_->running(); }

GraphPane* MainWindow::focusedPane() const { return before_->view()->hasFocus() ? before_ : after_; }

void MainWindow::find() {
    searchDock_->show();
    searchDock_->raise();
    searchPanel_->focusQuery();
}

void MainWindow::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                      tr("Models (*.onnx *.json *.pb);;ONNX models (*.onnx);;TF.js graph models (*.json);;"
                                                         "TensorFlow frozen graphs (*.pb);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::fillRecentMenu() {
    auto* menu = qobject_cast<QMenu*>(sender());
    menu->clear();
    for (const QString& path : recent_.paths()) {
        QAction* action = menu->addAction(QFileInfo(path).fileName(), this, [this, path] { openRecent(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (menu->isEmpty()) menu->addAction(tr("No recent files"))->setEnabled(false);
}

bool MainWindow::openRecent(const QString& path) {
    if (QFileInfo::exists(path)) return openModel(path);
    recent_.remove(path);
    startPage_->setRecentFiles(recent_.paths());
    statusBar()->showMessage(tr("%1 no longer exists; it was removed from the recent files.").arg(path), 10000);
    return false;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedModel(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedModel(event->mimeData());
    if (path.isEmpty() || busy()) return;
    event->acceptProposedAction();
    openModel(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    tasks_->cancel();
    saveLayout();
    QMainWindow::closeEvent(event);
}

bool MainWindow::openModel(const QString& path, bool quiet) {
    if (busy()) return false;
    if (!QFileInfo::exists(path)) {
        failLoad(path, tr("the file does not exist"), quiet);
        return false;
    }
    // The work only reads `path`; `this` is used by the completion, on the UI thread.
    const QString title = tr("Opening %1").arg(QFileInfo(path).fileName());
    tasks_->start(title, [this, path, quiet, title](const TaskRunner::Control& control) -> TaskRunner::Completion {
        const auto keepShown = [this] { statusBar()->showMessage(tr("Opening cancelled."), 5000); };
        control.report(0, 0, title);
        if (control.cancelled()) return keepShown;
        try {
            auto loaded = std::make_shared<LoadedModel>(loadForWindow(path));
            if (control.cancelled()) return keepShown;  // the model shown stays
            return [this, path, loaded] { showLoaded(path, std::move(*loaded)); };
        } catch (const std::exception& e) {
            return [this, path, quiet, reason = QString::fromUtf8(e.what())] { failLoad(path, reason, quiet); };
        }
    });
    return true;
}

void MainWindow::showLoaded(const QString& path, LoadedModel loaded) {
    model_ = std::move(loaded.model);
    modelPath_ = path;
    diff_.reset();  // a comparison of the model before is not about this one
    diffShown_ = false;
    comparison_->setDiff(nullptr);
    lastError_.clear();
    recent_.add(path);
    updateActions();
    loadedSummary_ = loaded.summary;  // the status line's figures at step 0
    overview_->showModel(*model_, loaded.summary);
    if (!loaded.summary.flopsComplete) {  // counted on static shapes after the first frame
        const int load = ++loadGeneration_;
        summarizeInBackground(std::make_shared<const Model>(*model_), this, [this, load](const ModelSummary& s) {
            if (load != loadGeneration_) return;  // another model was opened meanwhile
            loadedSummary_ = s;
            overview_->showFlops(s);
            if (stepper().step() == 0) updateStatus();
        });
    }
    setWindowTitle(tr("%1 — GraphLens").arg(QFileInfo(path).fileName()));
    for (GraphPane* pane : {before_, after_}) pane->startOver();  // the start view, not the last model's
    alignPanes_ = true;
    passPanel_->startOver(*model_);
    emit modelLoaded(path);
}

void MainWindow::failLoad(const QString& path, const QString& reason, bool quiet) {
    lastError_ = tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), reason);
    startPage_->setRecentFiles(recent_.paths());
    emit loadFailed(lastError_);
    if (!quiet) QMessageBox::critical(this, tr("Cannot open model"), lastError_);
}

void MainWindow::cancelWork() { taskProgress_->cancel(); }

void MainWindow::setWorking(bool working) {
    updateActions();
    findChild<QAction*>("cancelAction")->setEnabled(working);
    // After the task's completion has shown its step (it runs right after this).
    if (!working && std::exchange(profileWhenIdle_, false))
        QMetaObject::invokeMethod(this, &MainWindow::profileCurrentStep, Qt::QueuedConnection);
}

void MainWindow::applyNextPass() { passPanel_->applyNext(); }
void MainWindow::applyAllPasses() { passPanel_->applyAll(); }
void MainWindow::stepBack() { passPanel_->stepBack(); }
void MainWindow::stepForward() { passPanel_->stepForward(); }
void MainWindow::resetPasses() { passPanel_->reset(); }

void MainWindow::showStep() {
    const StepComparison c = compareStep(stepper(), compareWith());
    leftStep_ = c.leftStep;
    diffShown_ = false;  // the panes show the steps again; the Error overlay stays where a side still fits
    auto before = stepper().sharedGraph(c.leftStep);  // the snapshots themselves, not copies
    auto after = stepper().step() == c.leftStep ? before : stepper().sharedGraph(stepper().step());
    before_->setCaption(c.leftCaption);
    after_->setCaption(c.rightCaption);
    fillRewriteLog();
    beforeIndex_ = ProvenanceIndex(*before);
    afterIndex_ = after == before ? beforeIndex_ : ProvenanceIndex(*after);
    centeredFor_[0] = centeredFor_[1] = kNoId;
    inspector_->showNothing();
    profilePanel_->dropProfile();  // a profile of the step before does not fit the after side
    stepShowPending_ = true;
    before_->showGraph(before, c.removed, NodeMark::Removed);
    after_->showGraph(after, c.added, NodeMark::Added);
    searchPanel_->setGraphs(before, after);
    updateFills();
    updateStatus();
}

void MainWindow::fillRewriteLog() { rewriteLog_->showSteps(stepper(), compareWith() == CompareWith::PreviousStep); }

void MainWindow::paneShown() {
    if (!stepShowPending_ || before_->layoutPending() || after_->layoutPending()) return;
    stepShowPending_ = false;  // each pane made its first view (GraphPane::showGraph())
    emit graphShown();
}

std::vector<const PassResult*> MainWindow::resultsBehind(const GraphPane* side) const {
    std::vector<const PassResult*> applied = stepper().appliedResults();
    if (side == before_) applied.resize(std::min(applied.size(), leftStep_));
    return applied;
}

void MainWindow::nodeSelected(GraphPane* side, NodeId node) {
    GraphPane* other = side == before_ ? after_ : before_;
    if (side == after_) profilePanel_->selectNode(node);  // the profile is of the after side
    side->setHighlighted({});
    if (node == kNoId || !side->graph() || !model_ || !side->graph()->hasNode(node)) {
        other->setHighlighted({});
        inspector_->showNothing();
        return;
    }
    other->scene()->selectNode(kNoId);  // one selection across both sides: the inspector shows it
    const std::vector<NodeId> counterparts = counterpartsOf(side, node);
    other->setHighlighted(counterparts);
    if (diffShown_) inspector_->showNode(*side->graph(), node, *side->graph(), {});  // two models: no pass history
    else inspector_->showNode(*side->graph(), node, model_->graph, resultsBehind(side));
    inspectComparison(side, node);
    // Center each side on its own node, once per selection (a side laid out again selects its
    // node again without moving).
    if (focusing_ || centeredFor_[side == before_ ? 0 : 1] == node) return;
    centerBoth(side, node, counterparts);
}

std::vector<NodeId> MainWindow::counterpartsOf(const GraphPane* side, NodeId node) const {
    if (diffShown_) return diffCounterparts(side, node);
    const GraphPane* other = side == before_ ? after_ : before_;
    const ProvenanceIndex& otherIndex = side == before_ ? afterIndex_ : beforeIndex_;
    return drawnOnly(*other->graph(), otherIndex.nodesFrom(side->graph()->node(node).provenance));
}

void MainWindow::centerBoth(GraphPane* side, NodeId node, const std::vector<NodeId>& counterparts) {
    GraphPane* other = side == before_ ? after_ : before_;
    centeredFor_[side == before_ ? 0 : 1] = node;
    centeredFor_[side == before_ ? 1 : 0] = kNoId;
    side->centerNode(node);
    if (!counterparts.empty()) other->centerNode(counterparts.front());
}

void MainWindow::focusCounterparts(GraphPane* side, NodeId node) {
    if (!side->graph() || !side->graph()->hasNode(node)) return;
    side->focusNode(node);  // selects it, now or when its layout is in: nodeSelected() centers both
    if (side->scene()->selectedNode() != node) return;
    // Selected already, or selected just now: center both all the same, the user asked for it.
    const std::vector<NodeId> counterparts = counterpartsOf(side, node);
    (side == before_ ? after_ : before_)->setHighlighted(counterparts);
    centerBoth(side, node, counterparts);
}

void MainWindow::groupSelected(GraphPane* side, GroupId group) {
    if (group == kNoId) {
        if (side->scene()->selectedNode() == kNoId) inspector_->showNothing();
        return;
    }
    if (side->graph() && side->scopes()) inspector_->showGroup(summarizeGroup(*side->graph(), *side->scopes(), group));
}

void MainWindow::searchHitActivated(SearchSide side, NodeId node) {
    // A node both sides show is selected on the right; the left centers on it as its counterpart.
    focusCounterparts(side == SearchSide::Before ? before_ : after_, node);
}

void MainWindow::focusRewrite(size_t step, RewriteLogPanel::Entry kind, size_t index) {
    if (!model_ || diffShown_ || step == 0 || step > stepper().step() || kind == RewriteLogPanel::Entry::Verification) return;
    const std::vector<NodeId> origins = kind == RewriteLogPanel::Entry::Rewrite ? rewriteOrigins(stepper(), step, index)
                                                                               : declineOrigins(stepper(), step, index);
    const std::vector<NodeId> left = drawnOnly(*before_->graph(), beforeIndex_.nodesFrom(origins));
    const std::vector<NodeId> right = drawnOnly(*after_->graph(), afterIndex_.nodesFrom(origins));
    // The right side's node is selected (inspected) where there is one; the other side shows all
    // of its nodes the line is about.
    GraphPane* side = right.empty() ? before_ : after_;
    GraphPane* other = right.empty() ? after_ : before_;
    const std::vector<NodeId>& own = right.empty() ? left : right;
    const std::vector<NodeId>& theirs = right.empty() ? right : left;
    if (own.empty()) return;
    focusing_ = true;
    side->focusNode(own.front());
    focusing_ = false;
    centeredFor_[side == before_ ? 0 : 1] = own.front();
    centeredFor_[side == before_ ? 1 : 0] = kNoId;
    if (!theirs.empty()) {
        other->setHighlighted(theirs);
        other->centerNode(theirs.front());
    }
    side->setHighlighted({own.begin() + 1, own.end()});
}

void MainWindow::updateStatus() {
    if (!model_) return;
    const size_t step = stepper().step(), steps = stepper().stepCount();
    const int generation = ++statusGeneration_;
    if (step == 0 && loadedSummary_) return statusLabel_->setText(statusText(step, steps, *loadedSummary_));
    statusLabel_->setText(tr("step %1/%2 · counting...").arg(step).arg(steps));
    summarizeInBackground(stepper().sharedCurrent(), this, [this, generation, step, steps](const ModelSummary& s) {
        if (generation == statusGeneration_) statusLabel_->setText(statusText(step, steps, s));
    });
}

} // namespace graphlens
