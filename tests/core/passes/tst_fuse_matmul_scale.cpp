// fuse-matmul-scale: attention's Transpose + MatMul + Div becomes one com.microsoft FusedMatMul
// with transB and alpha; transposes of other axes, tensor scales, shared values and integer
// products stay, each with its reason.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// softmax-free attention scores: MatMul(q, Transpose(k, [0, 1, 3, 2])) / 8, as PyTorch exports it.
Model attentionScores() {
    GraphBuilder b;
    auto q = b.input("q", DType::Float, {1, 2, 5, 8});
    auto k = b.input("k", DType::Float, {1, 2, 5, 8});
    auto kt = b.op("Transpose", {k}, {{"perm", std::vector<int64_t>{0, 1, 3, 2}}}, "k_t");
    auto scores = b.op("MatMul", {q, kt}, {}, "scores");
    b.output(b.op("Div", {scores, b.initializer("sqrt_d", Tensor::scalar(8.f))}, {}, "scale"));
    return withShapes(b.model());
}

} // namespace

class TestFuseMatMulScale : public QObject {
    Q_OBJECT
private slots:
    void foldsTheTransposeAndTheScaleOfAttention() {
        Model m = attentionScores();
        const CheckedPass out = runPassChecked(m, "fuse-matmul-scale");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& fused = firstOfType(m.graph, "FusedMatMul");
        QCOMPARE(fused.domain, std::string("com.microsoft"));
        QCOMPARE(fused.name, std::string("scores"));
        QCOMPARE(fused.attributes.getInt("transB", 0), int64_t(1));
        QCOMPARE(fused.attributes.getInt("transA", 1), int64_t(0));
        QCOMPARE(fused.attributes.getFloat("alpha", 0.f), 0.125f);
        QCOMPARE(m.graph.value(fused.input(1)).name, std::string("k"));
        QCOMPARE(m.graph.value(fused.output(0)).shape.toString(), std::string("[1,2,5,5]"));
        QCOMPARE(out.result.counter("numTransposesFolded"), int64_t(1));
        QCOMPARE(out.result.counter("numScalesFolded"), int64_t(1));
        QCOMPARE(out.result.domainsUsed.count("com.microsoft"), size_t(1));
        QCOMPARE(out.result.rewrites.size(), size_t(2));
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("folded Transpose 'k_t' of 'k' into MatMul 'scores': FusedMatMul reads it with transB = 1"));
        QCOMPARE(out.result.rewrites[1].sentence,
                 std::string("folded Div 'scale' by 'sqrt_d' into FusedMatMul 'scores': FusedMatMul with alpha = 0.125"));
        QVERIFY(m.graph.findValue("sqrt_d") == std::nullopt);  // the divisor went with the Div
    }

    void foldsScalesOnOperandsAndTransposedA() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3, 6, 4});
        auto y = b.input("y", DType::Float, {3, 6, 5});
        auto xt = b.op("Transpose", {x}, {{"perm", std::vector<int64_t>{0, 2, 1}}}, "x_t");
        auto ys = b.op("Mul", {b.initializer("two", Tensor::scalar(2.f)), y}, {}, "y_twice");
        b.output(b.op("MatMul", {xt, ys}, {}, "product"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-matmul-scale");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& fused = firstOfType(m.graph, "FusedMatMul");
        QCOMPARE(fused.attributes.getInt("transA", 0), int64_t(1));
        QCOMPARE(fused.attributes.getFloat("alpha", 0.f), 2.f);
        QCOMPARE(m.graph.value(fused.input(0)).name, std::string("x"));
        QCOMPARE(m.graph.value(fused.input(1)).name, std::string("y"));
    }

    /// A Gemm flips its own transA or transB for a transposed operand and keeps its other
    /// attributes; a Transpose read by another node too stays.
    void foldsATransposeIntoAGemm() {
        GraphBuilder b;
        auto a = b.input("a", DType::Float, {6, 4});
        auto at = b.op("Transpose", {a}, {}, "a_t");
        auto w = b.initializer("w", Tensor::floats({6, 3}, std::vector<float>(18, 0.25f)));
        auto wt = b.op("Transpose", {w}, {{"perm", std::vector<int64_t>{1, 0}}}, "w_t");
        b.output(b.op("Gemm", {at, wt, b.initializer("c", Tensor::floats({3}, {1, 2, 3}))},
                      {{"alpha", 0.5f}, {"transB", int64_t(1)}}, "gemm"));
        // transB = 1 on a transposed B: B itself, read with transB = 0.
        auto shared = b.op("Transpose", {b.input("s", DType::Float, {4, 6})}, {}, "s_t");
        b.output(b.op("Gemm", {b.input("z", DType::Float, {2, 6}), shared}, {}, "gemm2"));
        b.output(shared);
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-matmul-scale");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(countOps(m.graph, "Transpose"), 1);
        const Node& gemm = m.graph.node(*m.graph.findNode("gemm"));
        QCOMPARE(gemm.opType, std::string("Gemm"));
        QCOMPARE(m.graph.value(gemm.input(0)).name, std::string("a"));
        QCOMPARE(m.graph.value(gemm.input(1)).name, std::string("w"));
        QCOMPARE(gemm.attributes.getInt("transA", 0), int64_t(1));
        QCOMPARE(gemm.attributes.getInt("transB", 1), int64_t(0));
        QCOMPARE(gemm.attributes.getFloat("alpha", 0.f), 0.5f);
        QCOMPARE(out.result.counter("numTransposesFolded"), int64_t(2));
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("folded Transpose 'a_t' of 'a' into Gemm 'gemm': the Gemm reads it with transA = 1"));
        QVERIFY(declinedWith(out.result, "kept: the output of Transpose 's_t'"));
    }

    void keepsWhatDoesNotFit() {
        GraphBuilder b;
        auto q = b.input("q", DType::Float, {2, 5, 8});
        auto k = b.input("k", DType::Float, {5, 2, 8});
        // Moves the batch axis too: not a swap of the last two axes.
        auto moved = b.op("Transpose", {k}, {{"perm", std::vector<int64_t>{1, 2, 0}}}, "moved");
        auto p1 = b.op("MatMul", {q, moved}, {}, "p1");
        // Scaled by a tensor, not one number.
        b.output(b.op("Mul", {p1, b.initializer("per_column", seeded({5}, 1))}, {}, "by_tensor"));
        // The divisor is the product.
        auto v = b.input("v", DType::Float, {2, 8, 3});
        auto p2 = b.op("MatMul", {q, v}, {}, "p2");
        b.output(b.op("Div", {b.initializer("one", Tensor::scalar(1.f)), p2}, {}, "inverse"));
        // The product is read twice.
        auto p3 = b.op("MatMul", {q, v}, {}, "p3");
        b.output(b.op("Div", {p3, b.initializer("four", Tensor::scalar(4.f))}, {}, "quarter"));
        b.output(b.op("Relu", {p3}));
        // A scalar of higher rank would broadcast the product up.
        auto p4 = b.op("MatMul", {q, v}, {}, "p4");
        b.output(b.op("Mul", {p4, b.initializer("rank4", Tensor::floats({1, 1, 1, 1}, {3.f}))}, {}, "grows"));
        // Integer products stay.
        auto i = b.initializer("i", Tensor::int64s({2, 3}, {1, 2, 3, 4, 5, 6}));
        auto j = b.initializer("j", Tensor::int64s({4, 3}, {1, 0, 2, 0, 1, 0, 3, 1, 1, 2, 0, 1}));
        auto it = b.op("Transpose", {j}, {{"perm", std::vector<int64_t>{1, 0}}}, "j_t");
        b.output(b.op("MatMul", {i, it}, {}, "integers"));
        Model m = withShapes(b.model());
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-matmul-scale");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.nodeCount(), before);
        QCOMPARE(countOps(m.graph, "FusedMatMul"), 0);
        QVERIFY(declinedWith(out.result, "Transpose 'moved' does more than swap the last two axes"));
        QVERIFY(declinedWith(out.result, "'per_column' [5] is not one number"));
        QVERIFY(declinedWith(out.result, "MatMul 'p2' is the divisor of Div 'inverse'"));
        QVERIFY(declinedWith(out.result, "the output of MatMul 'p3' is read by 2 nodes"));
        QVERIFY(declinedWith(out.result, "'rank4' has more axes than the product"));
        QVERIFY(declinedWith(out.result, "MatMul 'integers' is not a product of float32 or float64 tensors"));
    }

    void portableExportPutsTheStandardOpsBack() {
        Model m = attentionScores();
        const auto feeds = seededFeeds(m.graph);
        const Tensor want = runReference(m.graph, m.opsetVersion(), feeds).at(0);
        runPassChecked(m, "fuse-matmul-scale");
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(1));
        QCOMPARE(countOps(m.graph, "FusedMatMul"), 0);
        QCOMPARE(countOps(m.graph, "Transpose"), 1);
        QCOMPARE(countOps(m.graph, "MatMul"), 1);
        QCOMPARE(countOps(m.graph, "Mul"), 1);
        const Tensor got = runReference(m.graph, m.opsetVersion(), feeds).at(0);
        const TensorComparison same = compareTensors(got, want, 0.0, 1e-5);
        QVERIFY2(same.matches, same.mismatch.c_str());
        // Optimizing the portable model again fuses it again.
        const CheckedPass again = runPassChecked(m, "fuse-matmul-scale");
        QCOMPARE(countOps(m.graph, "FusedMatMul"), 1);
        QVERIFY2(again.verification.passed, again.verification.failure.c_str());
    }
};

QTEST_APPLESS_MAIN(TestFuseMatMulScale)
#include "tst_fuse_matmul_scale.moc"
