// FLOP counts per node: Conv, Gemm and MatMul (multiply-adds count 2), the fused forms, the
// per-element tables, data movement at 0, unknown ops and unknown shapes without a count.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/static_shapes.h"
#include "profiler/flops.h"
#include "support/symbolic_attention.h"

#include <QtTest>

using namespace graphlens;

namespace {

/// Gives `v` a float type and static shape (GraphBuilder leaves node outputs without one).
ValueId shaped(Graph& g, ValueId v, std::vector<int64_t> dims) {
    g.value(v).dtype = DType::Float;
    g.value(v).shape = Shape::ofSizes(dims);
    return v;
}

Tensor zeros(std::vector<int64_t> dims) { return Tensor::allocate(DType::Float, std::move(dims)); }

std::optional<int64_t> flopsOfLast(GraphBuilder& b) { return nodeFlops(b.graph(), b.graph().node(b.lastNode())); }

} // namespace

class TestFlops : public QObject {
    Q_OBJECT
private slots:
    void convCountsTwoPerMultiplyAddPlusBias() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 3, 32, 32}));
        const ValueId y = b.op("Conv", {x, b.initializer("w", zeros({16, 3, 3, 3})), b.initializer("b", zeros({16}))},
                               {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
        shaped(b.graph(), y, {1, 16, 32, 32});
        // 16*32*32 outputs, each 3*3*3 multiply-adds, plus one bias add.
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(2 * 16384 * 27 + 16384));
    }
    void groupedConvCountsItsChannelsPerGroup() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 32, 8, 8}));
        const ValueId y = b.op("Conv", {x, b.initializer("w", zeros({32, 1, 3, 3}))},
                               {{"group", int64_t(32)}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
        shaped(b.graph(), y, {1, 32, 8, 8});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(2 * 2048 * 9));
    }
    void fusedConvAddsItsActivationAndResidual() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 4, 8, 8}));
        const ValueId z = b.input("z", DType::Float, Shape::ofSizes({1, 8, 8, 8}));
        const ValueId w = b.initializer("w", zeros({8, 4, 1, 1})), bias = b.initializer("b", zeros({8}));
        b.graph().addNode("FusedConv", {x, w, bias, z}, {"y"}, {{"activation", std::string("Relu")}}, "fused",
                          "com.microsoft");
        const NodeId fused = *b.graph().findNode("fused");
        shaped(b.graph(), b.graph().node(fused).output(0), {1, 8, 8, 8});
        // 512 outputs: 4 multiply-adds, bias, Relu, residual add.
        QCOMPARE(nodeFlops(b.graph(), b.graph().node(fused)), std::optional<int64_t>(512 * 8 + 512 + 512 + 512));
    }
    void gemmCountsTheInnerDimension() {
        GraphBuilder b;
        const ValueId a = b.input("a", DType::Float, Shape::ofSizes({1, 32}));
        const ValueId y = b.op("Gemm", {a, b.initializer("w", zeros({10, 32})), b.initializer("c", zeros({10}))},
                               {{"transB", int64_t(1)}});
        shaped(b.graph(), y, {1, 10});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(2 * 10 * 32 + 10));
    }
    void batchedMatMulCountsEveryOutput() {
        GraphBuilder b;
        const ValueId a = b.input("a", DType::Float, Shape::ofSizes({2, 8, 16}));
        const ValueId y = b.op("MatMul", {a, b.initializer("w", zeros({16, 4}))});
        shaped(b.graph(), y, {2, 8, 4});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(2 * 64 * 16));
    }
    void elementwiseOpsCostPerOutputElement() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({2, 10}));
        shaped(b.graph(), b.op("Relu", {x}), {2, 10});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(20));
        shaped(b.graph(), b.op("Sigmoid", {x}), {2, 10});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(60));
        shaped(b.graph(), b.op("Softmax", {x}), {2, 10});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(100));
        shaped(b.graph(), b.op("Sum", {x, x, x}), {2, 10});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(40));
    }
    void poolingCountsTheWindow() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 32, 32}));
        shaped(b.graph(), b.op("MaxPool", {x}, {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}}}),
               {1, 16, 15, 15});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(16 * 15 * 15 * 9));
        shaped(b.graph(), b.op("GlobalAveragePool", {x}), {1, 16, 1, 1});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(16384));
    }
    void dataMovementIsFreeAndUnknownOpsHaveNoCount() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({2, 10}));
        shaped(b.graph(), b.op("Transpose", {x}), {10, 2});
        QCOMPARE(flopsOfLast(b), std::optional<int64_t>(0));
        shaped(b.graph(), b.op("NonMaxSuppression", {x}), {1, 3});
        QCOMPARE(flopsOfLast(b), std::nullopt);
        b.op("Relu", {x});  // output shape unknown
        QCOMPARE(flopsOfLast(b), std::nullopt);
    }
    void sampleModelTotal() {
        const Model m = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
        // Conv and Gemm as `graphlens info` counts them (12,681,866), then per element: three
        // BatchNormalization at 16,384 outputs and one at 8,192 (2 each), Relu 3 x 16,384 +
        // 8,192, Add 16,384, Mul 8,192, GlobalAveragePool 8,192 inputs.
        const int64_t perElement = 2 * (3 * 16384 + 8192) + (3 * 16384 + 8192) + 16384 + 8192 + 8192;
        QCOMPARE(graphFlops(m.graph), int64_t(12681866) + perElement);
    }

    /// A profile counts FLOPs on static shapes (graphWithStaticShapes): with batch and sequence
    /// 1, every MatMul of the attention block has a count, before and after the default passes,
    /// and the totals agree within a few percent (the passes fold nothing that computes).
    void symbolicShapeModelCountsAlikeBeforeAndAfterThePasses() {
        const Model before = testing::symbolicAttention();
        Model after = before;
        PassContext context = contextFor(after);
        for (const auto& pass : makePipeline("default")) runPass(*pass, after, context);
        for (const Model* m : std::initializer_list<const Model*>{&before, &after}) {
            const Graph g = graphWithStaticShapes(*m, unitInputShapes(m->graph));
            int matMuls = 0;
            for (NodeId id : g.nodeIds()) {
                const Node& n = g.node(id);
                if (n.opType != "MatMul" && n.opType != "FusedMatMul" && n.opType != "Gemm") continue;
                ++matMuls;
                QVERIFY2(nodeFlops(g, n).has_value(), n.name.c_str());
            }
            QCOMPARE(matMuls, 6);
        }
        const double b = double(graphFlops(graphWithStaticShapes(before, unitInputShapes(before.graph))));
        const double a = double(graphFlops(graphWithStaticShapes(after, unitInputShapes(after.graph))));
        QVERIFY(b >= double(testing::kSymbolicAttentionFlops));  // the products, plus Softmax's
        QVERIFY2(std::abs(a / b - 1) < 0.03, qPrintable(QString("%1 vs %2").arg(a).arg(b)));
    }
};

QTEST_APPLESS_MAIN(TestFlops)
#include "tst_flops.moc"
