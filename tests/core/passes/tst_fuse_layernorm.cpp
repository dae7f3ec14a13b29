// fuse-layernorm: PyTorch's decomposed LayerNorm becomes one LayerNormalization (with and without
// gamma/beta, opset 18 axes inputs, before opset 17), declines with its reasons, the transformer
// fixture, and the --portable lowering below opset 17.
#include "core/graph/builder.h"
#include "core/onnx/loader.h"
#include "core/passes/graph_query.h"
#include "core/passes/portable.h"
#include "support/pass_harness.h"

#include <QtTest>

#include <algorithm>


using namespace graphlens;
using namespace graphlens::testing;

namespace {

struct LayerNormSpec {
    std::vector<int64_t> axes{-1};
    bool axesAsInput = false;  ///< opset 18
    bool squareByMul = false;  ///< d * d instead of Pow(d, 2)
    bool affine = true;        ///< * gamma + beta
    bool affineFromConstantNodes = false;  ///< gamma and beta as Constant nodes (paddle2onnx), not initializers
};

/// The nine nodes PyTorch exports for nn.LayerNorm over the last axis of `x` (width c).
ValueId decomposedLayerNorm(GraphBuilder& b, ValueId x, int64_t c, const LayerNormSpec& spec = {}) {
    auto reduce = [&](ValueId v) {
        if (spec.axesAsInput) return b.op("ReduceMean", {v, b.constant(Tensor::int64s({int64_t(spec.axes.size())}, spec.axes))});
        return b.op("ReduceMean", {v}, {{"axes", spec.axes}});
    };
    auto d = b.op("Sub", {x, reduce(x)});
    auto square = spec.squareByMul ? b.op("Mul", {d, d}) : b.op("Pow", {d, b.constant(Tensor::scalar(2.f))});
    auto deviation = b.op("Sqrt", {b.op("Add", {reduce(square), b.constant(Tensor::scalar(1e-5f))})});
    auto y = b.op("Div", {d, deviation});
    if (!spec.affine) return y;
    if (spec.affineFromConstantNodes) {
        y = b.op("Mul", {y, b.constant(seeded({c}, 11), "gamma")});
        return b.op("Add", {y, b.constant(seeded({c}, 12), "beta")});
    }
    y = b.op("Mul", {y, b.initializer("gamma", seeded({c}, 11))});
    return b.op("Add", {y, b.initializer("beta", seeded({c}, 12))});
}

const std::string kTransformer = GRAPHLENS_SOURCE_DIR "/tests/fixtures/models/transformer_encoder/model.onnx";

} // namespace

class TestFuseLayerNorm : public QObject {
    Q_OBJECT
private slots:
    void fusesTheDecomposedLayerNorm() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 6, 16});
        b.output(b.op("Relu", {decomposedLayerNorm(b, x, 16)}));
        Model m = withShapes(b.model(17));
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(m.graph.nodeCount(), size_t(2));  // the Constants went too
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 1);
        QCOMPARE(out.result.counter("numFused"), int64_t(1));
        for (NodeId id : m.graph.nodeIds()) {
            const Node& n = m.graph.node(id);
            if (n.opType != "LayerNormalization") continue;
            QCOMPARE(n.inputs().size(), size_t(3));
            QCOMPARE(n.attributes.getInt("axis", 0), int64_t(-1));
            QCOMPARE(n.attributes.getFloat("epsilon", 0), 1e-5f);
            QCOMPARE(m.graph.value(n.input(1)).name, std::string("gamma"));
        }
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError < 1e-4);
        QVERIFY(out.result.notes.empty());
    }

    /// paddle2onnx writes gamma and beta as Constant nodes of shape [c]: they go with the fused
    /// nodes, so the LayerNormalization reads copies of them (PP-OCRv4's recognizer once read a
    /// value nothing produced any more).
    void fusesGammaAndBetaFromConstantNodes() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 6, 16});
        LayerNormSpec spec;
        spec.affineFromConstantNodes = true;
        b.output(decomposedLayerNorm(b, x, 16, spec));
        Model m = withShapes(b.model(17));
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& ln = m.graph.node(m.graph.nodeIds()[0]);
        QCOMPARE(ln.opType, std::string("LayerNormalization"));
        QCOMPARE(ln.inputs().size(), size_t(3));
        for (size_t i : {size_t(1), size_t(2)}) {
            const Tensor* t = m.graph.constantValue(ln.input(i));
            QVERIFY(t);
            QCOMPARE(t->dims(), std::vector<int64_t>{16});
            const Tensor want = seeded({16}, i == 1 ? 11 : 12);
            QVERIFY(std::equal(t->span<float>().begin(), t->span<float>().end(), want.span<float>().begin()));
        }
        QVERIFY(out.verification.passed);
    }

    void fusesOpset18AxesInputsAndMakesAScaleOfOnes() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4, 24});
        b.output(decomposedLayerNorm(b, x, 24, {{1}, true, true, false}));
        Model m = withShapes(b.model(18));
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& ln = m.graph.node(m.graph.nodeIds()[0]);
        QCOMPARE(ln.opType, std::string("LayerNormalization"));
        QCOMPARE(ln.inputs().size(), size_t(2));  // no bias: zero
        QVERIFY(allElementsEqual(*m.graph.constantValue(ln.input(1)), 1.0));
        QVERIFY(out.verification.passed);
    }

    void fusesBeforeOpset17AndTheExportLowersItBack() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3, 32});
        b.output(decomposedLayerNorm(b, x, 32));
        Model m = withShapes(b.model(14));
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 1);
        QCOMPARE(out.result.notes.size(), size_t(1));
        QVERIFY(out.result.notes[0].find("opset 14") != std::string::npos);
        QVERIFY(out.verification.passed);
        QCOMPARE(lowerFusedOps(m, Lowering::ForOnnxRuntime), size_t(0));  // ONNX Runtime runs it
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(1));
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 0);
        QCOMPARE(countOps(m.graph, "ReduceMean"), 2);
        const CheckedPass again = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QVERIFY(again.verification.passed);
    }

    void shapeInferenceSeesThroughLayerNormalizationBeforeOpset17() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3, 32});
        b.output(b.op("Relu", {decomposedLayerNorm(b, x, 32)}, {}, "after"));
        Model m = withShapes(b.model(13));
        runPassChecked(m, "fuse-layernorm");
        inferShapesForInputs(m, {{"x", {5, 32}}});  // as a plan does for other input shapes
        QCOMPARE(m.graph.value(m.graph.outputs()[0]).shape, Shape({5, 32}));
    }

    void keepsTheOpAtOpset17WhenExportingPortably() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3, 32});
        b.output(decomposedLayerNorm(b, x, 32));
        Model m = withShapes(b.model(17));
        runPassChecked(m, "fuse-layernorm");
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(0));
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 1);
    }

    void declinesAnotherAxisAndSharedIntermediates() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 8, 16});
        auto y = b.input("y", DType::Float, {2, 8, 16});
        b.output(decomposedLayerNorm(b, x, 16, {{1}, false, false, false}));  // over axis 1
        // x - mean also feeds another node
        auto mean = b.op("ReduceMean", {y}, {{"axes", std::vector<int64_t>{-1}}});
        auto d = b.op("Sub", {y, mean});
        auto variance = b.op("ReduceMean", {b.op("Pow", {d, b.constant(Tensor::scalar(2.f))})}, {{"axes", std::vector<int64_t>{-1}}});
        b.output(b.op("Div", {d, b.op("Sqrt", {b.op("Add", {variance, b.constant(Tensor::scalar(1e-5f))})})}));
        b.output(b.op("Abs", {d}));
        Model m = withShapes(b.model(17));
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(m.graph.nodeCount(), before);
        QVERIFY(declinedWith(out.result, "does not reduce the last axis alone"));
        QVERIFY(declinedWith(out.result, "(x - mean) is also read elsewhere"));
    }

    void fusesBothLayerNormsOfTheTransformerFixture() {
        Model m = loadModel(kTransformer);
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-layernorm");
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 2);
        QCOMPARE(countOps(m.graph, "ReduceMean"), 0);
        QCOMPARE(m.graph.nodeCount(), before - 2 * (9 + 2) + 2);  // 9 nodes and 2 Constants each
        QVERIFY(out.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestFuseLayerNorm)
#include "tst_fuse_layernorm.moc"
