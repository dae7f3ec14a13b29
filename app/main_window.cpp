// MainWindow: menus and shortcuts, the split before/after canvas, docks for the pass pipeline,
// the rewrite log, the inspector, search, the model overview and the profile, and a status bar
// with the model's figures.
#include "app/main_window.h"

#include "app/backend_compare_panel.h"
#include "app/cli/model_report.h"
#include "app/compare_panel.h"
#include "app/profile_panel.h"
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
#include "viewer/search_panel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSplitter>
#include <QStatusBar>

#include <utility>

namespace graphlens {
namespace {

/// Rewrite log rows keep the node to focus on each side (kNoId for none).
constexpr int kBeforeNodeRole = Qt::UserRole;
constexpr int kAfterNodeRole = Qt::UserRole + 1;

/// The first of `nodes` that `graph` draws as a box; kNoId when none is.
NodeId firstDrawn(const Graph& graph, const std::vector<NodeRef>& nodes) {
    for (const NodeRef& n : nodes)
        if (graph.hasNode(n.id) && !isDrawnAsParameter(graph, graph.node(n.id))) return n.id;
    return kNoId;
}

/// The local .onnx file among dropped URLs; empty when there is none.
QString droppedModel(const QMimeData* mime) {
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile() && url.toLocalFile().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
            return url.toLocalFile();
    return {};
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphLens"));
    setAcceptDrops(true);
    resize(1400, 860);
    before_ = new GraphPane;
    after_ = new GraphPane;
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(before_);
    split->addWidget(after_);
    setCentralWidget(split);
    for (auto [side, other] : {std::pair{before_, after_}, std::pair{after_, before_}}) {
        // Pan and zoom follow each other, so the same region of both graphs stays in view.
        connect(side->view(), &GraphView::viewChanged, this, [this, from = side->view(), to = other->view()] {
            if (syncing_) return;
            syncing_ = true;
            to->setViewState(from->viewState());
            syncing_ = false;
        });
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
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    workActions_.push_back(file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpen));
    workActions_.back()->setObjectName("openAction");
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    recent->setObjectName("recentMenu");
    workActions_.push_back(recent->menuAction());
    connect(recent, &QMenu::aboutToShow, this, &MainWindow::fillRecentMenu);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Find..."), QKeySequence::Find, this, &MainWindow::find);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit to window"), QKeySequence(Qt::Key_F), this, [this] { focusedPane()->view()->fitToWindow(); });
    QAction* zoomIn = view->addAction(tr("Zoom &in"), this, [this] { focusedPane()->view()->zoomIn(); });
    zoomIn->setShortcuts({QKeySequence(Qt::Key_Plus), QKeySequence(Qt::Key_Equal), QKeySequence::ZoomIn});
    QAction* zoomOut = view->addAction(tr("Zoom &out"), this, [this] { focusedPane()->view()->zoomOut(); });
    zoomOut->setShortcuts({QKeySequence(Qt::Key_Minus), QKeySequence::ZoomOut});
    view->addSeparator();
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    QMenu* passes = menuBar()->addMenu(tr("&Passes"));
    workActions_.push_back(passes->addAction(tr("Apply &next"), QKeySequence(Qt::Key_N), this, &MainWindow::applyNextPass));
    workActions_.back()->setObjectName("applyNextAction");
    workActions_.push_back(passes->addAction(tr("Apply &all"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::applyAllPasses));
    workActions_.back()->setObjectName("applyAllAction");
    workActions_.push_back(passes->addAction(tr("Step &back"), QKeySequence::Undo, this, &MainWindow::stepBack));
    workActions_.push_back(passes->addAction(tr("Step &forward"), QKeySequence::Redo, this, &MainWindow::stepForward));
    workActions_.push_back(passes->addAction(tr("&Reset"), this, &MainWindow::resetPasses));
    passes->addSeparator();
    QAction* cancel = passes->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelWork);
    cancel->setObjectName("cancelAction");
    cancel->setEnabled(false);  // only while work runs, so Esc stays free otherwise
}

void MainWindow::buildDocks() {
    auto* passDock = new QDockWidget(tr("Passes"), this);
    passPanel_ = new PassPanel(tasks_, passDock);
    passDock->setWidget(passPanel_);
    addDockWidget(Qt::LeftDockWidgetArea, passDock);

    searchDock_ = new QDockWidget(tr("Search"), this);
    searchPanel_ = new SearchPanel(searchDock_);
    searchDock_->setWidget(searchPanel_);
    addDockWidget(Qt::LeftDockWidgetArea, searchDock_);
    connect(searchPanel_, &SearchPanel::nodeActivated, this, &MainWindow::searchHitActivated);

    auto* logDock = new QDockWidget(tr("Rewrite log"), this);
    rewriteLog_ = new QListWidget(logDock);
    logDock->setWidget(rewriteLog_);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);
    connect(rewriteLog_, &QListWidget::itemClicked, this, &MainWindow::focusRewrite);
    connect(rewriteLog_, &QListWidget::itemActivated, this, &MainWindow::focusRewrite);

    auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
    inspector_ = new NodeInspector(inspectorDock);
    inspectorDock->setWidget(inspector_);
    addDockWidget(Qt::RightDockWidgetArea, inspectorDock);

    auto* overviewDock = new QDockWidget(tr("Model"), this);
    overview_ = new ModelOverview(overviewDock);
    overviewDock->setWidget(overview_);
    addDockWidget(Qt::RightDockWidgetArea, overviewDock);
    tabifyDockWidget(inspectorDock, overviewDock);
    inspectorDock->raise();

    auto* profileDock = new QDockWidget(tr("Profile"), this);
    profileDock->setObjectName("profileDock");
    profilePanel_ = new ProfilePanel(profileDock);
    profileDock->setWidget(profilePanel_);
    addDockWidget(Qt::RightDockWidgetArea, profileDock);
    connect(profilePanel_, &ProfilePanel::profileRequested, this, &MainWindow::profileCurrentStep);
    connect(profilePanel_, &ProfilePanel::nodeFillsChanged, this, [this] { after_->scene()->setNodeFills(profilePanel_->nodeFills()); });
    connect(profilePanel_, &ProfilePanel::nodeActivated, after_, &GraphPane::focusNode);
    // Before/After: the current step against the original or the previous step, folded onto the
    // loaded model; speedup on the before side when it shows the baseline.
    ComparePanel* compare = profilePanel_->comparePanel();
    connect(compare, &ComparePanel::compareRequested, this, [this, compare] {
        if (model_) compare->startCompare(compareSides(stepper(), compare->baseline()));
    });
    connect(compare, &ComparePanel::beforeFillsChanged, this, [this, compare] { before_->scene()->setNodeFills(compare->beforeFills()); });
    connect(compare, &ComparePanel::nodeActivated, before_, &GraphPane::focusNode);
    connect(compare, &ComparePanel::afterNodeActivated, after_, &GraphPane::focusNode);
    // Backends: the current step on the CPU and on the Vulkan device, side by side.
    BackendComparePanel* backends = profilePanel_->backendComparePanel();
    connect(backends, &BackendComparePanel::compareRequested, this, [this, backends] {
        if (model_) backends->startCompare(std::make_shared<const Model>(stepper().current()));
    });
    // The pass flow shows each step it moves to; passes about to run make the profile stale.
    connect(passPanel_, &PassPanel::stepChanged, this, &MainWindow::showStep);
    connect(passPanel_, &PassPanel::applyStarted, profilePanel_, &ProfilePanel::dropProfile);  // the after side will change
    connect(passPanel_, &PassPanel::passesApplied, this, &MainWindow::passesApplied);
    connect(passPanel_, &PassPanel::statusMessage, statusBar(), &QStatusBar::showMessage);
}

void MainWindow::profileCurrentStep() {
    profileWhenIdle_ = busy();  // the step is about to change: profile the one that comes
    if (model_ && !profileWhenIdle_) profilePanel_->startProfile(std::make_shared<const Model>(stepper().current()));
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
                                                      tr("ONNX models (*.onnx);;All files (*)"));
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
    lastError_.clear();
    recent_.add(path);
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
    passPanel_->startOver(*model_);
    emit modelLoaded(path);
}

void MainWindow::failLoad(const QString& path, const QString& reason, bool quiet) {
    lastError_ = tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), reason);
    emit loadFailed(lastError_);
    if (!quiet) QMessageBox::critical(this, tr("Cannot open model"), lastError_);
}

void MainWindow::cancelWork() { taskProgress_->cancel(); }

void MainWindow::setWorking(bool working) {
    for (QAction* action : workActions_) action->setEnabled(!working);
    passPanel_->setEnabled(!working);
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
    const size_t step = stepper().step();
    auto before = stepper().sharedGraph(step == 0 ? 0 : step - 1);  // the snapshots themselves, not copies
    auto after = step == 0 ? before : stepper().sharedGraph(step);
    std::vector<NodeId> removed, added;
    if (const PassResult* r = stepper().currentResult()) {
        for (const Rewrite& w : r->rewrites) {
            for (const NodeRef& n : w.removed) removed.push_back(n.id);
            for (const NodeRef& n : w.added) added.push_back(n.id);
        }
        before_->setCaption(tr("Before %1").arg(QString::fromStdString(r->passId)));
        QString caption = tr("After %1 (step %2 of %3)").arg(QString::fromStdString(r->passId)).arg(stepper().step()).arg(stepper().stepCount());
        if (const VerifyReport* v = stepper().currentVerification())
            caption += v->passed ? tr(" · max error %1").arg(v->maxAbsError, 0, 'g', 3) : tr(" · verification failed");
        after_->setCaption(caption);
    } else {
        before_->setCaption(tr("Original"));
        after_->setCaption(tr("Original (no pass applied)"));
    }
    fillRewriteLog(*before, *after);
    beforeIndex_ = ProvenanceIndex(*before);
    afterIndex_ = after == before ? beforeIndex_ : ProvenanceIndex(*after);
    inspector_->showNothing();
    profilePanel_->dropProfile();  // a profile of the step before does not fit the after side
    stepShowPending_ = true;
    before_->showGraph(before, removed, NodeMark::Removed);
    after_->showGraph(after, added, NodeMark::Added);
    searchPanel_->setGraphs(before, after);
    updateStatus();
}

void MainWindow::fillRewriteLog(const Graph& before, const Graph& after) {
    rewriteLog_->clear();
    const PassResult* r = stepper().currentResult();
    if (!r) return;
    const auto add = [this, r](const std::string& text, NodeId beforeNode, NodeId afterNode) {
        auto* item = new QListWidgetItem(QString::fromStdString("[" + r->passId + "] " + text), rewriteLog_);
        item->setData(kBeforeNodeRole, beforeNode);
        item->setData(kAfterNodeRole, afterNode);
    };
    if (const VerifyReport* v = stepper().currentVerification()) add(verificationText(*v).toStdString(), kNoId, kNoId);
    for (const Rewrite& w : r->rewrites) add(w.sentence, firstDrawn(before, w.removed), firstDrawn(after, w.added));
    for (const Decline& d : r->declines)
        add(d.node.name + ": " + d.reason, firstDrawn(before, {d.node}), firstDrawn(after, {d.node}));
}

void MainWindow::paneShown() {
    if (!stepShowPending_ || before_->layoutPending() || after_->layoutPending()) return;
    stepShowPending_ = false;
    after_->view()->fitToWindow();
    emit graphShown();
}

void MainWindow::nodeSelected(GraphPane* side, NodeId node) {
    GraphPane* other = side == before_ ? after_ : before_;
    if (side == after_) profilePanel_->selectNode(node);  // the profile is of the after side
    side->setHighlighted({});
    if (node == kNoId || !side->graph() || !model_) {
        other->setHighlighted({});
        inspector_->showNothing();
        return;
    }
    const Graph& graph = *side->graph();
    const ProvenanceIndex& otherIndex = side == before_ ? afterIndex_ : beforeIndex_;
    other->setHighlighted(otherIndex.nodesFrom(graph.node(node).provenance));
    std::vector<const PassResult*> applied = stepper().appliedResults();
    if (side == before_ && !applied.empty()) applied.pop_back();  // the before side is one step back
    inspector_->showNode(graph, node, model_->graph, applied);
}

void MainWindow::groupSelected(GraphPane* side, GroupId group) {
    if (group == kNoId) {
        if (side->scene()->selectedNode() == kNoId) inspector_->showNothing();
        return;
    }
    if (side->graph() && side->scopes()) inspector_->showGroup(summarizeGroup(*side->graph(), *side->scopes(), group));
}

void MainWindow::searchHitActivated(SearchSide side, NodeId node) {
    if (side == SearchSide::Before) return before_->focusNode(node);  // the other side follows the view
    if (side == SearchSide::After) return after_->focusNode(node);
    syncing_ = true;  // both sides show the graph: each centers on the node
    before_->focusNode(node);
    after_->focusNode(node);
    syncing_ = false;
}

void MainWindow::focusRewrite(QListWidgetItem* item) {
    syncing_ = true;  // each side centers on its own node
    before_->focusNode(item->data(kBeforeNodeRole).value<NodeId>());
    after_->focusNode(item->data(kAfterNodeRole).value<NodeId>());
    syncing_ = false;
}

void MainWindow::updateStatus() {
    if (!model_) return;
    const size_t step = stepper().step(), steps = stepper().stepCount();
    const int generation = ++statusGeneration_;
    if (step == 0 && loadedSummary_) return statusLabel_->setText(statusText(step, steps, *loadedSummary_));
    statusLabel_->setText(tr("step %1/%2 · counting...").arg(step).arg(steps));
    summarizeInBackground(std::make_shared<const Model>(stepper().current()), this, [this, generation, step, steps](const ModelSummary& s) {
        if (generation == statusGeneration_) statusLabel_->setText(statusText(step, steps, s));
    });
}

} // namespace graphlens
