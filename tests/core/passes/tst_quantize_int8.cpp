// quantize-int8-weights: per-output-channel symmetric int8 weights behind DequantizeLinear for
// Conv, MatMul and Gemm (transB), the error it reports, and where it declines.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QtTest>

#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

VerifyOptions lossyTolerance() {
    VerifyOptions v;
    v.rtol = 0.05;
    v.atol = 0.02;
    return v;
}

/// The DequantizeLinear feeding input 1 of the node named `name`.
const Node* dequantizerOf(const Graph& g, const std::string& name) {
    const Node& n = g.node(*g.findNode(name));
    const NodeId p = g.value(n.input(1)).producer();
    return p == kNoId ? nullptr : &g.node(p);
}

/// x [1, 8, 10, 10] -> Conv(16x8x3x3) -> GlobalAveragePool -> Flatten -> MatMul(16x64) -> Gemm(transB, 32x64)
Model smallNetwork(int64_t opset) {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, 8, 10, 10});
    auto c = b.op("Conv", {x, b.initializer("conv.w", seeded({16, 8, 3, 3}, 1, -0.2f, 0.2f)), b.initializer("conv.b", seeded({16}, 2, -0.2f, 0.2f))},
                  {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "conv");
    auto small = b.op("Conv", {c, b.initializer("small.w", seeded({16, 16, 1, 1}, 3, -0.2f, 0.2f))}, {}, "small");  // 256 values
    auto f = b.op("Flatten", {b.op("GlobalAveragePool", {small})});
    auto mm = b.op("MatMul", {f, b.initializer("fc.w", seeded({16, 64}, 4, -0.2f, 0.2f))}, {}, "fc");
    b.output(b.op("Gemm", {mm, b.initializer("head.w", seeded({32, 64}, 5, -0.2f, 0.2f)), b.initializer("head.b", seeded({32}, 6, -0.2f, 0.2f))},
                  {{"transB", int64_t(1)}}, "head"));
    return withShapes(b.model(opset));
}

} // namespace

class TestQuantizeInt8 : public QObject {
    Q_OBJECT
private slots:
    void quantizesEachWeightPerOutputChannel() {
        Model m = smallNetwork(13);
        const Tensor original = *m.graph.constantValue(*m.graph.findValue("conv.w"));
        const CheckedPass out = runPassChecked(m, "quantize-int8-weights", {}, lossyTolerance());
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 3);
        QCOMPARE(out.result.counter("numQuantized"), int64_t(3));
        QCOMPARE(dequantizerOf(m.graph, "conv")->attributes.getInt("axis", -1), int64_t(0));
        QCOMPARE(dequantizerOf(m.graph, "fc")->attributes.getInt("axis", -1), int64_t(1));
        QCOMPARE(dequantizerOf(m.graph, "head")->attributes.getInt("axis", -1), int64_t(0));  // transB: [N, K]
        QVERIFY(dequantizerOf(m.graph, "small") == nullptr);
        QVERIFY(declinedWith(out.result, "has 256 values, fewer than 1024"));
        QVERIFY(!m.graph.findValue("conv.w"));  // the float weight is gone

        // scale_k = max|W_k| / 127 and q = round(W / scale_k), so |W - q * scale_k| <= scale_k / 2
        const Node* dq = dequantizerOf(m.graph, "conv");
        const Tensor& q = *m.graph.constantValue(dq->input(0));
        const Tensor& scale = *m.graph.constantValue(dq->input(1));
        QCOMPARE(q.dtype(), DType::Int8);
        QCOMPARE(m.graph.constantValue(dq->input(2))->dtype(), DType::Int8);
        QCOMPARE(scale.numel(), int64_t(16));
        const auto w = original.span<float>();
        const int64_t perChannel = 8 * 3 * 3;
        for (int64_t k = 0; k < 16; ++k) {
            float largest = 0;
            for (int64_t i = 0; i < perChannel; ++i) largest = std::max(largest, std::fabs(w[size_t(k * perChannel + i)]));
            QCOMPARE(scale.span<float>()[size_t(k)], largest / 127.f);
            for (int64_t i = 0; i < perChannel; ++i) {
                const size_t at = size_t(k * perChannel + i);
                QVERIFY(std::fabs(w[at] - float(q.span<int8_t>()[at]) * scale.span<float>()[size_t(k)]) <= largest / 127.f / 2 * 1.0001f);
            }
        }
        QCOMPARE(out.result.notes.size(), size_t(1));
        QVERIFY(out.result.notes[0].find("max abs weight error") != std::string::npos);
        QVERIFY(out.result.notes[0].find("bytes saved") != std::string::npos);
        QCOMPARE(out.result.counter("bytesSaved"), int64_t((1152 + 1024 + 2048) * 3 - (16 + 64 + 32) * 5));
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError > 0);  // lossy, and --verify shows it
    }

    void theCpuPlanDequantizesConstantWeightsOnce() {
        Model m = smallNetwork(13);
        runPassChecked(m, "quantize-int8-weights", {}, lossyTolerance());
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 3);
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(plan->nodes().size(), size_t(6));  // Conv, Conv, GlobalAveragePool, Flatten, MatMul, Gemm
        const auto onednn = std::count_if(plan->nodes().begin(), plan->nodes().end(),
                                          [](const PlannedNode& p) { return p.kernel.rfind("onednn:", 0) == 0; });
        QVERIFY(onednn >= 3);  // the two convolutions and the Gemm see float32 weights
        CompileOptions reference;
        reference.referenceOnly = true;
        const auto feeds = seededFeeds(m.graph);
        const auto expected = makeCpuBackend()->compile(m, reference)->run(feeds);
        const auto actual = plan->run(feeds);
        const TensorComparison c = compareTensors(actual.at(0), expected.at(0), 1e-5, 1e-6);
        QVERIFY2(c.matches, c.mismatch.c_str());
    }

    void weightsOnTheInt8GridComeBackExactly() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 32});
        std::vector<float> w(32 * 48);  // w[r][j] = q * s_j with a q of 127 in every column
        for (size_t i = 0; i < w.size(); ++i) {
            const int q = i < 48 ? 127 : int(i % 255) - 127;
            w[i] = float(q) * float(i % 48 + 1) / 256.f;
        }
        b.output(b.op("MatMul", {x, b.initializer("w", Tensor::floats({32, 48}, w))}));
        Model m = withShapes(b.model(13));
        const CheckedPass out = runPassChecked(m, "quantize-int8-weights");
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 1);
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError < 1e-5);
    }

    void declinesBeforeOpset13AndSharedWeights() {
        Model old = smallNetwork(12);
        const CheckedPass before13 = runPassChecked(old, "quantize-int8-weights");
        QCOMPARE(countOps(old.graph, "DequantizeLinear"), 0);
        QVERIFY(declinedWith(before13.result, "needs opset 13, and the model imports opset 12"));

        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 64});
        auto w = b.initializer("tied", seeded({64, 64}, 9, -0.2f, 0.2f));
        b.output(b.op("MatMul", {b.op("MatMul", {x, w}), w}));
        Model m = withShapes(b.model(13));
        const CheckedPass shared = runPassChecked(m, "quantize-int8-weights");
        QCOMPARE(countOps(m.graph, "DequantizeLinear"), 0);
        QVERIFY(declinedWith(shared.result, "is read by other nodes too"));
        QVERIFY(shared.result.notes.empty());
    }
};

QTEST_GUILESS_MAIN(TestQuantizeInt8)
#include "tst_quantize_int8.moc"
