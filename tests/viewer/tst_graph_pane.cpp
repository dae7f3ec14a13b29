// One side of the canvas as a newcomer first sees it: the start view (op types legible, the graph
// input in view) on the sample and on a ResNet-style CNN of ~170 nodes, a 15k-node transformer
// opening as readable top-level group boxes with op histograms, expanding one group (timed, for
// the record), the view and the expansion kept when the next step is shown, the overview beside
// the view (never over it), and the op type drawn down to 12 px tall boxes.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/group_frame_item.h"
#include "viewer/node_item.h"
#include "viewer/scope_outline.h"

#include "support/scene_svg.h"

#include <QtTest>

using namespace graphlens;

Q_DECLARE_METATYPE(std::shared_ptr<const graphlens::Graph>)

namespace {

using graphlens::testing::svgAtScale;

std::shared_ptr<const Graph> sampleGraph() {
    static const auto graph =
        std::make_shared<const Graph>(loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx").graph);
    return graph;
}

/// A ResNet-50-like chain: stem, 16 bottleneck blocks (conv/bn/relu ×3, a projection shortcut on
/// the first block of each stage, add, relu), pooling and a classifier: 175 nodes.
std::shared_ptr<const Graph> resnetLikeGraph() {
    GraphBuilder b;
    ValueId x = b.input("input", DType::Float, {1, 3, 224, 224});
    const auto weight = [&b](const std::string& name, int64_t k) {
        return b.initializer(name + ".weight", Tensor::allocate(DType::Float, {8, 8, k, k}));
    };
    const auto convBn = [&](ValueId in, const std::string& scope, const std::string& conv, const std::string& bn, int64_t k) {
        ValueId c = b.op("Conv", {in, weight(scope + "/" + conv, k)}, {{"kernel_shape", std::vector<int64_t>{k, k}}},
                         scope + "/" + conv + "/Conv");
        return b.op("BatchNormalization", {c, weight(scope + "/" + bn + ".s", 1), weight(scope + "/" + bn + ".b", 1),
                                           weight(scope + "/" + bn + ".m", 1), weight(scope + "/" + bn + ".v", 1)},
                    {}, scope + "/" + bn + "/BatchNormalization");
    };
    x = convBn(x, "", "conv1", "bn1", 7);
    x = b.op("Relu", {x}, {}, "/relu/Relu");
    x = b.op("MaxPool", {x}, {{"kernel_shape", std::vector<int64_t>{3, 3}}}, "/maxpool/MaxPool");
    const int blocks[] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage)
        for (int i = 0; i < blocks[stage]; ++i) {
            const std::string scope = "/layer" + std::to_string(stage + 1) + "/layer" + std::to_string(stage + 1) + "." + std::to_string(i);
            ValueId y = b.op("Relu", {convBn(x, scope, "conv1", "bn1", 1)}, {}, scope + "/relu/Relu");
            y = b.op("Relu", {convBn(y, scope, "conv2", "bn2", 3)}, {}, scope + "/relu_1/Relu");
            y = convBn(y, scope, "conv3", "bn3", 1);
            const ValueId shortcut = i == 0 ? convBn(x, scope + "/downsample", "0", "1", 1) : x;
            x = b.op("Relu", {b.op("Add", {y, shortcut}, {}, scope + "/Add")}, {}, scope + "/relu_2/Relu");
        }
    x = b.op("GlobalAveragePool", {x}, {}, "/avgpool/GlobalAveragePool");
    x = b.op("Flatten", {x}, {{"axis", int64_t(1)}}, "/Flatten");
    b.output(b.op("Gemm", {x, weight("/fc", 1)}, {{"transB", int64_t(1)}}, "/fc/Gemm"));
    return std::make_shared<const Graph>(b.graph());
}

/// A transformer-sized graph of 15,000 nodes: 50 blocks "/blocks.N", each of six 50-node parts
/// (ln1, attn, proj, ln2, mlp, out) with MatMul, Add, Softmax, Mul, ... in a chain.
std::shared_ptr<const Graph> transformer15k() {
    static const std::shared_ptr<const Graph> graph = [] {
        GraphBuilder b;
        ValueId x = b.input("tokens", DType::Float, {1, 128, 64});
        const ValueId w = b.initializer("w", Tensor::allocate(DType::Float, {64, 64}));
        const char* parts[] = {"ln1", "attn", "proj", "ln2", "mlp", "out"};
        const char* ops[] = {"MatMul", "Add", "MatMul", "Add", "Softmax", "Mul", "MatMul", "Add", "Transpose", "Reshape"};
        for (int block = 0; block < 50; ++block)
            for (const char* part : parts)
                for (int k = 0; k < 50; ++k) {
                    const std::string op = ops[k % 10];
                    const std::vector<ValueId> inputs = op == "MatMul" || op == "Add" || op == "Mul" ? std::vector{x, w} : std::vector{x};
                    x = b.op(op, inputs, {}, "/blocks." + std::to_string(block) + "/" + part + "/" + op + "_" + std::to_string(k));
                }
        b.output(x);
        return std::make_shared<const Graph>(b.graph());
    }();
    return graph;
}

bool waitForLayout(const GraphPane& pane) {
    return QTest::qWaitFor([&pane] { return pane.graph() && !pane.layoutPending(); }, 60000);
}

/// Shows `pane` at 700x900 on screen with `graph` in it, and waits for its first layout.
bool showLaidOut(GraphPane& pane, std::shared_ptr<const Graph> graph) {
    pane.resize(700, 900);
    pane.show();
    if (!QTest::qWaitForWindowExposed(&pane)) return false;
    pane.showGraph(std::move(graph), {}, NodeMark::Normal);
    return waitForLayout(pane);
}

/// The on-screen pixel height of the op-type text at the view's zoom.
qreal titlePixels(const GraphPane& pane) {
    return QFontMetricsF(pane.scene()->style().titleFont).height() * pane.view()->zoom();
}

const NodeItem* inputBox(const GraphScene& scene) {
    for (const NodeItem* item : scene.nodeItems())
        if (item->key().kind == VisualKey::Kind::Input) return item;
    return nullptr;
}

/// The scene boxes wholly in the view.
int boxesInView(const GraphPane& pane) {
    int n = 0;
    for (const NodeItem* item : pane.scene()->nodeItems())
        n += pane.view()->visibleSceneRect().contains(item->sceneBoundingRect().adjusted(8, 8, -12, -12));
    return n;
}


/// Which groups are collapsed, by path.
std::set<std::string> collapsedPaths(const GraphPane& pane) {
    std::set<std::string> paths;
    for (GroupId g : pane.collapsedGroups()) paths.insert(pane.scopes()->group(g).path);
    return paths;
}

} // namespace

class TestGraphPane : public QObject {
    Q_OBJECT
private slots:
    void startViewShowsTheInputWithLegibleOpTypes_data() {
        QTest::addColumn<std::shared_ptr<const Graph>>("graph");
        QTest::addColumn<int>("boxes");
        QTest::newRow("sample_cnn") << sampleGraph() << 22;
        QTest::newRow("resnet-like, 175 nodes") << resnetLikeGraph() << 175 + 2;
    }
    void startViewShowsTheInputWithLegibleOpTypes() {
        QFETCH(std::shared_ptr<const Graph>, graph);
        QFETCH(int, boxes);
        GraphPane pane;
        QVERIFY(showLaidOut(pane, graph));
        QCOMPARE(int(pane.scene()->nodeItems().size()), boxes);
        QVERIFY(pane.collapsedGroups().empty());
        QVERIFY2(titlePixels(pane) >= 9, qPrintable(QString::number(titlePixels(pane))));
        QCOMPARE(pane.view()->zoom(), GraphView::readableZoom(pane.scene()));  // taller than the window
        const NodeItem* input = inputBox(*pane.scene());
        QVERIFY(input);
        QVERIFY(pane.view()->visibleSceneRect().contains(input->sceneBoundingRect()));
        // The top of the graph is at the top of the window, and some boxes below the input too.
        QVERIFY(pane.view()->visibleSceneRect().top() <= pane.scene()->visualGraph().bounds.top() + 1);
        QVERIFY(boxesInView(pane) >= 4);
        // F still fits the whole graph: smaller than the start view.
        QTest::keyClick(pane.view(), Qt::Key_F);
        QVERIFY(pane.view()->zoom() < GraphView::readableZoom(pane.scene()));
        QVERIFY(pane.view()->visibleSceneRect().adjusted(-2, -2, 2, 2).contains(pane.scene()->visualGraph().bounds));
    }

    void startViewMadeHiddenIsMadeAgainWhenShown() {
        GraphPane pane;
        pane.showGraph(resnetLikeGraph(), {}, NodeMark::Normal);
        QVERIFY(waitForLayout(pane));
        pane.resize(600, 800);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QVERIFY(QTest::qWaitFor([&pane] {
            return pane.view()->visibleSceneRect().contains(inputBox(*pane.scene())->sceneBoundingRect());
        }));
        QVERIFY(titlePixels(pane) >= 9);
    }

    void aSmallGraphThatFitsIsShownWhole() {
        GraphBuilder b;
        b.output(b.op("Relu", {b.op("Conv", {b.input("x", DType::Float, {1, 3, 8, 8})}, {}, "conv")}, {}, "relu"));
        GraphPane pane;
        QVERIFY(showLaidOut(pane, std::make_shared<const Graph>(b.graph())));
        QCOMPARE(pane.view()->zoom(), 1.0);  // never magnified beyond 100%
        QVERIFY(pane.view()->visibleSceneRect().contains(pane.scene()->visualGraph().bounds));
    }

    void bigGraphOpensAsReadableTopLevelGroups() {
        const auto graph = transformer15k();
        QCOMPARE(graph->nodeCount(), size_t(15000));
        GraphPane pane;
        QVERIFY(showLaidOut(pane, graph));
        qInfo("15k nodes, first layout (scopes, 50 group boxes, Graphviz): %lld ms", pane.lastLayoutMilliseconds());
        const std::vector<GroupId> top = pane.scopes()->topLevelGroups();
        QCOMPARE(top.size(), size_t(50));
        QCOMPARE(pane.collapsedGroups(), CollapsedGroups(top.begin(), top.end()));
        QCOMPARE(pane.scene()->nodeItems().size(), size_t(50 + 2));
        QVERIFY2(titlePixels(pane) >= 9, qPrintable(QString::number(titlePixels(pane))));
        // The first block's box is in view, titled with its name, its node count and its op histogram.
        const NodeItem* first = pane.scene()->itemForKey(VisualKey::group(top.front()));
        QVERIFY(first);
        QVERIFY(pane.view()->visibleSceneRect().contains(first->sceneBoundingRect()));
        QCOMPARE(first->visualNode().title, QString("blocks.0"));
        QCOMPARE(first->visualNode().details,
                 QStringList({"300 nodes", "Add 90 · MatMul 90 · Mul 30", "Reshape 30 · Softmax 30 · Transpose 30"}));
        QVERIFY(boxesInView(pane) >= 4);
    }

    void expandingAGroupOpensItsPartsCollapsedThenAPart() {
        GraphPane pane;
        QVERIFY(showLaidOut(pane, transformer15k()));
        const ScopeTree& scopes = *pane.scopes();
        const GroupId block = scopes.findGroup("/blocks.7");
        // A 300-node block opens as its six parts.
        emit pane.scene()->groupActivated(block);
        QVERIFY(waitForLayout(pane));
        qInfo("15k nodes, expanding a 300-node block (six part boxes): %lld ms", pane.lastLayoutMilliseconds());
        QCOMPARE(pane.scene()->nodeItems().size(), size_t(49 + 6 + 2));
        QVERIFY(pane.scene()->frameForGroup(block));
        // A 50-node part opens whole: 50 boxes more.
        const GroupId attn = scopes.findGroup("/blocks.7/attn");
        emit pane.scene()->groupActivated(attn);
        QVERIFY(waitForLayout(pane));
        qInfo("15k nodes, expanding a 50-node group: %lld ms", pane.lastLayoutMilliseconds());
        QCOMPARE(pane.scene()->nodeItems().size(), size_t(49 + 5 + 50 + 2));
        QVERIFY(!pane.collapsedGroups().contains(attn));
    }

    void revealGroupOpensItAndShowsItsFrame() {
        GraphPane pane;
        QVERIFY(showLaidOut(pane, transformer15k()));
        pane.revealGroup("/blocks.30/mlp");
        QVERIFY(waitForLayout(pane));
        QVERIFY(pane.layoutPending() == false);
        const GroupId mlp = pane.scopes()->findGroup("/blocks.30/mlp");
        QVERIFY(!pane.collapsedGroups().contains(mlp));
        QVERIFY(!pane.collapsedGroups().contains(pane.scopes()->findGroup("/blocks.30")));
        QVERIFY(pane.collapsedGroups().contains(pane.scopes()->findGroup("/blocks.30/attn")));
        const GroupFrameItem* frame = pane.scene()->frameForGroup(mlp);
        QVERIFY(frame);
        const QRectF visible = pane.view()->visibleSceneRect();
        QVERIFY(visible.contains(QPointF(frame->boundingRect().center().x(), frame->boundingRect().top() + 20)));
        QVERIFY(titlePixels(pane) >= 9);
    }

    void theNextGraphKeepsTheViewAndTheExpansion() {
        GraphPane pane;
        QVERIFY(showLaidOut(pane, transformer15k()));
        pane.revealGroup("/blocks.2/attn");
        QVERIFY(waitForLayout(pane));
        pane.view()->zoomBy(1.5, pane.view()->viewport()->rect().center());
        const GraphView::ViewState view = pane.view()->viewState();
        const std::set<std::string> collapsed = collapsedPaths(pane);
        QVERIFY(!collapsed.contains("/blocks.2/attn") && collapsed.contains("/blocks.2/mlp") && collapsed.contains("/blocks.3"));
        // The next step: another graph with the same scopes (a copy stands for it).
        pane.showGraph(std::make_shared<const Graph>(*transformer15k()), {}, NodeMark::Added);
        QVERIFY(waitForLayout(pane));
        QCOMPARE(collapsedPaths(pane), collapsed);
        QCOMPARE(pane.view()->zoom(), view.zoom);
        QVERIFY((pane.view()->viewState().center - view.center).manhattanLength() < 2);
        // Another model starts over: top-level groups collapsed, the start view.
        pane.startOver();
        pane.showGraph(std::make_shared<const Graph>(*transformer15k()), {}, NodeMark::Normal);
        QVERIFY(waitForLayout(pane));
        QCOMPARE(pane.collapsedGroups().size(), size_t(50));
        QCOMPARE(pane.view()->zoom(), GraphView::readableZoom(pane.scene()));
    }

    void minimapSitsBesideTheViewAndMovesIt() {
        GraphPane pane;
        QVERIFY(showLaidOut(pane, resnetLikeGraph()));
        QVERIFY(pane.minimapFrame()->isVisible());
        const QRect viewArea(pane.view()->mapTo(&pane, QPoint(0, 0)), pane.view()->size());
        const QRect mapArea(pane.minimapFrame()->mapTo(&pane, QPoint(0, 0)), pane.minimapFrame()->size());
        QVERIFY(!viewArea.intersects(mapArea));
        QVERIFY(viewArea.width() >= 700 - GraphPane::kMinimapWidth - 4);
        GraphMinimap* map = pane.minimap();
        QCOMPARE(map->scene(), static_cast<QGraphicsScene*>(pane.scene()));
        QVERIFY(QRectF(map->rect()).contains(map->pictureRect()));
        // A click near the bottom of the overview brings the bottom of the graph into the view.
        const QRectF bounds = pane.scene()->visualGraph().bounds;
        const QPointF bottom(bounds.center().x(), bounds.bottom() - 40);
        QVERIFY(!pane.view()->visibleSceneRect().contains(bottom));
        QTest::mouseClick(map, Qt::LeftButton, {}, map->mapFromScene(bottom).toPoint());
        QVERIFY(pane.view()->visibleSceneRect().adjusted(-5, -5, 5, 5).contains(bottom));
        // Switched off, the view takes the room.
        pane.setMinimapEnabled(false);
        QVERIFY(!pane.minimapFrame()->isVisible());
        QVERIFY(QTest::qWaitFor([&pane] { return pane.view()->width() >= 690; }));
    }

    void opTypeIsDrawnDownToTwelvePixelBoxes() {
        GraphScene scene;
        scene.showGraph(layoutGraph(*sampleGraph(), {.measure = scene.textMeasure()}));
        const NodeItem* conv = scene.itemForNode(*sampleGraph()->findNode("/stem/conv/Conv"));
        const qreal height = conv->visualNode().rect.height();
        QVERIFY(height > 40);  // op type, parameters: several lines
        const qreal twelvePixels = NodeItem::kTitleOnlyPixels / height;
        QVERIFY(!NodeItem::showsText(twelvePixels));
        QCOMPARE(NodeItem::textDetail(twelvePixels, height), NodeItem::TextDetail::TitleOnly);
        QCOMPARE(NodeItem::textDetail(0.5, height), NodeItem::TextDetail::Full);
        QCOMPARE(NodeItem::textDetail(8 / height, height), NodeItem::TextDetail::None);
        const QByteArray at12 = svgAtScale(scene, twelvePixels * 1.01);
        QVERIFY(at12.contains(">Conv</text>"));
        QVERIFY(!at12.contains("kernel"));  // the op type alone
        QVERIFY(!svgAtScale(scene, 0.05).contains("<text"));
    }

    void exportedBigModelsOpenCollapsed_data() {
        QTest::addColumn<QString>("path");
        QTest::newRow("transformer_15k") << QString("/work/models/transformer_15k.onnx");
        QTest::newRow("big61k") << QString("/work/models/big61k.onnx");
    }
    /// Real exported models where this machine has them (the figures are for the record).
    void exportedBigModelsOpenCollapsed() {
        QFETCH(QString, path);
        if (!QFileInfo::exists(path)) QSKIP("model not on this machine");
        const auto graph = std::make_shared<const Graph>(loadModel(path.toStdString()).graph);
        GraphPane pane;
        QVERIFY(showLaidOut(pane, graph));
        const ScopeTree& scopes = *pane.scopes();
        qInfo("%s: %zu nodes, first layout %lld ms, %zu boxes", qPrintable(path), scopes.nodeCount(),
              pane.lastLayoutMilliseconds(), pane.scene()->nodeItems().size());
        QVERIFY(!pane.collapsedGroups().empty());
        QVERIFY(titlePixels(pane) >= 9);
        // The group nearest 50 nodes, opened.
        const ScopeGroup* pick = nullptr;
        for (const ScopeGroup& g : scopes.groups())
            if (!pick || std::abs(int(g.totalNodes) - 50) < std::abs(int(pick->totalNodes) - 50)) pick = &g;
        QVERIFY(pick);
        pane.revealGroup(QString::fromStdString(pick->path));
        QVERIFY(waitForLayout(pane));
        qInfo("%s: opening %s (%zu nodes): %lld ms, %zu boxes", qPrintable(path), pick->path.c_str(), pick->totalNodes,
              pane.lastLayoutMilliseconds(), pane.scene()->nodeItems().size());
        QVERIFY(!pane.collapsedGroups().contains(pick->id));
    }

    void outlineListsTheGroupsWithTheirNodeCounts() {
        auto scopes = std::make_shared<const ScopeTree>(*transformer15k());
        ScopeOutline outline;
        outline.setScopes(scopes);
        QCOMPARE(outline.topLevelItemCount(), 50);
        QCOMPARE(outline.topLevelItem(0)->text(0), QString("blocks.0"));
        QCOMPARE(outline.topLevelItem(0)->text(1), QString("300"));
        QCOMPARE(outline.topLevelItem(0)->childCount(), 6);
        QTreeWidgetItem* mlp = outline.itemForPath("/blocks.4/mlp");
        QVERIFY(mlp);
        QCOMPARE(mlp->text(0), QString("mlp"));
        QCOMPARE(mlp->text(1), QString("50"));
        QSignalSpy activated(&outline, &ScopeOutline::groupActivated);
        emit outline.itemClicked(mlp, 0);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.at(0).at(0).toString(), QString("/blocks.4/mlp"));
        emit outline.itemClicked(outline.topLevelItem(7), 0);
        QVERIFY(outline.topLevelItem(7)->isExpanded());
        QCOMPARE(activated.at(1).at(0).toString(), QString("/blocks.7"));
    }
};

QTEST_MAIN(TestGraphPane)
#include "tst_graph_pane.moc"
