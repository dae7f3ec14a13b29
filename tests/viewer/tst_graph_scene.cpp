// The canvas: one NodeItem per laid-out box with the right ids, items found by node id, marks
// (kept across a new layout), the selection signal, level of detail, the palette-aware colors,
// the view's zoom, fit and keyboard shortcuts, and the minimap.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "profiler/heat_scale.h"
#include "viewer/edge_item.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/group_frame_item.h"
#include "viewer/node_item.h"
#include "viewer/scene_export.h"

#include "support/scene_svg.h"

#include <QSignalSpy>
#include <QtTest>

using namespace graphlens;

namespace {

using graphlens::testing::svgAtScale;

const Graph& sampleGraph() {
    static const Model model = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
    return model.graph;
}

NodeId nodeNamed(const char* name) { return *sampleGraph().findNode(name); }

void showSample(GraphScene& scene, GraphLayoutRequest request = {}) {
    request.measure = scene.textMeasure();
    scene.showGraph(layoutGraph(sampleGraph(), request));
}


QPalette darkPalette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(40, 40, 44));
    p.setColor(QPalette::Base, QColor(30, 30, 34));
    p.setColor(QPalette::Text, QColor(230, 230, 230));
    return p;
}

} // namespace

class TestGraphScene : public QObject {
    Q_OBJECT
private slots:
    void oneNodeItemPerBoxWithItsIds() {
        GraphScene scene;
        showSample(scene);
        QCOMPARE(scene.nodeItems().size(), size_t(22));
        QCOMPARE(scene.edgeItems().size(), size_t(22));
        std::set<NodeId> shown, expected;
        for (NodeItem* item : scene.nodeItems()) {
            QCOMPARE(item->type(), int(QGraphicsItem::UserType + 1));
            QCOMPARE(item->scene(), &scene);
            QCOMPARE(item->pos(), scene.visualGraph().nodes[size_t(scene.visualGraph().indexOf(item->key()))].rect.center());
            if (item->nodeId() != kNoId) shown.insert(item->nodeId());
        }
        for (NodeId id : sampleGraph().nodeIds())
            if (sampleGraph().node(id).opType != "Constant") expected.insert(id);
        QCOMPARE(shown, expected);
        int nodeItemsInScene = 0, edgeItemsInScene = 0;
        for (QGraphicsItem* item : scene.items()) {
            nodeItemsInScene += item->type() == NodeItem::Type;
            edgeItemsInScene += item->type() == EdgeItem::Type;
        }
        QCOMPARE(nodeItemsInScene, 22);
        QCOMPARE(edgeItemsInScene, 22);
    }

    void itemsAreFoundByNodeId() {
        GraphScene scene;
        showSample(scene);
        const NodeId conv = nodeNamed("/block1/conv1/Conv");
        QVERIFY(scene.itemForNode(conv));
        QCOMPARE(scene.itemForNode(conv)->nodeId(), conv);
        QCOMPARE(scene.itemForNode(conv)->visualNode().title, QString("Conv"));
        QCOMPARE(scene.itemForNode(nodeNamed("/down/Constant")), nullptr);  // a parameter, not a box
        QCOMPARE(scene.itemForNode(12345), nullptr);
        QVERIFY(scene.frameForGroup(ScopeTree(sampleGraph()).findGroup("/block1")));
        // Collapsed, the group's box stands for the node.
        showSample(scene, {.collapseDepth = 0});
        NodeItem* group = scene.itemForNode(conv);
        QVERIFY(group);
        QCOMPARE(group->nodeId(), kNoId);
        QCOMPARE(group->visualNode().title, QString("block1"));
        QCOMPARE(scene.nodeItems().size(), size_t(4 + 2));
    }

    void marksApplyAndSurviveANewLayout() {
        GraphScene scene;
        showSample(scene);
        const NodeId bn = nodeNamed("/block1/bn1/BatchNormalization");
        const NodeId relu = nodeNamed("/stem/relu/Relu");
        scene.setNodeMark(bn, NodeMark::Removed);
        scene.setNodeMarks({relu}, NodeMark::Highlighted);
        QCOMPARE(scene.itemForNode(bn)->mark(), NodeMark::Removed);
        QCOMPARE(scene.itemForNode(relu)->mark(), NodeMark::Highlighted);
        QCOMPARE(scene.itemForNode(nodeNamed("/block1/conv1/Conv"))->mark(), NodeMark::Normal);
        showSample(scene, {.collapseDepth = 0});  // bn now hides in block1's box
        QCOMPARE(scene.itemForNode(bn)->mark(), NodeMark::Removed);
        showSample(scene);
        QCOMPARE(scene.itemForNode(relu)->mark(), NodeMark::Highlighted);
        scene.clearMarks();
        QCOMPARE(scene.nodeMark(relu), NodeMark::Normal);
        for (NodeItem* item : scene.nodeItems()) QCOMPARE(item->mark(), NodeMark::Normal);
    }

    void selectingANodeIsSignalled() {
        GraphScene scene;
        showSample(scene);
        QSignalSpy spy(&scene, &GraphScene::selectedNodeChanged);
        const NodeId gemm = nodeNamed("/head/fc/Gemm");
        scene.selectNode(gemm);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<NodeId>(), gemm);
        QVERIFY(scene.itemForNode(gemm)->isSelected());
        QCOMPARE(scene.selectedNode(), gemm);
        scene.selectNode(gemm);  // already selected: no second signal
        QCOMPARE(spy.count(), 1);
        scene.itemForNode(nodeNamed("/head/Flatten"))->setSelected(true);  // as a click would
        QCOMPARE(spy.count(), 2);
        scene.selectNode(kNoId);
        QCOMPARE(spy.count(), 3);
        QCOMPARE(spy.at(2).at(0).value<NodeId>(), kNoId);
        QCOMPARE(scene.selectedItems().size(), 0);
    }

    void textIsHiddenWhenTiny() {
        GraphScene scene;
        showSample(scene);
        const QByteArray full = svgAtScale(scene, 1.0);
        QVERIFY(full.contains(">BatchNormalization</text>"));
        QVERIFY(full.contains(">1×16×32×32</text>") || full.contains(">1&#215;16&#215;32&#215;32</text>")
                || full.contains("1×16×32×32"));
        const QByteArray half = svgAtScale(scene, 0.5);
        QVERIFY(half.contains(">BatchNormalization</text>"));  // node text still readable
        QVERIFY(!half.contains("16×32×32"));                   // edge labels gone
        // Zoomed out, boxes still 12 px tall on screen show their op type alone; smaller ones nothing.
        const QByteArray small = svgAtScale(scene, 0.2);
        QVERIFY(small.contains(">Conv</text>"));
        QVERIFY(!small.contains("kernel") && !small.contains("16×3×3×3"));
        const QByteArray tiny = svgAtScale(scene, 0.05);
        QVERIFY(!tiny.contains("BatchNormalization"));
        QVERIFY(!tiny.contains("<text"));
        QVERIFY(NodeItem::showsText(1.0) && !NodeItem::showsText(0.2));
    }

    void colorsFollowThePaletteAndTheOpFamily() {
        GraphScene scene;
        showSample(scene);
        QVERIFY(!scene.style().dark);
        const QColor conv = scene.style().fillFor(scene.itemForNode(nodeNamed("/stem/conv/Conv"))->visualNode());
        const QColor relu = scene.style().fillFor(scene.itemForNode(nodeNamed("/stem/relu/Relu"))->visualNode());
        const QColor bn = scene.style().fillFor(scene.itemForNode(nodeNamed("/stem/bn/BatchNormalization"))->visualNode());
        QVERIFY(conv != relu && relu != bn && conv != bn);
        QVERIFY(conv.lightnessF() > 0.6);
        std::set<QRgb> fills;
        for (const QColor& c : scene.style().familyFill) fills.insert(c.rgb());
        QCOMPARE(fills.size(), size_t(kOpFamilyCount));
        QCOMPARE(opFamily("FusedConv", "com.microsoft"), OpFamily::Fused);
        scene.setColorScheme(darkPalette());
        QVERIFY(scene.style().dark);
        QVERIFY(scene.style().familyFill[size_t(OpFamily::Linear)].lightnessF() < 0.4);
        QCOMPARE(scene.backgroundBrush().color(), QColor(30, 30, 34));
        QVERIFY(scene.style().text.lightnessF() > 0.8);
    }

    void heatFillsGetContrastingText() {
        GraphScene scene;
        scene.setColorScheme(darkPalette());  // light text by default
        showSample(scene);
        const NodeId conv = nodeNamed("/stem/conv/Conv"), gemm = nodeNamed("/head/fc/Gemm");
        QCOMPARE(scene.itemForNode(conv)->textColors().text, scene.style().text);
        const Rgb light = heatColor(0), dark = heatColor(1);
        scene.setNodeFills({{conv, QColor(light.r, light.g, light.b)}, {gemm, QColor(dark.r, dark.g, dark.b)}});
        const NodeItem::TextColors onLight = scene.itemForNode(conv)->textColors();
        const NodeItem::TextColors onDark = scene.itemForNode(gemm)->textColors();
        QVERIFY(onLight.text.lightnessF() < 0.2 && onLight.muted.lightnessF() < 0.4);
        QVERIFY(onDark.text.lightnessF() > 0.9 && onDark.muted.lightnessF() > 0.8);
        QCOMPARE(scene.itemForNode(nodeNamed("/stem/relu/Relu"))->textColors().text, scene.style().text);  // no fill
        // The drawing uses them: the SVG has the dark text color only once a light fill is set.
        QVERIFY(svgAtScale(scene, 1.0).contains(onLight.text.name().toLatin1()));
        scene.setNodeFills({});
        QVERIFY(!svgAtScale(scene, 1.0).contains(onLight.text.name().toLatin1()));
    }

    void viewZoomsFitsAndKeepsThePointUnderTheCursor() {
        GraphScene scene;
        showSample(scene);
        GraphView view;
        view.setScene(&scene);
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTest::keyClick(&view, Qt::Key_F);
        QVERIFY(view.zoom() < 1);
        QVERIFY(view.visibleSceneRect().adjusted(-2, -2, 2, 2).contains(scene.visualGraph().bounds));
        QSignalSpy changed(&view, &GraphView::viewChanged);
        const qreal fitted = view.zoom();
        QTest::keyClick(&view, Qt::Key_Plus);
        QCOMPARE(view.zoom(), fitted * 1.25);
        QTest::keyClick(&view, Qt::Key_Minus);
        QVERIFY(qFuzzyCompare(view.zoom(), fitted));
        QVERIFY(changed.count() >= 2);

        view.resize(200, 300);  // narrower than the scene: it can scroll both ways
        view.setViewState({1.0, scene.visualGraph().bounds.center()});
        const QPoint cursor(60, 80);
        const QPointF before = view.mapToScene(cursor);
        QWheelEvent wheel(cursor, view.viewport()->mapToGlobal(cursor), {}, {0, 120}, Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QCOMPARE(view.zoom(), 1.2);
        QVERIFY2((view.mapToScene(cursor) - before).manhattanLength() < 2.0,
                 qPrintable(QString("%1,%2 -> %3,%4").arg(before.x()).arg(before.y()).arg(view.mapToScene(cursor).x()).arg(view.mapToScene(cursor).y())));

        GraphView other;
        other.setScene(&scene);
        other.resize(400, 300);
        other.setViewState(view.viewState());
        QCOMPARE(other.zoom(), view.zoom());
    }

    void minimapShowsTheWholeSceneAndMovesTheView() {
        GraphScene scene;
        showSample(scene);
        GraphView view;
        view.setScene(&scene);
        view.resize(300, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setViewState({1.0, scene.visualGraph().bounds.center()});
        GraphMinimap minimap(&view);
        minimap.resize(120, 300);
        minimap.show();
        QVERIFY(QTest::qWaitForWindowExposed(&minimap));
        minimap.refit();
        QCOMPARE(minimap.scene(), &scene);
        const QRectF picture = minimap.pictureRect();
        QVERIFY(QRectF(minimap.rect()).contains(picture));
        QVERIFY(picture.height() > 250 || picture.width() > 100);  // the scene fills the widget one way
        QVERIFY((minimap.mapToScene(picture.topLeft()) - scene.sceneRect().topLeft()).manhattanLength() < 1);
        QVERIFY((minimap.mapToScene(picture.bottomRight()) - scene.sceneRect().bottomRight()).manhattanLength() < 10);
        // A click on the top of the overview brings the top of the graph into the view.
        const QPoint top = minimap.mapFromScene({scene.visualGraph().bounds.center().x(), 40}).toPoint();
        QTest::mouseClick(&minimap, Qt::LeftButton, {}, top);
        QVERIFY(view.visibleSceneRect().adjusted(-2, -2, 2, 2).contains(QPointF(scene.visualGraph().bounds.center().x(), 40)));
    }

    void doubleClickOnACollapsedGroupAsksToExpandIt() {
        GraphScene scene;
        showSample(scene, {.collapseDepth = 0});
        GraphView view;
        view.setScene(&scene);
        view.resize(600, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const GroupId head = ScopeTree(sampleGraph()).findGroup("/head");
        NodeItem* item = scene.itemForKey(VisualKey::group(head));
        QVERIFY(item);
        view.centerOn(item);
        QSignalSpy spy(&scene, &GraphScene::groupActivated);
        QTest::mouseDClick(view.viewport(), Qt::LeftButton, {}, view.mapFromScene(item->pos()));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<GroupId>(), head);
    }

    void exportWritesSvgTextAndAPng() {
        GraphScene scene;
        showSample(scene);
        const QByteArray svg = sceneToSvg(scene, "sample");
        QVERIFY(svg.contains("<text"));
        QVERIFY(svg.contains(">Gemm</text>"));
        const QImage image = sceneToImage(scene, 1);
        QCOMPARE(image.size(), scene.sceneRect().size().toSize());
        QCOMPARE(sceneToImage(scene, 4, {}, 500).size().height(), 500);  // clamped
        QCOMPARE(imageFormatOf("a/b.SVG"), std::optional(ImageFormat::Svg));
        QCOMPARE(imageFormatOf("b.jpg"), std::nullopt);
    }
};

QTEST_MAIN(TestGraphScene)
#include "tst_graph_scene.moc"
