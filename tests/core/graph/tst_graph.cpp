// The graph IR: building, editing, ids, topological order, validation, snapshots, shapes, types.
#include "core/graph/builder.h"
#include "core/graph/graph.h"

#include <QtTest>

#include <algorithm>
#include <map>

using namespace graphlens;

namespace {

/// x -> Conv(w) -> Relu -> y, with w an initializer.
GraphBuilder convRelu() {
    GraphBuilder b;
    ValueId x = b.input("x", DType::Float, {1, 3, 8, 8});
    ValueId w = b.initializer("w", Tensor::floats({4, 3, 1, 1}, std::vector<float>(12, 0.5f)));
    ValueId c = b.op("Conv", {x, w}, {{"kernel_shape", {1, 1}}}, "conv");
    b.output(b.op("Relu", {c}, {}, "relu"));
    return b;
}

/// Every link problem of `g`: Graph::validate()'s sentences, plus any value whose use list is not
/// exactly (as a set, one entry per reading input) what the nodes' inputs say, and any output
/// whose value does not name the node back. Empty for a consistent graph.
std::vector<std::string> linkProblems(const Graph& g) {
    std::vector<std::string> problems = g.validate();
    std::map<ValueId, std::vector<Use>> expected;
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        for (size_t i = 0; i < n.inputs().size(); ++i)
            if (n.input(i) != kNoId) expected[n.input(i)].push_back({id, int(i)});
        for (size_t i = 0; i < n.outputs().size(); ++i)
            if (g.value(n.output(i)).producer() != id || g.value(n.output(i)).producerOutput() != int(i))
                problems.push_back("output " + std::to_string(i) + " of " + n.name + " names another producer");
    }
    const auto byNode = [](const Use& a, const Use& b) { return std::pair(a.node, a.input) < std::pair(b.node, b.input); };
    for (ValueId v : g.valueIds()) {
        std::vector<Use> got = g.value(v).uses(), want = expected[v];
        std::sort(got.begin(), got.end(), byNode);
        std::sort(want.begin(), want.end(), byNode);
        if (got != want) problems.push_back("the uses of '" + g.value(v).name + "' disagree with the node inputs");
        const NodeId p = g.value(v).producer();
        if (p != kNoId && (!g.hasNode(p) || g.node(p).output(size_t(g.value(v).producerOutput())) != v))
            problems.push_back("'" + g.value(v).name + "' names a producer that does not write it");
    }
    return problems;
}

using Uses = std::vector<Use>;

} // namespace

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    void attributesKnowWhetherTheyHoldSubgraphs() {
        // What lets walks for the names sub-graphs read skip nodes, and models without control
        // flow altogether (SubgraphMark::anyLive).
        Attributes a{{"axis", int64_t(1)}};
        QVERIFY(!a.holdsGraphs());
        a.set("body", GraphPtr(std::make_shared<Graph>()));
        QVERIFY(a.holdsGraphs());
        QVERIFY(SubgraphMark::anyLive());
        Attributes copy = a;
        QVERIFY(copy.holdsGraphs());
        const Attributes moved = std::move(copy);
        QVERIFY(moved.holdsGraphs());
        QVERIFY(a.erase("body"));
        QVERIFY(!a.holdsGraphs());
        a.set("branches", std::vector<GraphPtr>{std::make_shared<Graph>()});
        QVERIFY(a.holdsGraphs());
        a.set("branches", int64_t(0));
        QVERIFY(!a.holdsGraphs());
        QVERIFY(moved.holdsGraphs());
    }

    void builderMakesLinkedNodesAndValues() {
        GraphBuilder b = convRelu();
        const Graph& g = b.graph();
        QCOMPARE(g.nodeCount(), size_t(2));
        QCOMPARE(g.inputs().size(), size_t(1));
        QCOMPARE(g.outputs().size(), size_t(1));
        const Node& conv = g.node(*g.findNode("conv"));
        QCOMPARE(conv.opType, std::string("Conv"));
        QCOMPARE(conv.attributes.getInts("kernel_shape"), (std::vector<int64_t>{1, 1}));
        const Value& convOut = g.value(conv.output(0));
        QCOMPARE(convOut.producer(), conv.id);
        QCOMPARE(convOut.uses().size(), size_t(1));
        QCOMPARE(g.node(convOut.uses()[0].node).opType, std::string("Relu"));
        QCOMPARE(conv.provenance, std::vector<NodeId>{conv.id});
        QVERIFY(g.validate().empty());
    }

    void topologicalOrderPutsProducersFirstAndKeepsInsertionOrder() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {4});
        ValueId a = b.op("Relu", {x}, {}, "a");
        ValueId c = b.op("Sigmoid", {x}, {}, "c");
        b.output(b.op("Add", {a, c}, {}, "sum"));
        const Graph& g = b.graph();
        std::vector<std::string> names;
        for (NodeId id : g.topologicalOrder()) names.push_back(g.node(id).name);
        QCOMPARE(names, (std::vector<std::string>{"a", "c", "sum"}));
    }

    void cycleIsReportedWithANodeName() {
        Graph g;
        ValueId x = g.addInput("x", DType::Float, {2});
        ValueId loopBack = g.addValue("b_out");
        ValueId aOut = g.addValue("a_out");
        g.addNodeProducing("Add", {x, loopBack}, {aOut}, {}, "a");
        g.addNodeProducing("Relu", {aOut}, {loopBack}, {}, "b");
        g.addOutput(aOut);
        try {
            (void)g.topologicalOrder();
            QFAIL("a cycle must throw");
        } catch (const GraphError& e) {
            QVERIFY2(std::string(e.what()).find("cycle through node 'a'") != std::string::npos, e.what());
        }
        QCOMPARE(g.validate().size(), size_t(1));
    }

    void undefinedInputIsAValidationProblem() {
        Graph g;
        ValueId ghost = g.addValue("ghost");
        g.addNode("Relu", {ghost}, {"y"}, {}, "relu");
        const auto problems = g.validate();
        QCOMPARE(problems.size(), size_t(1));
        QVERIFY(problems[0].find("'ghost'") != std::string::npos);
    }

    void duplicateValueNamesThrow() {
        Graph g;
        g.addInput("x", DType::Float, {1});
        QVERIFY_THROWS_EXCEPTION(GraphError, g.addValue("x"));
        QVERIFY_THROWS_EXCEPTION(GraphError, g.addNode("Relu", {}, {"x"}));
    }

    void removingANodeKeepsOtherIdsStable() {
        GraphBuilder b = convRelu();
        Graph& g = b.graph();
        const NodeId conv = *g.findNode("conv");
        const NodeId relu = *g.findNode("relu");
        const ValueId x = g.inputs()[0];
        // Bypass the Relu: the output now comes straight from the Conv.
        const ValueId reluOut = g.node(relu).output(0);
        g.replaceAllUses(reluOut, g.node(conv).output(0));
        g.removeNode(relu);
        g.removeValue(reluOut);
        QCOMPARE(g.nodeCount(), size_t(1));
        QVERIFY(!g.hasNode(relu));
        QCOMPARE(g.node(conv).name, std::string("conv"));
        QCOMPARE(g.outputs()[0], g.node(conv).output(0));
        QCOMPARE(g.value(g.node(conv).output(0)).uses().size(), size_t(0));
        QCOMPARE(g.value(x).uses().size(), size_t(1));
        const NodeId added = g.addNode("Relu", {g.outputs()[0]}, {"again"});
        QVERIFY(added > relu);  // ids are never reused
        QVERIFY(g.validate().empty());
    }

    void everyEditKeepsUseListsExact() {
        Graph g;
        const ValueId x = g.addInput("x", DType::Float, Shape::ofSizes({4}));
        const ValueId y = g.addInput("y", DType::Float, Shape::ofSizes({4}));
        const ValueId lo = g.addInitializer("lo", Tensor::scalar(0.f));
        // A node reading one value twice lists two uses, one per input slot.
        const NodeId add = g.addNode("Add", {x, x}, {"s"}, {}, "add");
        const ValueId s = g.node(add).output(0);
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}, {add, 1}}));
        QCOMPARE(g.value(s).producer(), add);
        QCOMPARE(g.value(s).producerOutput(), 0);
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // An omitted optional input (kNoId) is kept in place and is nobody's use.
        const NodeId clip = g.addNode("Clip", {s, kNoId, y}, {"c"}, {}, "clip");
        const NodeId relu = g.addNode("Relu", {s}, {"r"}, {}, "relu");
        const ValueId c = g.node(clip).output(0), r = g.node(relu).output(0);
        g.addOutput(c);
        g.addOutput(s);
        QCOMPARE(g.node(clip).inputs(), (std::vector<ValueId>{s, kNoId, y}));
        QCOMPARE(g.value(s).uses(), (Uses{{clip, 0}, {relu, 0}}));
        QCOMPARE(g.value(y).uses(), (Uses{{clip, 2}}));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // setNodeInput moves the use from the old value to the new one, also into an omitted slot.
        g.setNodeInput(clip, 1, lo);
        QCOMPARE(g.value(lo).uses(), (Uses{{clip, 1}}));
        g.setNodeInput(add, 1, y);
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}}));
        QCOMPARE(g.value(y).uses(), (Uses{{clip, 2}, {add, 1}}));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});
        g.setNodeInput(clip, 2, kNoId);
        QCOMPARE(g.node(clip).input(2), kNoId);
        QCOMPARE(g.value(y).uses(), (Uses{{add, 1}}));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // replaceAllUses moves every reader and the graph output, and leaves `from` unread.
        g.replaceAllUses(s, x);
        QVERIFY(g.value(s).uses().empty());
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}, {clip, 0}, {relu, 0}}));
        QCOMPARE(g.outputs(), (std::vector<ValueId>{c, x}));
        QCOMPARE(g.value(s).producer(), add);  // still produced, just unread
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // setNodeOutput hands the slot to a fresh value; the old one loses its producer.
        const ValueId s2 = g.addValue("s2");
        g.setNodeOutput(add, 0, s2);
        QCOMPARE(g.node(add).outputs(), (std::vector<ValueId>{s2}));
        QCOMPARE(g.value(s2).producer(), add);
        QCOMPARE(g.value(s2).producerOutput(), 0);
        QCOMPARE(g.value(s).producer(), kNoId);
        g.removeValue(s);
        QVERIFY(!g.hasValue(s));
        g.setNodeInput(relu, 0, s2);
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}, {clip, 0}}));
        QCOMPARE(g.value(s2).uses(), (Uses{{relu, 0}}));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // Edits that cannot be made change nothing.
        QVERIFY_THROWS_EXCEPTION(GraphError, g.setNodeOutput(clip, 0, r));  // r has a producer
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, g.setNodeInput(relu, 1, x));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, g.setNodeOutput(relu, 1, g.addValue("spare")));
        QVERIFY_THROWS_EXCEPTION(GraphError, g.removeValue(x));  // read and a graph output
        QCOMPARE(g.node(clip).outputs(), (std::vector<ValueId>{c}));
        QCOMPARE(g.value(r).producer(), relu);
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}, {clip, 0}}));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, g.node(relu).input(1));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // removeNode drops the node's uses and leaves its outputs without a producer.
        g.removeNode(clip);
        QCOMPARE(g.value(x).uses(), (Uses{{add, 0}}));
        QVERIFY(g.value(lo).uses().empty());
        QCOMPARE(g.value(c).producer(), kNoId);
        g.replaceAllUses(c, r);  // the graph output now comes from the Relu
        g.removeValue(c);
        QCOMPARE(g.outputs(), (std::vector<ValueId>{r, x}));
        QCOMPARE(linkProblems(g), std::vector<std::string>{});

        // A snapshot carries the links; editing it leaves the original's use lists alone.
        Graph snap = g.snapshot();
        snap.setNodeInput(relu, 0, y);
        QCOMPARE(snap.value(y).uses(), (Uses{{add, 1}, {relu, 0}}));
        QCOMPARE(g.value(y).uses(), (Uses{{add, 1}}));
        QCOMPARE(g.value(s2).uses(), (Uses{{relu, 0}}));
        QCOMPARE(linkProblems(snap), std::vector<std::string>{});
        QCOMPARE(linkProblems(g), std::vector<std::string>{});
    }

    void removingAValueInUseThrows() {
        GraphBuilder b = convRelu();
        QVERIFY_THROWS_EXCEPTION(GraphError, b.graph().removeValue(b.graph().inputs()[0]));
    }

    void snapshotSharesTensorsButNotStructure() {
        GraphBuilder b = convRelu();
        Graph& original = b.graph();
        Graph snap = original.snapshot();
        const ValueId w = *original.findValue("w");
        QVERIFY(snap.value(w).initializer->sharesStorageWith(*original.value(w).initializer));
        snap.removeNode(*snap.findNode("relu"));
        QCOMPARE(snap.nodeCount(), size_t(1));
        QCOMPARE(original.nodeCount(), size_t(2));
    }

    void constantValueSeesInitializersAndConstantNodes() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2});
        ValueId k = b.constant(Tensor::floats({2}, {1.f, 2.f}), "k");
        ValueId w = b.initializer("w", Tensor::scalar(3.f));
        b.output(b.op("Mul", {b.op("Add", {x, k}), w}));
        const Graph& g = b.graph();
        QVERIFY(g.constantValue(x) == nullptr);
        QCOMPARE(g.constantValue(k)->span<float>()[1], 2.f);
        QCOMPARE(g.constantValue(w)->span<float>()[0], 3.f);
    }

    void shapesPrintAndCountSafely() {
        QCOMPARE(Shape({1, 3, 224, 224}).toString(), std::string("[1,3,224,224]"));
        QCOMPARE(Shape(std::vector<Dim>{Dim("batch"), Dim(128), Dim()}).toString(),
                 std::string("[batch,128,?]"));
        QCOMPARE(Shape().toString(), std::string("?"));
        QCOMPARE(*Shape({2, 3, 4}).numel(), int64_t(24));
        QVERIFY(!Shape(std::vector<Dim>{Dim("n"), Dim(3)}).numel());
        QVERIFY(!checkedElementCount({int64_t(1) << 40, int64_t(1) << 40}));
        QCOMPARE(*checkedElementCount({int64_t(1) << 40, int64_t(1) << 40, 0}), int64_t(0));
        QVERIFY(!checkedElementCount({4, -1}));
    }

    void everyOnnxElementTypeHasANameAndSize() {
        for (int i = 1; i <= 23; ++i) {
            const auto type = dtypeFromOnnx(i);
            QVERIFY(type.has_value());
            QVERIFY(dtypeName(*type) != "undefined");
            QCOMPARE(dtypeFromName(dtypeName(*type)), type);
        }
        QVERIFY(!dtypeFromOnnx(99));
        QCOMPARE(dtypeBits(DType::BFloat16), 16);
        QCOMPARE(dtypeStorageBytes(DType::Int4, 5), uint64_t(3));
        QCOMPARE(dtypeStorageBytes(DType::Complex128, 2), uint64_t(32));
    }

    void tensorsConvertToDoubles() {
        const Tensor half = Tensor::fromVector<uint16_t>(DType::Float16, {3}, {0x3c00, 0xc000, 0x0001});
        const auto values = half.toDoubles();
        QCOMPARE(values[0], 1.0);
        QCOMPARE(values[1], -2.0);
        QCOMPARE(values[2], double(std::ldexp(1.0f, -24)));
        QCOMPARE(Tensor::int64s({2}, {7, -9}).toDoubles(), (std::vector<double>{7, -9}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, Tensor::int64s({1}, {1}).span<float>());
    }

    void attributesKeepOrderAndKinds() {
        Attributes a{{"strides", {2, 2}}, {"alpha", 0.5}, {"mode", "constant"}, {"group", 1}};
        QCOMPARE(a.size(), size_t(4));
        QCOMPARE(a.find("alpha")->kind(), AttributeKind::Float);
        QCOMPARE(a.find("group")->kind(), AttributeKind::Int);
        QCOMPARE(a.getString("mode"), std::string("constant"));
        QCOMPARE(a.getInt("missing", 7), int64_t(7));
        a.set("group", 4);
        QCOMPARE(a.getInt("group", 0), int64_t(4));
        QCOMPARE(a.begin()->first, std::string("strides"));
        QVERIFY(a.erase("alpha"));
        QVERIFY(!a.has("alpha"));
        Attribute body(GraphPtr(std::make_shared<Graph>()));
        QCOMPARE(body.kind(), AttributeKind::Graph);
        QCOMPARE(attributeKindName(AttributeKind::TypeProtos), std::string_view("TYPE_PROTOS"));
    }
};

QTEST_APPLESS_MAIN(TestGraph)
#include "tst_graph.moc"
