// The main window (offscreen): opening the sample, stepping through passes with the before/after
// canvas and its diff marks, provenance highlights both ways, the inspector (attributes, weight
// statistics, a BatchNorm fold's numbers), search, the rewrite log focusing both sides, group
// toggling with cached layouts, recent files, drag and drop, and a bad file that leaves it usable;
// the default layout at 1600x1000 (panes, docks), saving and resetting it, the start page and
// the actions that need a model, File > Save optimized model and File > Export.
#include "app/dock_layout.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "app/start_page.h"
#include "core/onnx/loader.h"
#include "viewer/elided_label.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/histogram_widget.h"
#include "viewer/model_overview.h"
#include "viewer/node_inspector.h"
#include "viewer/node_item.h"
#include "viewer/group_frame_item.h"
#include "viewer/scope_outline.h"
#include "viewer/scope_tree.h"
#include "viewer/search_panel.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <fstream>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

/// Waits until the load or passes running are done and both sides are laid out.
bool waitForLayout(const MainWindow& w) {
    return QTest::qWaitFor([&w] { return !w.layoutPending(); }, 20000);
}

/// Opens `path` (in the background) and waits until it is shown.
bool openAndWait(MainWindow& w, const QString& path = kSample) {
    return w.openModel(path) && waitForLayout(w) && w.model();
}

/// Apply next / Apply all, waiting until the step is shown.
bool applyNext(MainWindow& w) {
    w.applyNextPass();
    return waitForLayout(w);
}
bool applyAll(MainWindow& w) {
    w.applyAllPasses();
    return waitForLayout(w);
}

/// Applies passes until `passId` made the current step.
void stepTo(MainWindow& w, const std::string& passId) {
    while (!w.stepper().currentResult() || w.stepper().currentResult()->passId != passId)
        if (w.stepper().pendingPasses().empty() || !applyNext(w)) throw std::runtime_error("no step of pass " + passId);
}

NodeId nodeNamed(const Graph& graph, const char* name) {
    const auto id = graph.findNode(name);
    if (!id) throw std::runtime_error(std::string("no node named ") + name);
    return *id;
}

/// "name:Op" of every box with `mark`, in scene order.
QStringList boxesMarked(const GraphScene* scene, NodeMark mark) {
    QStringList out;
    for (const NodeItem* item : scene->nodeItems())
        if (item->mark() == mark) out << item->visualNode().name + ":" + item->visualNode().title;
    return out;
}

/// The value column of the child of `parent` titled `key`; "<none>" when there is none.
QString childValue(const QTreeWidgetItem* parent, const QString& key) {
    for (int i = 0; parent && i < parent->childCount(); ++i)
        if (parent->child(i)->text(0) == key) return parent->child(i)->text(1);
    return "<none>";
}

const QTreeWidgetItem* childNamed(const QTreeWidgetItem* parent, const QString& key) {
    for (int i = 0; parent && i < parent->childCount(); ++i)
        if (parent->child(i)->text(0) == key) return parent->child(i);
    return nullptr;
}

QDockWidget* dock(const MainWindow& w, const char* name) { return w.findChild<QDockWidget*>(name); }

QAction* action(const MainWindow& w, const char* name) { return w.findChild<QAction*>(name); }

/// The actions that need a model.
constexpr const char* kModelActions[] = {"applyNextAction", "applyAllAction", "stepBackAction", "stepForwardAction",
                                         "resetPassesAction", "saveAction", "savePortableAction", "exportViewAction",
                                         "exportGraphAction", "findAction"};

/// The docks are where the default layout puts them: Passes, Search, Outline left (tabbed), Inspector
/// and Model right (tabbed), Rewrite log and Profile below the panes (tabbed); all docked.
void verifyDefaultDockAreas(MainWindow& w) {
    const std::pair<const char*, Qt::DockWidgetArea> places[] = {
        {kPassesDock, Qt::LeftDockWidgetArea},      {kSearchDock, Qt::LeftDockWidgetArea},
        {kOutlineDock, Qt::LeftDockWidgetArea},
        {kInspectorDock, Qt::RightDockWidgetArea},  {kModelDock, Qt::RightDockWidgetArea},
        {kRewriteLogDock, Qt::BottomDockWidgetArea}, {kProfileDock, Qt::BottomDockWidgetArea},
        {kComparisonDock, Qt::BottomDockWidgetArea}};
    for (const auto& [name, area] : places) {
        QVERIFY2(dock(w, name), name);
        QVERIFY2(w.dockWidgetArea(dock(w, name)) == area, name);
        QVERIFY2(!dock(w, name)->isFloating(), name);
        QVERIFY2(dock(w, name)->toggleViewAction()->isChecked(), name);  // not closed
    }
    QList<QDockWidget*> besidePasses = w.tabifiedDockWidgets(dock(w, kPassesDock));
    std::sort(besidePasses.begin(), besidePasses.end());
    QList<QDockWidget*> searchAndOutline{dock(w, kSearchDock), dock(w, kOutlineDock)};
    std::sort(searchAndOutline.begin(), searchAndOutline.end());
    QCOMPARE(besidePasses, searchAndOutline);
    QCOMPARE(w.tabifiedDockWidgets(dock(w, kInspectorDock)), QList<QDockWidget*>({dock(w, kModelDock)}));
    QCOMPARE(w.tabifiedDockWidgets(dock(w, kRewriteLogDock)), QList<QDockWidget*>({dock(w, kProfileDock), dock(w, kComparisonDock)}));
}

bool showsWhole(const GraphView* view, const NodeItem* item) {
    return item && view->visibleSceneRect().contains(item->sceneBoundingRect().center());
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_main_window");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }

    void init() { QSettings().clear(); }

    void stepsThroughPassesWithDiffMarks() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        QCOMPARE(w.afterScene()->nodeItems().size(), size_t(22));  // 20 nodes + input + output
        QVERIFY(applyNext(w));  // eliminate-noops: Mul by 1, Dropout, Identity, Reshape
        QCOMPARE(w.stepper().step(), size_t(1));
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(19));
        const Graph& before = w.stepper().previous().graph;
        const NodeId dropout = nodeNamed(before, "/head/dropout/Dropout");
        QCOMPARE(w.beforeScene()->nodeMark(dropout), NodeMark::Removed);
        QVERIFY(w.rewriteLog()->entryCount(RewriteLogPanel::Entry::Rewrite) >= 4);
        QVERIFY(w.rewriteLog()->stepRow(1)->text(0).startsWith("1. eliminate-noops · "));
        QVERIFY(w.rewriteLog()->stepRow(1)->child(0)->text(0).startsWith("removed"));
        QVERIFY(applyAll(w));
        const size_t optimized = w.stepper().current().graph.nodeCount();
        QCOMPARE(optimized, size_t(7));
        QCOMPARE(int(w.afterScene()->nodeItems().size()), int(optimized) + 2);
        w.stepBack();
        QCOMPARE(w.stepper().step(), w.stepper().stepCount() - 1);
        w.stepForward();
        QCOMPARE(w.stepper().current().graph.nodeCount(), optimized);
        w.resetPasses();
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(23));
        QVERIFY(waitForLayout(w));
    }

    void opensTheSampleModel() {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
        QVERIFY(w.windowTitle().startsWith("sample_cnn.onnx"));
    }

    void selectingAFoldedNodeHighlightsItsSourcesAndBack() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        const Graph& before = *w.beforePane()->graph();
        const Graph& after = *w.afterPane()->graph();
        w.afterScene()->selectNode(nodeNamed(after, "/stem/conv/Conv"));
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted),
                 QStringList({"/stem/conv/Conv:Conv", "/stem/bn/BatchNormalization:BatchNormalization"}));
        QVERIFY(boxesMarked(w.afterScene(), NodeMark::Highlighted).isEmpty());
        // The other side's selection: the BatchNorm before highlights the folded Conv after, and
        // the Conv before gets its diff mark back.
        const NodeId conv = nodeNamed(before, "/stem/conv/Conv");
        w.beforeScene()->selectNode(nodeNamed(before, "/stem/bn/BatchNormalization"));
        QCOMPARE(boxesMarked(w.afterScene(), NodeMark::Highlighted), QStringList({"/stem/conv/Conv:Conv"}));
        QVERIFY(boxesMarked(w.beforeScene(), NodeMark::Highlighted).isEmpty());
        QCOMPARE(w.beforeScene()->itemForNode(conv)->mark(), NodeMark::Removed);
        w.beforeScene()->selectNode(kNoId);
        QVERIFY(boxesMarked(w.afterScene(), NodeMark::Highlighted).isEmpty());
        QCOMPARE(boxesMarked(w.afterScene(), NodeMark::Added).size(), 4);  // the diff marks stay
    }

    void selectingAFusedNodeAfterAllPassesHighlightsTheOriginalNodes() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        QVERIFY(applyAll(w));
        QCOMPARE(w.stepper().currentResult()->passId, std::string("fuse-conv-activation"));
        w.afterScene()->selectNode(nodeNamed(*w.afterPane()->graph(), "/stem/conv/Conv"));
        // The left side shows the model as loaded: every node the FusedConv came from.
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted),
                 QStringList({"/stem/conv/Conv:Conv", "/stem/bn/BatchNormalization:BatchNormalization", "/stem/relu/Relu:Relu"}));
        const QTreeWidgetItem* fused = w.inspector()->section("Fused from");
        QVERIFY(fused);
        QStringList sources;
        for (int i = 0; i < fused->childCount(); ++i)
            if (fused->child(i)->text(0) == "source") sources << fused->child(i)->text(1);
        QCOMPARE(sources, QStringList({"/stem/conv/Conv (Conv)", "/stem/bn/BatchNormalization (BatchNormalization)",
                                       "/stem/relu/Relu (Relu)"}));
    }

    void inspectorShowsOpAttributesAndWeightStatistics() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        w.afterScene()->selectNode(nodeNamed(*w.afterPane()->graph(), "/stem/conv/Conv"));
        const NodeInspector* inspector = w.inspector();
        QCOMPARE(childValue(inspector->section("Node"), "op"), QString("Conv"));
        QCOMPARE(childValue(inspector->section("Node"), "domain"), QString("ai.onnx"));
        QCOMPARE(childValue(inspector->section("Attributes"), "kernel_shape"), QString("[3, 3]"));
        QCOMPARE(childValue(inspector->section("Attributes"), "pads"), QString("[1, 1, 1, 1]"));
        QCOMPARE(childValue(inspector->section("Attributes"), "strides"), QString("[1, 1]"));
        QCOMPARE(childValue(inspector->section("Attributes"), "group"), QString("1"));
        QCOMPARE(childValue(inspector->section("Inputs"), "X"), QString("input: float 1×3×32×32"));
        QCOMPARE(childValue(inspector->section("Outputs"), "0"), QString("/stem/conv/Conv_output_0: float 1×16×32×32"));
        const QTreeWidgetItem* weight = childNamed(inspector->section("Inputs"), "W");
        QVERIFY(weight);
        QCOMPARE(weight->text(1), QString("stem.conv.weight: float 16×3×3×3"));
        // Reference figures computed from the file's raw float32 data (population std).
        QCOMPARE(childValue(weight, "elements"), QString("432"));
        QCOMPARE(childValue(weight, "min"), QString("-1.01992"));
        QCOMPARE(childValue(weight, "max"), QString("0.857569"));
        QCOMPARE(childValue(weight, "mean"), QString("0.0179142"));
        QCOMPARE(childValue(weight, "std"), QString("0.284299"));
        QCOMPARE(childValue(weight, "sparsity"), QString("0 % (0 zeros)"));
        auto* histogram = qobject_cast<HistogramWidget*>(inspector->itemWidget(const_cast<QTreeWidgetItem*>(childNamed(weight, "histogram")), 1));
        QVERIFY(histogram);
        QCOMPARE(histogram->bins().size(), size_t(32));
        QCOMPARE(std::accumulate(histogram->bins().begin(), histogram->bins().end(), int64_t(0)), int64_t(432));
        QVERIFY(inspector->section("Fused from") == nullptr);  // a loaded node
    }

    void inspectorShowsTheBatchNormFoldMath() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        w.afterScene()->selectNode(nodeNamed(*w.afterPane()->graph(), "/stem/conv/Conv"));
        const QTreeWidgetItem* fused = w.inspector()->section("Fused from");
        QVERIFY(fused);
        const QString sentence = childValue(fused, "rewrite");
        QVERIFY(sentence.startsWith("folded BatchNormalization '/stem/bn/BatchNormalization'"));
        const QTreeWidgetItem* fold = childNamed(fused, "BatchNorm fold");
        QVERIFY(fold);
        QCOMPARE(fold->childCount(), 4);
        // stem.bn channel 0 in the file: gamma 0.70752, var 1.3712, beta 0.0055411, mean -0.017215.
        const QString channel0 = childValue(fold, "channel 0");
        QCOMPARE(channel0, QString("k = 0.70752 / sqrt(1.3712 + 1e-05) = 0.60421, b = 0.0055411 - -0.017215 * 0.60421 = 0.015943"));
        QVERIFY(sentence.contains("channel 0: " + channel0));  // the pass's own numbers agree
        QCOMPARE(childValue(fold, "channel 1"), QString("k = 1.1616 / sqrt(0.7665 + 1e-05) = 1.3267, b = 0.010982 - 0.14795 * 1.3267 = -0.1853"));
    }

    void foldMathWrapsInTheInspector() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        w.afterScene()->selectNode(nodeNamed(*w.afterPane()->graph(), "/stem/conv/Conv"));
        NodeInspector* inspector = w.inspector();
        const QTreeWidgetItem* channel0 = childNamed(childNamed(inspector->section("Fused from"), "BatchNorm fold"), "channel 0");
        QVERIFY(channel0);
        // The whole math is on screen: wider than the value column, so it takes several lines.
        const QFontMetrics metrics(inspector->font());
        const int column = inspector->columnWidth(1);
        QVERIFY(metrics.horizontalAdvance(channel0->text(1)) > column);
        inspector->scrollToItem(channel0);
        QTRY_VERIFY(inspector->visualItemRect(channel0).height() >= 2 * metrics.lineSpacing());
        QVERIFY(inspector->visualItemRect(channel0).height() * column >= metrics.horizontalAdvance(channel0->text(1)) * metrics.lineSpacing() * 9 / 10);
        // The dock runs the window's full height beside the panes.
        QVERIFY(dock(w, kInspectorDock)->height() >= w.height() * 3 / 4);
    }

    void searchFindsNodesByOpTypeAndRegex() {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w));
        SearchPanel* search = w.searchPanel();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QVERIFY(search->query()->hasFocus());
        QTest::keyClicks(search->query(), "relu");
        // Before any pass both sides show the original: each match is listed once.
        QCOMPARE(search->results()->count(), 4);
        QCOMPARE(search->message()->text(), QString("4 nodes"));
        QCOMPARE(search->results()->item(0)->text(), QString("[both] /stem/relu/Relu  ·  Relu"));
        search->regex()->setChecked(true);
        search->query()->setText("^/block1/(conv|bn)");
        QCOMPARE(search->results()->count(), 4);
        search->query()->setText("^(Add|Gemm)$");
        QCOMPARE(search->results()->count(), 2);
        search->query()->setText("conv(");
        QCOMPARE(search->results()->count(), 0);
        QVERIFY(search->message()->text().startsWith("Invalid regular expression at position 5"));
        // After all passes the optimized graph is the after side, the original the before side:
        // fuse-conv-add made one FusedConv, fuse-conv-activation three more, none before.
        QVERIFY(applyAll(w));
        search->query()->setText("^FusedConv$");
        QCOMPARE(search->results()->count(), 4);
        QCOMPARE(search->message()->text(), QString("0 nodes before · 4 nodes after"));
        QVERIFY(search->results()->item(0)->text().startsWith("[after] "));
        // Activating a result selects and centers its node.
        QListWidgetItem* last = search->results()->item(3);
        const NodeId id = last->data(Qt::UserRole).value<NodeId>();
        QCOMPARE(last->text(), QString("[after] /down/conv/Conv  ·  FusedConv"));
        QTest::mouseClick(search->results()->viewport(), Qt::LeftButton, {}, search->results()->visualItemRect(last).center());
        QCOMPARE(w.afterScene()->selectedNode(), id);
        QVERIFY(showsWhole(w.afterPane()->view(), w.afterScene()->itemForNode(id)));
    }

    void eachSideHasAMinimapBesideTheGraph() {
        MainWindow w;
        w.resize(1800, 1100);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        auto* toggle = w.findChild<QAction*>("minimapAction");
        QVERIFY(toggle && toggle->isCheckable() && toggle->isChecked());
        for (GraphPane* pane : {w.beforePane(), w.afterPane()}) {
            QCOMPARE(pane->minimap()->scene(), static_cast<QGraphicsScene*>(pane->scene()));
            QVERIFY(pane->minimap()->isVisible());
            // Its own column: nothing of it over the graph's viewport.
            const QRect viewport(pane->view()->viewport()->mapTo(&w, QPoint(0, 0)), pane->view()->viewport()->size());
            const QRect map(pane->minimapFrame()->mapTo(&w, QPoint(0, 0)), pane->minimapFrame()->size());
            QVERIFY(!viewport.intersects(map));
        }
        toggle->trigger();
        for (GraphPane* pane : {w.beforePane(), w.afterPane()}) QVERIFY(!pane->minimap()->isVisible());
    }

    void bothSidesOpenAtTheInputWithLegibleOpTypes() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        for (GraphPane* pane : {w.beforePane(), w.afterPane()}) {
            const qreal titlePixels = QFontMetricsF(pane->scene()->style().titleFont).height() * pane->view()->zoom();
            QVERIFY2(titlePixels >= 9, qPrintable(QString::number(titlePixels)));
            const NodeItem* input = pane->scene()->itemForKey(VisualKey::input(pane->graph()->inputs().front()));
            QVERIFY(input);
            QVERIFY(pane->view()->visibleSceneRect().contains(input->sceneBoundingRect().center()));
        }
    }

    void applyAllKeepsTheViewAndTheExpandedGroups() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        GraphPane* pane = w.afterPane();
        pane->toggleGroup(pane->scopes()->findGroup("/head"));
        QVERIFY(waitForLayout(w));
        // The down-sampling Conv in the middle of the view; after all passes it is a FusedConv
        // of the same name, and stays where it was on screen (the boxes around it moved).
        const auto downConv = [pane] { return pane->scene()->itemForNode(nodeNamed(*pane->graph(), "/down/conv/Conv")); };
        pane->view()->setViewState({1.5, downConv()->sceneBoundingRect().center() + QPointF(10, 20)});
        const QPoint onScreen = pane->view()->mapFromScene(downConv()->sceneBoundingRect().center());
        QVERIFY(QRect(pane->view()->viewport()->rect()).contains(onScreen));
        QVERIFY(applyAll(w));
        QVERIFY(w.stepper().step() > 1);
        QCOMPARE(downConv()->visualNode().title, QString("FusedConv"));
        QCOMPARE(pane->view()->zoom(), 1.5);
        const QPoint now = pane->view()->mapFromScene(downConv()->sceneBoundingRect().center());
        // Within a few pixels: the view centers on whole device pixels at zoom 1.5 (measured
        // 2,2 in the merged window, where the left side shows the original).
        QVERIFY2((now - onScreen).manhattanLength() <= 6, qPrintable(QString("%1,%2 -> %3,%4").arg(onScreen.x()).arg(onScreen.y()).arg(now.x()).arg(now.y())));
        QCOMPARE(pane->collapsedGroups(), CollapsedGroups({pane->scopes()->findGroup("/head")}));
        // Opening a model again starts over: the start view, nothing collapsed (20 boxes).
        QVERIFY(openAndWait(w));
        QVERIFY(pane->collapsedGroups().empty());
        QCOMPARE(pane->view()->zoom(), GraphView::readableZoom(pane->scene()));
    }

    void outlineDockOpensTheClickedGroupOnBothSides() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        auto* dock = w.findChild<QDockWidget*>("outlineDock");
        QVERIFY(dock);
        QCOMPARE(w.dockWidgetArea(dock), Qt::LeftDockWidgetArea);
        auto* outline = dock->findChild<ScopeOutline*>();
        QVERIFY(outline);
        QCOMPARE(outline->topLevelItemCount(), 4);  // stem, block1, down, head
        for (GraphPane* pane : {w.beforePane(), w.afterPane()}) pane->toggleGroup(pane->scopes()->findGroup("/block1"));
        QVERIFY(waitForLayout(w));
        QTreeWidgetItem* block1 = outline->itemForPath("/block1");
        QVERIFY(block1);
        outline->scrollToItem(block1);
        QTest::mouseClick(outline->viewport(), Qt::LeftButton, {}, outline->visualItemRect(block1).center());
        QVERIFY(waitForLayout(w));
        for (GraphPane* pane : {w.beforePane(), w.afterPane()}) {
            const GroupId group = pane->scopes()->findGroup("/block1");
            QVERIFY(pane->collapsedGroups().empty());
            QVERIFY(pane->scene()->frameForGroup(group));
        }
        const QRectF frame = w.afterScene()->frameForGroup(w.afterPane()->scopes()->findGroup("/block1"))->boundingRect();
        QVERIFY(w.afterPane()->view()->visibleSceneRect().contains(QPointF(frame.center().x(), frame.top() + 20)));
    }

    void rewriteLogClickSelectsAndCentersBothSides() {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        QTreeWidget* log = w.rewriteLog()->tree();
        QTreeWidgetItem* group = w.rewriteLog()->stepRow(w.stepper().step());
        QVERIFY(group && group->isExpanded());  // the current step's group
        QTreeWidgetItem* entry = nullptr;
        for (int i = 0; i < group->childCount(); ++i)
            if (group->child(i)->text(0).contains("'/down/bn/BatchNormalization'")) entry = group->child(i);
        QVERIFY(entry);
        log->scrollToItem(entry);
        QTest::mouseClick(log->viewport(), Qt::LeftButton, {}, log->visualItemRect(entry).center());
        // The folded Conv is selected on the right; the left centers on the Conv it replaced and
        // highlights both nodes it came from.
        const NodeId beforeConv = nodeNamed(*w.beforePane()->graph(), "/down/conv/Conv");
        const NodeId afterConv = nodeNamed(*w.afterPane()->graph(), "/down/conv/Conv");
        QCOMPARE(w.beforeScene()->selectedNode(), kNoId);
        QCOMPARE(w.afterScene()->selectedNode(), afterConv);
        QVERIFY(showsWhole(w.beforePane()->view(), w.beforeScene()->itemForNode(beforeConv)));
        QVERIFY(showsWhole(w.afterPane()->view(), w.afterScene()->itemForNode(afterConv)));
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted),
                 QStringList({"/down/conv/Conv:Conv", "/down/bn/BatchNormalization:BatchNormalization"}));
        QCOMPARE(childValue(w.inspector()->section("Node"), "op"), QString("Conv"));
    }

    void groupsToggleWithCachedLayouts() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        GraphPane* pane = w.afterPane();
        const ScopeTree scopes(*pane->graph());
        const GroupId block = scopes.findGroup("/block1");
        QVERIFY(block != kNoId);
        const NodeId conv1 = nodeNamed(*pane->graph(), "/block1/conv1/Conv");
        QVERIFY(pane->collapsedGroups().empty());  // 20 boxes: nothing collapsed
        emit w.afterScene()->groupActivated(block);  // a double-click on its frame
        QVERIFY(pane->layoutPending());
        QVERIFY(waitForLayout(w));
        QCOMPARE(pane->collapsedGroups(), CollapsedGroups({block}));
        QCOMPARE(w.afterScene()->itemForNode(conv1)->key(), VisualKey::group(block));
        QCOMPARE(w.afterScene()->nodeItems().size(), size_t(22 - 7 + 1));
        QCOMPARE(pane->cachedLayouts(), size_t(2));
        pane->toggleGroup(block);  // back to the cached expanded layout: no wait
        QVERIFY(!pane->layoutPending());
        QCOMPARE(w.afterScene()->itemForNode(conv1)->key(), VisualKey::node(conv1));
        pane->toggleGroup(block);
        QVERIFY(!pane->layoutPending());
        // Focusing a hidden node expands its group (cached) and selects it.
        pane->focusNode(conv1);
        QVERIFY(!pane->layoutPending());
        QVERIFY(pane->collapsedGroups().empty());
        QCOMPARE(w.afterScene()->selectedNode(), conv1);
    }

    void recentFilesListTheOpenedModels() {
        QTemporaryDir dir;
        QStringList copies;
        for (int i = 0; i < 11; ++i) {
            copies << dir.filePath(QStringLiteral("model%1.onnx").arg(i));
            QVERIFY(QFile::copy(kSample, copies.back()));
        }
        MainWindow w;
        QVERIFY(openAndWait(w));
        QCOMPARE(w.recentFiles().paths(), QStringList({QFileInfo(kSample).absoluteFilePath()}));
        for (const QString& copy : copies) QVERIFY(openAndWait(w, copy));
        QVERIFY(openAndWait(w, copies[5]));  // opened again: moves to the front
        QStringList expected{copies[5], copies[10], copies[9], copies[8], copies[7], copies[6], copies[4], copies[3], copies[2], copies[1]};
        QCOMPARE(w.recentFiles().paths(), expected);
        auto* menu = w.findChild<QMenu*>("recentMenu");
        QVERIFY(menu);
        emit menu->aboutToShow();
        QCOMPARE(menu->actions().size(), 10);
        QCOMPARE(menu->actions().first()->text(), QString("model5.onnx"));
        // A file that went away leaves the list with a message.
        QVERIFY(QFile::remove(copies[9]));
        QVERIFY(!w.openRecent(copies[9]));
        expected.removeAll(copies[9]);
        QCOMPARE(w.recentFiles().paths(), expected);
        QVERIFY(w.statusBar()->currentMessage().contains("no longer exists"));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
    }

    void droppingAModelOpensIt() {
        MainWindow w;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kSample)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QVERIFY(w.busy());  // loading in the background
        QVERIFY(waitForLayout(w));
        QVERIFY(w.model());
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QMimeData text;
        text.setUrls({QUrl::fromLocalFile("/tmp/notes.txt")});
        QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        refused.setAccepted(false);
        QCoreApplication::sendEvent(&w, &refused);
        QVERIFY(!refused.isAccepted());
    }

    void droppingATfjsModelOpensIt() {
        // A TF.js GraphModel (model.json + shards) opens like an ONNX file: imported as ONNX ops.
        MainWindow w;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(GRAPHLENS_SOURCE_DIR "/tests/fixtures/tf/cases/tfjs_conv_chain/model.json")});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QVERIFY(waitForLayout(w));
        QVERIFY(w.model());
        QCOMPARE(w.model()->graph.nodeCount(), size_t(8));  // Conv x2, Add x2, Clip, MaxPool, ReduceMean, Transpose
    }

    void badFileKeepsTheCurrentModel() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.onnx");
        std::ofstream(bad.toStdString()) << "not a model";
        MainWindow w;
        QVERIFY(openAndWait(w));
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        QVERIFY(w.openModel(bad, /*quiet=*/true));  // the load starts; it fails in the background
        QVERIFY(failed.wait(20000));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.first().first().toString(), w.lastError());
        QVERIFY(w.lastError().contains("bad.onnx"));
        QVERIFY(w.lastError().contains("malformed"));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
        QCOMPARE(w.recentFiles().paths(), QStringList({QFileInfo(kSample).absoluteFilePath()}));
        // Still shown: the panes (not the start page) with the sample's 22 boxes, actions enabled.
        QVERIFY(!w.startPageShown());
        QCOMPARE(w.afterScene()->nodeItems().size(), size_t(22));
        QCOMPARE(w.beforeScene()->nodeItems().size(), size_t(22));
        QCOMPARE(w.windowTitle(), QString("sample_cnn.onnx — GraphLens"));
        for (const char* name : kModelActions) QVERIFY2(action(w, name)->isEnabled(), name);
        // Still usable: a pass applies and the search answers (4 Convs on each side).
        QVERIFY(!w.busy());
        QVERIFY(applyNext(w));
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(19));
        w.searchPanel()->query()->setText("Conv");
        QCOMPARE(w.searchPanel()->results()->count(), 8);
        // A file that does not exist fails at once.
        QVERIFY(!w.openModel(dir.filePath("absent.onnx"), /*quiet=*/true));
        QCOMPARE(failed.count(), 2);
        QVERIFY(w.lastError().contains("does not exist"));
    }

    void failedFirstOpenKeepsTheStartPage() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.onnx");
        std::ofstream(bad.toStdString()) << "not a model";
        MainWindow w;
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        QVERIFY(w.openModel(bad, /*quiet=*/true));
        QVERIFY(failed.wait(20000));
        QVERIFY(!w.model());
        QVERIFY(w.startPageShown());
        for (const char* name : kModelActions) QVERIFY2(!action(w, name)->isEnabled(), name);
        QVERIFY(action(w, "openAction")->isEnabled());
    }

    void startPageWithoutAModelAndActionsNeedingOne() {
        RecentFiles().add(kSample);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.startPageShown());
        QVERIFY(w.startPage()->isVisible());
        QVERIFY(!w.beforePane()->isVisible());
        for (const char* name : kModelActions) QVERIFY2(!action(w, name)->isEnabled(), name);
        QVERIFY(action(w, "openAction")->isEnabled());
        QVERIFY(!w.passPanel()->isEnabled());
        QVERIFY(!w.profilePanel()->isEnabled());
        QVERIFY(w.startPage()->openButton()->isVisible());
        QCOMPARE(w.exportImage(QDir::temp().filePath("none.svg"), true), QString("No model is open."));
        QVERIFY(!w.saveOptimizedModel(QDir::temp().filePath("none.onnx"), false, true));
        // The recent file is listed; a click opens it.
        QListWidget* recent = w.startPage()->recentList();
        QCOMPARE(recent->count(), 1);
        QCOMPARE(recent->item(0)->text().section('\n', 0, 0), QString("sample_cnn.onnx"));
        QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, recent->visualItemRect(recent->item(0)).center());
        QVERIFY(w.busy());
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QVERIFY(!w.startPageShown());
        QVERIFY(w.beforePane()->isVisible() && w.afterPane()->isVisible());
        for (const char* name : kModelActions) QVERIFY2(action(w, name)->isEnabled(), name);
        QVERIFY(w.passPanel()->isEnabled());
        QVERIFY(w.profilePanel()->isEnabled());
    }

    void graphPanesOwnMostOfTheWidthAt1600x1000() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        QCOMPARE(w.size(), QSize(1600, 1000));
        const int panes = w.beforePane()->width() + w.afterPane()->width();
        QVERIFY2(panes >= 960, qPrintable(QString("panes %1 px of 1600").arg(panes)));
        QVERIFY(qAbs(w.beforePane()->width() - w.afterPane()->width()) <= 2);  // equal halves
        verifyDefaultDockAreas(w);
        // The bottom tabs sit under the panes, between the side columns.
        const QRect log = dock(w, kRewriteLogDock)->geometry();
        QVERIFY(log.left() >= dock(w, kPassesDock)->geometry().right());
        QVERIFY(log.right() <= dock(w, kInspectorDock)->geometry().left());
        QVERIFY(log.top() >= w.paneSplitter()->geometry().bottom());
        QVERIFY(w.paneSplitter()->height() >= 550);
        // A long caption neither widens its pane nor moves the splitter; it is elided.
        const QList<int> sizes = w.paneSplitter()->sizes();
        w.afterPane()->setCaption(QString("After a very long caption ").repeated(20));
        QCoreApplication::processEvents();
        QCOMPARE(w.paneSplitter()->sizes(), sizes);
        QVERIFY(w.afterPane()->findChild<ElidedLabel*>());
    }

    void resetLayoutRestoresTheDefaultDockAreas() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        verifyDefaultDockAreas(w);
        w.addDockWidget(Qt::LeftDockWidgetArea, dock(w, kInspectorDock));
        dock(w, kProfileDock)->setFloating(true);
        dock(w, kSearchDock)->close();
        QCOMPARE(w.dockWidgetArea(dock(w, kInspectorDock)), Qt::LeftDockWidgetArea);
        action(w, "resetLayoutAction")->trigger();
        verifyDefaultDockAreas(w);
        QCoreApplication::processEvents();
        QVERIFY(w.centralWidget()->width() >= 960);  // the panes' room, the start page now
    }

    void layoutIsSavedAndRestored() {
        QList<int> split;
        {
            MainWindow w;
            w.resize(1500, 950);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.addDockWidget(Qt::LeftDockWidgetArea, dock(w, kInspectorDock));
            QVERIFY(openAndWait(w));
            w.paneSplitter()->setSizes({300, 600});
            split = w.paneSplitter()->sizes();
            QVERIFY(split[1] > 3 * split[0] / 2);  // no longer equal halves
            w.close();  // saves the layout
        }
        MainWindow w;
        QVERIFY(w.restoreLayout());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.dockWidgetArea(dock(w, kInspectorDock)), Qt::LeftDockWidgetArea);
        QCOMPARE(w.size(), QSize(1500, 950));
        QVERIFY(openAndWait(w));
        QCOMPARE(w.paneSplitter()->sizes(), split);
        QSettings().clear();
        MainWindow fresh;
        QVERIFY(!fresh.restoreLayout());  // nothing saved: the default layout stays
        fresh.show();
        QVERIFY(QTest::qWaitForWindowExposed(&fresh));
        verifyDefaultDockAreas(fresh);
    }

    void savesTheCurrentStepAsALoadableModel() {
        QTemporaryDir dir;
        MainWindow w;
        QVERIFY(openAndWait(w));
        QVERIFY(applyAll(w));
        const Graph& current = w.stepper().current().graph;
        const auto countDomain = [](const Graph& g, const std::string& domain) {
            return std::ranges::count_if(g.nodeIds(), [&](NodeId id) { return g.node(id).domain == domain; });
        };
        QVERIFY(countDomain(current, "com.microsoft") > 0);  // FusedConv, FusedGemm
        QSignalSpy saved(&w, &MainWindow::modelSaved);
        const QString path = dir.filePath("sample-optimized.onnx");
        QVERIFY(w.saveOptimizedModel(path, /*standardOpsOnly=*/false, /*quiet=*/true));
        QVERIFY(saved.wait(20000));
        QCOMPARE(saved.first().first().toString(), path);
        const Model reloaded = loadModel(path.toStdString());
        QCOMPARE(reloaded.graph.nodeCount(), current.nodeCount());
        QCOMPARE(countDomain(reloaded.graph, "com.microsoft"), countDomain(current, "com.microsoft"));
        // Standard ops only: the fused nodes written as standard ONNX operators.
        const QString portable = dir.filePath("sample-portable.onnx");
        QVERIFY(w.saveOptimizedModel(portable, /*standardOpsOnly=*/true, /*quiet=*/true));
        QVERIFY(saved.wait(20000));
        const Model standard = loadModel(portable.toStdString());
        QCOMPARE(countDomain(standard.graph, "com.microsoft"), 0);
        QVERIFY(standard.graph.nodeCount() > current.nodeCount());
        QCOMPARE(w.stepper().current().graph.nodeCount(), current.nodeCount());  // the step itself is untouched
        // A folder that does not exist: the error, and nothing written.
        QSignalSpy failed(&w, &MainWindow::saveFailed);
        QVERIFY(w.saveOptimizedModel(dir.filePath("absent/x.onnx"), false, true));
        QVERIFY(failed.wait(20000));
        QVERIFY(failed.first().first().toString().startsWith("Cannot save x.onnx: "));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
    }

    void exportsTheViewAndTheWholeGraph() {
        QTemporaryDir dir;
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w));
        const QString svg = dir.filePath("graph.svg");
        QCOMPARE(w.exportImage(svg, /*wholeGraph=*/true), QString());
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains(">Gemm</text>"));  // the last node of the sample: the whole graph
        const QString png = dir.filePath("view.png");
        QCOMPARE(w.exportImage(png, /*wholeGraph=*/false), QString());
        const QImage view(png);
        QVERIFY(!view.isNull());
        // The view at scale 2: about twice the visible part of the after pane.
        const QRectF visible = w.afterPane()->view()->visibleSceneRect();
        QVERIFY(qAbs(view.width() - 2 * visible.width()) <= 2);
        QVERIFY(w.exportImage(dir.filePath("x.bmp"), true).contains("must end in .svg or .png"));
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
