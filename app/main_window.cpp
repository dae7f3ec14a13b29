// MainWindow: menus and shortcuts, the split before/after canvas, docks for the pass pipeline,
// the rewrite log and the model overview, and a status bar with the model's figures.
#include "app/main_window.h"

#include "app/cli/model_report.h"
#include "core/graph/model_summary.h"
#include "core/onnx/loader.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/model_overview.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QThreadPool>
#include <QToolBar>
#include <QVBoxLayout>

namespace graphlens {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("GraphLens"));
    resize(1400, 860);
    beforeScene_ = new GraphScene(this);
    afterScene_ = new GraphScene(this);
    beforeView_ = new GraphView;
    afterView_ = new GraphView;
    beforeView_->setScene(beforeScene_);
    afterView_->setScene(afterScene_);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(beforeView_);
    split->addWidget(afterView_);
    setCentralWidget(split);
    // Pan and zoom follow each other, so the same region of both graphs stays in view.
    for (auto [from, to] : {std::pair{beforeView_, afterView_}, std::pair{afterView_, beforeView_}})
        connect(from, &GraphView::viewChanged, this, [this, from = from, to = to] {
            if (syncing_) return;
            syncing_ = true;
            to->setViewState(from->viewState());
            syncing_ = false;
        });
    statusLabel_ = new QLabel(tr("No model"), this);
    statusBar()->addPermanentWidget(statusLabel_);
    buildDocks();
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::chooseAndOpen);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
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

    auto* logDock = new QDockWidget(tr("Rewrite log"), this);
    rewriteLog_ = new QListWidget(logDock);
    logDock->setWidget(rewriteLog_);
    addDockWidget(Qt::BottomDockWidgetArea, logDock);

    auto* overviewDock = new QDockWidget(tr("Model"), this);
    overview_ = new ModelOverview(overviewDock);
    overviewDock->setWidget(overview_);
    addDockWidget(Qt::RightDockWidgetArea, overviewDock);
}

void MainWindow::chooseAndOpen() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), QString(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
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
    ++generation_;
    pendingLayouts_ = 0;
    std::vector<NodeId> removed, added;
    rewriteLog_->clear();
    if (const PassResult* r = stepper_.currentResult()) {
        for (const Rewrite& w : r->rewrites) {
            for (const NodeRef& n : w.removed) removed.push_back(n.id);
            for (const NodeRef& n : w.added) added.push_back(n.id);
            rewriteLog_->addItem(QString::fromStdString("[" + r->passId + "] " + w.sentence));
        }
        for (const Decline& d : r->declines)
            rewriteLog_->addItem(QString::fromStdString("[" + r->passId + "] " + d.node.name + ": " + d.reason));
    }
    layoutInBackground(beforeScene_, stepper_.previous().graph, removed, true);
    layoutInBackground(afterScene_, stepper_.current().graph, added, false);
    updateStatus();
}

void MainWindow::layoutInBackground(GraphScene* scene, const Graph& graph, std::vector<NodeId> marked, bool removed) {
    ++pendingLayouts_;
    GraphLayoutRequest request;
    request.measure = scene->textMeasure();
    QPointer<MainWindow> self(this);
    QPointer<GraphScene> target(scene);
    const int generation = generation_;
    QThreadPool::globalInstance()->start([self, target, graph, request, marked, removed, generation] {
        auto layout = std::make_shared<std::optional<VisualGraph>>();
        try {
            *layout = layoutGraph(graph, request);
        } catch (const std::exception&) {
            // Graphviz refused this graph: the side stays empty, the window stays usable.
        }
        QMetaObject::invokeMethod(qApp, [self, target, layout, marked, removed, generation] {
            if (!self || !target || generation != self->generation_) return;  // a newer step is shown
            if (*layout) {
                target->showGraph(std::move(**layout));
                target->setNodeMarks(marked, removed ? NodeMark::Removed : NodeMark::Added);
            }
            if (--self->pendingLayouts_ == 0) {
                self->afterView_->fitToWindow();
                emit self->graphShown();
            }
        }, Qt::QueuedConnection);
    });
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
