// Model statistics: op histogram, parameters and the FLOP estimates of `graphlens info`.
#include "core/graph/builder.h"
#include "core/graph/model_summary.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/static_shapes.h"
#include "support/symbolic_attention.h"

#include <QtTest>

using namespace graphlens;

class TestModelSummary : public QObject {
    Q_OBJECT
private slots:
    void convFlopsCountTwoPerMultiplyAddPlusBias() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {1, 8, 16, 16});
        ValueId w = b.initializer("w", Tensor::floats({4, 4, 3, 3}, std::vector<float>(144, 1.f)));
        ValueId bias = b.initializer("b", Tensor::floats({4}, std::vector<float>(4, 0.f)));
        ValueId y = b.op("Conv", {x, w, bias}, {{"group", 2}, {"pads", {1, 1, 1, 1}}});
        b.graph().value(y).shape = Shape({1, 4, 16, 16});
        b.output(y);
        const Graph& g = b.graph();
        // 1024 outputs, each 4 input channels (group 2) x 3x3 taps, plus one bias add.
        QCOMPARE(*estimateNodeFlops(g, g.node(b.lastNode())), int64_t(2 * 1024 * 36 + 1024));
    }

    void convTransposeFlopsScaleWithInputElements() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {1, 2, 4, 4});
        ValueId w = b.initializer("w", Tensor::floats({2, 3, 2, 2}, std::vector<float>(24, 1.f)));
        ValueId y = b.op("ConvTranspose", {x, w}, {{"strides", {2, 2}}});
        b.graph().value(y).shape = Shape({1, 3, 8, 8});
        b.output(y);
        QCOMPARE(*estimateNodeFlops(b.graph(), b.graph().node(b.lastNode())), int64_t(2 * 32 * 12));
    }

    void gemmAndMatMulFlops() {
        GraphBuilder b;
        ValueId a = b.input("a", DType::Float, {5, 7});
        ValueId w = b.initializer("w", Tensor::floats({3, 7}, std::vector<float>(21, 1.f)));
        ValueId y = b.op("Gemm", {a, w}, {{"transB", 1}});
        b.graph().value(y).shape = Shape({5, 3});
        const NodeId gemm = b.lastNode();
        ValueId m = b.input("m", DType::Float, std::vector<Dim>{Dim("batch"), Dim(4), Dim(6)});
        ValueId k = b.initializer("k", Tensor::floats({6, 2}, std::vector<float>(12, 1.f)));
        ValueId z = b.op("MatMul", {m, k});
        b.graph().value(z).shape = Shape(std::vector<Dim>{Dim("batch"), Dim(4), Dim(2)});
        b.output(y);
        b.output(z);
        const Graph& g = b.graph();
        QCOMPARE(*estimateNodeFlops(g, g.node(gemm)), int64_t(2 * 5 * 3 * 7));
        QCOMPARE(*estimateNodeFlops(g, g.node(b.lastNode())), int64_t(2 * 8 * 6));  // batch as 1
        const ModelSummary s = summarize(b.model());
        QCOMPARE(s.flops, int64_t(2 * 5 * 3 * 7 + 2 * 8 * 6));
        QCOMPARE(s.nodesWithFlops, size_t(2));
    }

    void unknownShapesGiveNoEstimate() {
        GraphBuilder b;
        ValueId a = b.input("a", DType::Float, {});
        b.output(b.op("MatMul", {a, a}));
        QVERIFY(!estimateNodeFlops(b.graph(), b.graph().node(b.lastNode())));
    }

    void histogramAndParametersCountConstantsToo() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {2});
        ValueId k = b.constant(Tensor::floats({2}, {1.f, 2.f}));
        ValueId w = b.initializer("w", Tensor::int64s({3}, {1, 2, 3}));
        ValueId y = b.op("Add", {x, k});
        b.output(b.op("Custom", {y, w}, {}, "custom"));
        b.graph().node(b.lastNode()).domain = "com.example";
        const ModelSummary s = summarize(b.model());
        QCOMPARE(s.nodes, size_t(3));
        QCOMPARE(s.ops.at("Constant"), 1);
        QCOMPARE(s.ops.at("Add"), 1);
        QCOMPARE(s.ops.at("com.example:Custom"), 1);
        QCOMPARE(s.parameters, int64_t(5));
        QCOMPARE(s.parameterBytes, int64_t(2 * 4 + 3 * 8));
        QCOMPARE(s.initializers, size_t(1));
    }

    /// Symbolic batch and sequence: FLOPs are counted on the shapes for size 1, through the
    /// shape arithmetic ONNX shape inference cannot follow, so every MatMul counts before the
    /// passes as after them, and the two sides agree (they did not: the passes fold the shape
    /// computation, and only the optimized graph counted the attention products).
    void symbolicDimsCountEveryMatMulAlikeBeforeAndAfterThePasses() {
        const Model before = testing::symbolicAttention();
        QCOMPARE(symbolicInputDims(before.graph), (std::vector<std::string>{"batch", "sequence"}));
        const ModelSummary s = summarize(before);
        QCOMPARE(s.ops.at("MatMul"), 6);
        QCOMPARE(s.nodesWithFlops, size_t(6));
        QCOMPARE(s.flops, testing::kSymbolicAttentionFlops);
        QCOMPARE(s.unitDims, (std::vector<std::string>{"batch", "sequence"}));
        QCOMPARE(unitDimsNote(s.unitDims), std::string("with batch, sequence = 1"));
        // Without the folding, the loaded shapes leave the attention products uncounted.
        size_t counted = 0;
        for (NodeId id : before.graph.nodeIds()) counted += estimateNodeFlops(before.graph, before.graph.node(id)).has_value();
        QCOMPARE(counted, size_t(4));
        // On the shapes as loaded (what the window shows before its first frame), the count is
        // marked short rather than passed off as the model's.
        const ModelSummary quick = summarize(before, FlopShapes::AsLoaded);
        QVERIFY(!quick.flopsComplete);
        QCOMPARE(quick.nodesWithFlops, size_t(4));
        QVERIFY(s.flopsComplete);

        Model after = before;
        PassContext context = contextFor(after);
        for (const auto& pass : makePipeline("default")) runPass(*pass, after, context);
        QVERIFY(after.graph.nodeCount() < before.graph.nodeCount());  // the shape computation is gone
        const ModelSummary optimized = summarize(after);
        QCOMPARE(optimized.nodesWithFlops, size_t(6));
        QVERIFY2(std::abs(double(optimized.flops) / double(s.flops) - 1) < 0.03,
                 qPrintable(QString("%1 vs %2").arg(optimized.flops).arg(s.flops)));
    }

    void staticInputsNeedNoNote() {
        GraphBuilder b;
        ValueId x = b.input("x", DType::Float, {1, 4});
        b.output(b.op("Relu", {x}));
        const ModelSummary s = summarize(b.model());
        QVERIFY(s.unitDims.empty());
        QCOMPARE(unitDimsNote(s.unitDims), std::string());
        QVERIFY(unitInputShapes(b.graph()).empty());
    }
};

QTEST_APPLESS_MAIN(TestModelSummary)
#include "tst_model_summary.moc"
