// The visual graph and its Graphviz layout: one box per drawn node plus terminals, constants as
// parameters, edges from border to border, no overlaps, name-scope groups, collapsing and the
// automatic collapse of big graphs, and layout from several threads at once.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "viewer/graph_layout.h"

#include <QtTest>

#include <future>
#include <set>
#include <tuple>

using namespace graphlens;

namespace {

const char* const kSample = GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx";

const Graph& sampleGraph() {
    static const Model model = loadModel(kSample);
    return model.graph;
}

const VisualNode& boxNamed(const VisualGraph& vg, const QString& name) {
    for (const VisualNode& n : vg.nodes)
        if (n.name == name) return n;
    throw std::runtime_error("no box named " + name.toStdString());
}

/// How far `p` is from the border of `r`.
qreal distanceToBorder(QPointF p, const QRectF& r) {
    const qreal dx = std::max({r.left() - p.x(), 0.0, p.x() - r.right()});
    const qreal dy = std::max({r.top() - p.y(), 0.0, p.y() - r.bottom()});
    if (dx > 0 || dy > 0) return std::hypot(dx, dy);  // outside
    return std::min({p.x() - r.left(), r.right() - p.x(), p.y() - r.top(), r.bottom() - p.y()});
}

/// Edges a flat drawing of `g` must have: one per (producer, consumer, value), parameters left out.
size_t expectedFlatEdges(const Graph& g) {
    std::set<std::tuple<int32_t, int32_t, ValueId>> edges;
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        if (n.opType == "Constant") continue;
        for (ValueId v : n.inputs()) {
            const Value& value = g.value(v);
            if (value.initializer) continue;
            if (value.producer() != kNoId && g.node(value.producer()).opType == "Constant") continue;
            edges.insert({value.producer() == kNoId ? -1 - v : value.producer(), id, v});
        }
    }
    return edges.size() + g.outputs().size();
}

/// `blocks` scopes /block<i>, each with `subs` sub-scopes /block<i>/part<j> of `perSub` Relu nodes.
Graph nestedGraph(int blocks, int subs, int perSub) {
    GraphBuilder b;
    ValueId x = b.input("x", DType::Float, {1, 8});
    for (int i = 0; i < blocks; ++i)
        for (int j = 0; j < subs; ++j)
            for (int k = 0; k < perSub; ++k)
                x = b.op("Relu", {x}, {}, QStringLiteral("/block%1/part%2/Relu_%3").arg(i).arg(j).arg(k).toStdString());
    b.output(x);
    return b.graph();
}

} // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT
private slots:
    void sampleHasOneBoxPerDrawnNodePlusTerminals() {
        const VisualGraph vg = layoutGraph(sampleGraph());
        QVERIFY(vg.laidOut);
        std::map<VisualKey::Kind, int> kinds;
        for (const VisualNode& n : vg.nodes) ++kinds[n.key.kind];
        QCOMPARE(sampleGraph().nodeCount(), size_t(23));
        QCOMPARE(kinds[VisualKey::Kind::Node], 20);  // 23 nodes, 3 of them Constant
        QCOMPARE(kinds[VisualKey::Kind::Input], 1);
        QCOMPARE(kinds[VisualKey::Kind::Output], 1);
        QCOMPARE(kinds[VisualKey::Kind::Group], 0);
        QCOMPARE(vg.nodes.size(), size_t(22));
        QCOMPARE(vg.edges.size(), size_t(22));
        QCOMPARE(vg.edges.size(), expectedFlatEdges(sampleGraph()));
        for (const VisualNode& n : vg.nodes) QVERIFY2(n.title != "Constant", qPrintable(n.name));
    }

    void constantsAndInitializersAreParametersOfTheirConsumers() {
        const VisualGraph vg = layoutGraph(sampleGraph());
        QCOMPARE(boxNamed(vg, "/stem/conv/Conv").parameters, QStringList{"W 16×3×3×3"});
        QCOMPARE(boxNamed(vg, "/stem/bn/BatchNormalization").parameters,
                 (QStringList{"scale 16", "B 16", "mean 16", "var 16"}));
        QCOMPARE(boxNamed(vg, "/head/fc/Gemm").parameters, (QStringList{"B 10×32", "C 10"}));
        // The three Constant nodes: small values are shown, not just their shape.
        QCOMPARE(boxNamed(vg, "/head/Reshape").parameters, QStringList{"shape [1,32]"});
        QCOMPARE(boxNamed(vg, "/down/Mul").parameters, QStringList{"B 1"});
        QCOMPARE(boxNamed(vg, "/head/dropout/Dropout").parameters, QStringList{"ratio 0.1"});
        QVERIFY(boxNamed(vg, "/stem/relu/Relu").parameters.isEmpty());
    }

    void identityOfAWeightIsAParameterToo() {
        // PyTorch writes Identity nodes for shared weights: they are drawn as the weight.
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, {2, 4});
        const ValueId w = b.initializer("w", Tensor::floats({4, 4}, std::vector<float>(16, 1)));
        const ValueId shared = b.op("Identity", {w}, {}, "Identity_0");
        const ValueId y = b.op("MatMul", {x, shared}, {}, "/fc/MatMul");
        b.output(b.op("MatMul", {y, shared}, {}, "/fc2/MatMul"));
        const VisualGraph vg = layoutGraph(b.graph());
        QCOMPARE(vg.nodes.size(), size_t(2 + 2));
        QCOMPARE(boxNamed(vg, "/fc/MatMul").parameters, QStringList{"B 4×4"});
        QCOMPARE(vg.edges.size(), size_t(3));
        QCOMPARE(ScopeTree(b.graph()).nodeCount(), size_t(2));
    }

    void boxesShowOpTypeShortNameAndKeyAttributes() {
        const VisualGraph vg = layoutGraph(sampleGraph(), {.collapseDepth = -1});
        const VisualNode& conv = boxNamed(vg, "/down/conv/Conv");
        QCOMPARE(conv.title, QString("Conv"));
        QCOMPARE(conv.subtitle, QString("conv"));  // the frame "down" and the op type left out
        QVERIFY2(conv.details.contains("kernel 3×3"), qPrintable(conv.details.join('|')));
        QVERIFY(conv.details.contains("stride 2×2"));
        QVERIFY(conv.details.contains("pads 1,1,1,1"));
        QVERIFY(!boxNamed(vg, "/stem/conv/Conv").details.join('|').contains("stride"));  // 1×1: default
        QCOMPARE(boxNamed(vg, "/block1/Add").subtitle, QString());  // nothing but scope and op type
        QCOMPARE(boxNamed(vg, "/head/Flatten").details, QStringList{"axis 1"});
        QVERIFY(boxNamed(vg, "/head/fc/Gemm").details.contains("transB 1"));
        QCOMPARE(boxNamed(vg, "/stem/conv/Conv").family, OpFamily::Linear);
        QCOMPARE(boxNamed(vg, "/stem/relu/Relu").family, OpFamily::Activation);
        const VisualNode& input = vg.nodes[size_t(vg.indexOf(VisualKey::input(sampleGraph().inputs()[0])))];
        QCOMPARE(input.title, QString("input"));
        QCOMPARE(input.details, QStringList{"float 1×3×32×32"});
    }

    void edgesAreLabeledWithShapes() {
        const VisualGraph vg = layoutGraph(sampleGraph());
        const int conv = vg.indexOf(VisualKey::node(*sampleGraph().findNode("/stem/conv/Conv")));
        const int bn = vg.indexOf(VisualKey::node(*sampleGraph().findNode("/stem/bn/BatchNormalization")));
        const auto edge = std::find_if(vg.edges.begin(), vg.edges.end(),
                                       [&](const VisualEdge& e) { return e.from == conv && e.to == bn; });
        QVERIFY(edge != vg.edges.end());
        QCOMPARE(edge->label, QString("1×16×32×32"));
        QVERIFY(!edge->labelRect.isEmpty());
    }

    void boxesHaveTheMeasuredSizeAndDoNotOverlap() {
        const VisualGraph vg = layoutGraph(sampleGraph());
        for (const VisualNode& n : vg.nodes) {
            QVERIFY(std::abs(n.rect.width() - n.size.width()) < 0.5);
            QVERIFY(std::abs(n.rect.height() - n.size.height()) < 0.5);
            QVERIFY(vg.bounds.contains(n.rect));
        }
        // Fixed metrics: "BatchNormalization" is 18 title characters of 9 units, plus 2 × 10 padding.
        QCOMPARE(boxNamed(vg, "/stem/bn/BatchNormalization").size.width(), 18 * 9.0 + 20);
        for (size_t i = 0; i < vg.nodes.size(); ++i)
            for (size_t j = i + 1; j < vg.nodes.size(); ++j)
                QVERIFY2(!vg.nodes[i].rect.intersects(vg.nodes[j].rect),
                         qPrintable(vg.nodes[i].name + " overlaps " + vg.nodes[j].name));
    }

    void everyEdgeRunsFromBorderToBorder() {
        for (int depth : {-1, 0}) {
            const VisualGraph vg = layoutGraph(sampleGraph(), {.collapseDepth = depth});
            for (const VisualEdge& e : vg.edges) {
                QVERIFY(!e.path.isEmpty());
                const QPointF start = e.path.pointAtPercent(0), end = e.path.currentPosition();
                QVERIFY2(distanceToBorder(start, vg.nodes[size_t(e.from)].rect) < 2.0, qPrintable(vg.nodes[size_t(e.from)].name));
                QVERIFY2(distanceToBorder(end, vg.nodes[size_t(e.to)].rect) < 2.0, qPrintable(vg.nodes[size_t(e.to)].name));
                QVERIFY(end.y() > start.y());  // top to bottom
            }
        }
    }

    void nameScopesFormGroups() {
        const ScopeTree tree(sampleGraph());
        QCOMPARE(tree.nodeCount(), size_t(20));
        std::vector<std::string> top;
        for (GroupId g : tree.topLevelGroups()) top.push_back(tree.group(g).name);
        QCOMPARE(top, (std::vector<std::string>{"stem", "block1", "down", "head"}));
        const ScopeGroup& block1 = tree.group(tree.findGroup("/block1"));
        QCOMPARE(block1.nodes.size(), size_t(7));  // conv1, bn1, relu1, conv2, bn2, Add, relu2
        QVERIFY(block1.children.empty());           // /block1/conv1 holds one node: no group
        QCOMPARE(tree.group(tree.findGroup("/head")).totalNodes, size_t(6));
        QCOMPARE(tree.findGroup("/stem/conv"), kNoId);
        QCOMPARE(tree.groupOf(*sampleGraph().findNode("/block1/conv1/Conv")), block1.id);
        QCOMPARE(tree.maxDepth(), 1);
    }

    void nestedScopesNestAndChainsMerge() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {4});
        for (const char* name : {"/enc/layers/l0/a/Relu", "/enc/layers/l0/b/Relu", "/enc/layers/l1/a/Relu",
                                 "/enc/layers/l1/Relu", "top"})
            x = b.op("Relu", {x}, {}, name);
        b.output(x);
        const ScopeTree tree(b.graph());
        QCOMPARE(tree.groups().size(), size_t(3));
        const ScopeGroup& outer = tree.group(tree.topLevelGroups().at(0));
        QCOMPARE(outer.name, std::string("enc/layers"));  // "enc" only holds "layers": one group
        QCOMPARE(outer.path, std::string("/enc/layers"));
        QCOMPARE(outer.children.size(), size_t(2));
        QCOMPARE(tree.group(outer.children[0]).path, std::string("/enc/layers/l0"));
        QCOMPARE(tree.group(outer.children[0]).depth, 2);
        QCOMPARE(tree.group(outer.children[1]).nodes.size(), size_t(2));
        QCOMPARE(tree.ungroupedNodes().size(), size_t(1));  // "top"
    }

    void expandedGroupsAreFramesAroundTheirBoxes() {
        const VisualGraph vg = layoutGraph(sampleGraph(), {.collapseDepth = -1});
        QCOMPARE(vg.frames.size(), size_t(4));
        const ScopeTree tree(sampleGraph());
        for (const VisualGroupFrame& f : vg.frames) {
            QVERIFY(!f.rect.isEmpty());
            for (NodeId id : tree.group(f.id).nodes)
                QVERIFY(f.rect.contains(vg.nodes[size_t(vg.indexShowing(id))].rect));
        }
    }

    void collapsingAGroupReducesBoxesAndReroutesEdges() {
        const ScopeTree tree(sampleGraph());
        const GroupId block1 = tree.findGroup("/block1");
        VisualGraph vg = buildVisualGraph(sampleGraph(), tree, {.collapsed = {block1}});
        layoutVisualGraph(vg);
        QCOMPARE(vg.nodes.size(), size_t(22 - 7 + 1));
        // Eight edges end in block1; stem's Relu feeds two of them with one value: one edge now.
        QCOMPARE(vg.edges.size(), size_t(22 - 8 + 1));
        const int group = vg.indexOf(VisualKey::group(block1));
        QVERIFY(group >= 0);
        QCOMPARE(vg.indexShowing(*sampleGraph().findNode("/block1/conv2/Conv")), group);
        QCOMPARE(vg.nodes[size_t(group)].details.value(0), QString("7 nodes"));
        std::vector<QString> into, outOf;
        for (const VisualEdge& e : vg.edges) {
            if (e.to == group) into.push_back(vg.nodes[size_t(e.from)].name);
            if (e.from == group) outOf.push_back(vg.nodes[size_t(e.to)].name);
        }
        QCOMPARE(into, std::vector<QString>{"/stem/relu/Relu"});
        QCOMPARE(outOf, std::vector<QString>{"/down/conv/Conv"});
        QCOMPARE(vg.frames.size(), size_t(3));
    }

    void bigGraphsStartCollapsedToTheirTopLevelGroups() {
        const Graph g = nestedGraph(40, 3, 10);  // 1,200 nodes
        const ScopeTree tree(g);
        QCOMPARE(tree.nodeCount(), size_t(1200));
        QCOMPARE(tree.maxDepth(), 2);
        const CollapsedGroups collapsed = automaticCollapse(tree, 1000);
        QCOMPARE(collapsed, collapseBelowDepth(tree, 0));  // one box per block
        QCOMPARE(visibleNodeCount(tree, collapsed), size_t(40));
        QVERIFY(automaticCollapse(tree, 1200).empty());
        // Fewer top-level boxes than the overview wants: one level further in, under the limit.
        QCOMPARE(automaticCollapse(tree, 1000, 41), collapseBelowDepth(tree, 1));
        QCOMPARE(automaticCollapse(tree, 100, 41), collapseBelowDepth(tree, 0));
        const VisualGraph vg = layoutGraph(g);
        QCOMPARE(vg.nodes.size(), size_t(40 + 2));
        QCOMPARE(vg.edges.size(), size_t(40 + 1));
        QCOMPARE(layoutGraph(sampleGraph(), {.maxVisibleNodes = 10}).nodes.size(), size_t(4 + 2));
    }

    void aModelInOneScopeOpensOneLevelIn() {
        GraphBuilder b;  // "/model/block<i>/part<j>/Relu_<k>": one top-level group around all
        ValueId x = b.input("x", DType::Float, {1, 8});
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < 2; ++j)
                for (int k = 0; k < 30; ++k)
                    x = b.op("Relu", {x}, {}, QStringLiteral("/model/block%1/part%2/Relu_%3").arg(i).arg(j).arg(k).toStdString());
        b.output(x);
        const ScopeTree tree(b.graph());
        QCOMPARE(tree.topLevelGroups().size(), size_t(1));
        const CollapsedGroups collapsed = automaticCollapse(tree);
        QCOMPARE(collapsed, collapseBelowDepth(tree, 1));
        QCOMPARE(visibleNodeCount(tree, collapsed), size_t(20));
    }

    void oneGroupHoldingMostNodesIsOpened() {
        GraphBuilder b;  // 12 loose nodes, then "/layers/layers.<i>/Relu_<k>" holding 1,200
        ValueId x = b.input("x", DType::Float, {1, 8});
        for (int k = 0; k < 12; ++k) x = b.op("Relu", {x}, {}, "embed_" + std::to_string(k));
        for (int i = 0; i < 24; ++i)
            for (int k = 0; k < 50; ++k)
                x = b.op("Relu", {x}, {}, QStringLiteral("/layers/layers.%1/Relu_%2").arg(i).arg(k).toStdString());
        b.output(x);
        const ScopeTree tree(b.graph());
        QCOMPARE(visibleNodeCount(tree, collapseBelowDepth(tree, 0)), size_t(13));  // enough boxes, but
        const CollapsedGroups collapsed = automaticCollapse(tree);  // one of them holds 1,200 of 1,212
        QCOMPARE(collapsed, collapseBelowDepth(tree, 1));
        QCOMPARE(visibleNodeCount(tree, collapsed), size_t(12 + 24));
    }

    void collapsedGroupBoxesShowAnOpHistogram() {
        const ScopeTree tree(sampleGraph());
        const GroupId block1 = tree.findGroup("/block1");
        const VisualGraph vg = buildVisualGraph(sampleGraph(), tree, {.collapsed = {block1}});
        const VisualNode& box = vg.nodes[size_t(vg.indexOf(VisualKey::group(block1)))];
        QCOMPARE(box.title, QString("block1"));
        QCOMPARE(box.details, QStringList({"7 nodes", "BatchNormalization 2 · Conv 2 · Relu 2", "Add 1"}));
    }

    void emptyAndTinyGraphsLayOut() {
        const VisualGraph empty = layoutGraph(Graph());
        QVERIFY(empty.laidOut);
        QVERIFY(empty.nodes.empty());
        GraphBuilder b;
        b.output(b.input("x", DType::Float, {1}));  // an input that is also the output
        const VisualGraph passThrough = layoutGraph(b.graph());
        QCOMPARE(passThrough.nodes.size(), size_t(2));
        QCOMPARE(passThrough.edges.size(), size_t(1));
        QVERIFY(!passThrough.edges[0].path.isEmpty());
    }

    void layoutRunsInSeveralThreadsAtOnce() {
        // Graphviz 2.43 keeps a search index of its network simplex in a static variable, so
        // clusters may land a few units apart from one call to the next: each result must be
        // complete and valid, and a flat layout the same every time.
        std::vector<std::future<VisualGraph>> runs;
        for (int i = 0; i < 4; ++i)
            runs.push_back(std::async(std::launch::async, [] { return layoutGraph(sampleGraph()); }));
        for (auto& run : runs) {
            const VisualGraph vg = run.get();
            QCOMPARE(vg.nodes.size(), size_t(22));
            QCOMPARE(vg.edges.size(), size_t(22));
            for (const VisualNode& n : vg.nodes) QVERIFY(vg.bounds.contains(n.rect));
            for (const VisualEdge& e : vg.edges) QVERIFY(!e.path.isEmpty());
        }
        const VisualGraph a = layoutGraph(sampleGraph(), {.groupFrames = false});
        const VisualGraph b = layoutGraph(sampleGraph(), {.groupFrames = false});
        for (size_t i = 0; i < a.nodes.size(); ++i) QCOMPARE(a.nodes[i].rect, b.nodes[i].rect);
    }
};

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"
