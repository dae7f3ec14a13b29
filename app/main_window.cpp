// MainWindow: menus and shortcuts, the split before/after canvas, docks for the pass pipeline,
// the rewrite log, the inspector, search, the model overview and the profile, and a status bar
// with the model's figures.
#include "app/main_window.h"

#include "app/cli/model_report.h"
#include "app/profile_panel.h"
#include "core/graph/model_summary.h"
#include "core/onnx/loader.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/model_overview.h"
#include "viewer/node_inspector.h"
#include "viewer/node_label.h"
#include "viewer/search_panel.h"

#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

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
        connect(side, &GraphPane::graphShown, this, &MainWindow::paneShown);
    }
    statusLabel_ = new QLabel(tr("No model"), this);
    statusBar()->addPermanentWidget(statusLabel_);
    buildDocks();
    buildMenus();
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpen);
    QMenu* recent = file->addMenu(tr("Open &Recent"));
    recent->setObjectName("recentMenu");
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
    passes->addAction(tr("Apply &next"), QKeySequence(Qt::Key_N), this, &MainWindow::applyNextPass);
    passes->addAction(tr("Apply &all"), QKeySequence(Qt::CTRL | Qt::Key_Return), this, &MainWindow::applyAllPasses);
    passes->addAction(tr("Step &back"), QKeySequence::Undo, this, &MainWindow::stepBack);
    passes->addAction(tr("Step &forward"), QKeySequence::Redo, this, &MainWindow::stepForward);
    passes->addAction(tr("&Reset"), this, &MainWindow::resetPasses);
}

void MainWindow::buildDocks() {
    auto* passDock = new QDockWidget(tr("Passes"), this);
    auto* panel = new QWidget(passDock);
    auto* layout = new QVBoxLayout(panel);
    passList_ = new QListWidget(panel);
    layout->addWidget(passList_);
    auto* buttons = new QHBoxLayout;
    for (auto [label, slot] : {std::pair{tr("Next"), &MainWindow::applyNextPass}, std::pair{tr("All"), &MainWindow::applyAllPasses},
                               std::pair{tr("Back"), &MainWindow::stepBack}, std::pair{tr("Forward"), &MainWindow::stepForward},
                               std::pair{tr("Reset"), &MainWindow::resetPasses}}) {
        auto* b = new QPushButton(label, panel);
        connect(b, &QPushButton::clicked, this, slot);
        buttons->addWidget(b);
    }
    layout->addLayout(buttons);
    passDock->setWidget(panel);
    addDockWidget(Qt::LeftDockWidgetArea, passDock);
    connect(passList_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        stepper_.setEnabled(size_t(passList_->row(item)), item->checkState() == Qt::Checked);
    });

    searchDock_ = new QDockWidget(tr("Search"), this);
    searchPanel_ = new SearchPanel(searchDock_);
    searchDock_->setWidget(searchPanel_);
    addDockWidget(Qt::LeftDockWidgetArea, searchDock_);
    connect(searchPanel_, &SearchPanel::nodeActivated, after_, &GraphPane::focusNode);

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
}

void MainWindow::profileCurrentStep() {
    if (model_) profilePanel_->startProfile(std::make_shared<const Model>(stepper_.current()));
}

GraphScene* MainWindow::beforeScene() const { return before_->scene(); }
GraphScene* MainWindow::afterScene() const { return after_->scene(); }
bool MainWindow::layoutPending() const { return before_->layoutPending() || after_->layoutPending(); }

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
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    openModel(path);
}

bool MainWindow::openModel(const QString& path, bool quiet) {
    try {
        if (!QFileInfo::exists(path)) throw std::runtime_error("the file does not exist");
        Model loaded = loadModel(path.toStdString());
        model_ = std::move(loaded);
    } catch (const std::exception& e) {
        lastError_ = tr("Cannot open %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
        if (!quiet) QMessageBox::critical(this, tr("Cannot open model"), lastError_);
        return false;
    }
    lastError_.clear();
    recent_.add(path);
    overview_->showModel(*model_);
    setWindowTitle(tr("%1 — GraphLens").arg(QFileInfo(path).fileName()));
    resetPasses();
    return true;
}

void MainWindow::resetPasses() {
    if (!model_) return;
    stepper_.reset(*model_);
    const QSignalBlocker block(passList_);
    passList_->clear();
    for (size_t i = 0; i < stepper_.passIds().size(); ++i) {
        auto* item = new QListWidgetItem(QString::fromStdString(stepper_.passIds()[i]), passList_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(QString::fromStdString(stepper_.title(i) + "\n\n" + stepper_.explanation(i)));
    }
    showStep();
}

void MainWindow::runGuarded(const std::function<void()>& work) {
    if (!model_) return;
    try {
        work();
    } catch (const std::exception& e) {
        QMessageBox::critical(this, tr("Pass failed"), QString::fromUtf8(e.what()));
    }
    showStep();
}

void MainWindow::applyNextPass() { runGuarded([this] { stepper_.applyNext(); }); }
void MainWindow::applyAllPasses() { runGuarded([this] { stepper_.applyAll(); }); }
void MainWindow::stepBack() { runGuarded([this] { stepper_.stepBack(); }); }
void MainWindow::stepForward() { runGuarded([this] { stepper_.stepForward(); }); }

void MainWindow::showStep() {
    auto before = std::make_shared<const Graph>(stepper_.previous().graph);
    auto after = stepper_.step() == 0 ? before : std::make_shared<const Graph>(stepper_.current().graph);
    std::vector<NodeId> removed, added;
    if (const PassResult* r = stepper_.currentResult()) {
        for (const Rewrite& w : r->rewrites) {
            for (const NodeRef& n : w.removed) removed.push_back(n.id);
            for (const NodeRef& n : w.added) added.push_back(n.id);
        }
        before_->setCaption(tr("Before %1").arg(QString::fromStdString(r->passId)));
        after_->setCaption(tr("After %1 (step %2 of %3)").arg(QString::fromStdString(r->passId)).arg(stepper_.step()).arg(stepper_.stepCount()));
    } else {
        before_->setCaption(tr("Original"));
        after_->setCaption(tr("Original (no pass applied)"));
    }
    fillRewriteLog(*before, *after);
    beforeIndex_ = ProvenanceIndex(*before);
    afterIndex_ = ProvenanceIndex(*after);
    inspector_->showNothing();
    profilePanel_->dropProfile();  // a profile of the step before does not fit the after side
    stepShowPending_ = true;
    before_->showGraph(before, removed, NodeMark::Removed);
    after_->showGraph(after, added, NodeMark::Added);
    searchPanel_->setGraph(after);
    updateStatus();
}

void MainWindow::fillRewriteLog(const Graph& before, const Graph& after) {
    rewriteLog_->clear();
    const PassResult* r = stepper_.currentResult();
    if (!r) return;
    const auto add = [this, r](const std::string& text, NodeId beforeNode, NodeId afterNode) {
        auto* item = new QListWidgetItem(QString::fromStdString("[" + r->passId + "] " + text), rewriteLog_);
        item->setData(kBeforeNodeRole, beforeNode);
        item->setData(kAfterNodeRole, afterNode);
    };
    for (const Rewrite& w : r->rewrites) add(w.sentence, firstDrawn(before, w.removed), firstDrawn(after, w.added));
    for (const Decline& d : r->declines)
        add(d.node.name + ": " + d.reason, firstDrawn(before, {d.node}), firstDrawn(after, {d.node}));
}

void MainWindow::paneShown() {
    if (!stepShowPending_ || layoutPending()) return;
    stepShowPending_ = false;
    after_->view()->fitToWindow();
    emit graphShown();
}

void MainWindow::nodeSelected(GraphPane* side, NodeId node) {
    GraphPane* other = side == before_ ? after_ : before_;
    side->setHighlighted({});
    if (node == kNoId || !side->graph() || !model_) {
        other->setHighlighted({});
        inspector_->showNothing();
        return;
    }
    const Graph& graph = *side->graph();
    const ProvenanceIndex& otherIndex = side == before_ ? afterIndex_ : beforeIndex_;
    other->setHighlighted(otherIndex.nodesFrom(graph.node(node).provenance));
    std::vector<const PassResult*> applied = stepper_.appliedResults();
    if (side == before_ && !applied.empty()) applied.pop_back();  // the before side is one step back
    inspector_->showNode(graph, node, model_->graph, applied);
}

void MainWindow::focusRewrite(QListWidgetItem* item) {
    syncing_ = true;  // each side centers on its own node
    before_->focusNode(item->data(kBeforeNodeRole).value<NodeId>());
    after_->focusNode(item->data(kAfterNodeRole).value<NodeId>());
    syncing_ = false;
}

void MainWindow::updateStatus() {
    if (!model_) return;
    const ModelSummary s = summarize(stepper_.current());
    statusLabel_->setText(tr("step %1/%2 · %3 nodes · %4 op types · %5 parameters · %6")
                              .arg(stepper_.step())
                              .arg(stepper_.stepCount())
                              .arg(s.nodes)
                              .arg(s.ops.size())
                              .arg(cli::humanCount(double(s.parameters), QString()).trimmed())
                              .arg(cli::humanCount(double(s.flops), "FLOPs")));
}

} // namespace graphlens
