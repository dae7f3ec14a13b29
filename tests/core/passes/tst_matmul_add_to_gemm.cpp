// matmul-add-to-gemm: MatMul + bias on matrices becomes one Gemm; rank-3 products, growing
// biases and shared products stay.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestMatMulAddToGemm : public QObject {
    Q_OBJECT
private slots:
    void fusesMatrixProductAndBias() {
        GraphBuilder b;
        auto a = b.input("a", DType::Float, {4, 8});
        auto h = b.op("Add", {b.op("MatMul", {a, b.initializer("w1", seeded({8, 16}, 1))}, {}, "mm1"),
                              b.initializer("b1", seeded({16}, 2))}, {}, "add1");
        // Bias on the left, one value per row.
        auto y = b.op("Add", {b.initializer("b2", seeded({4, 1}, 3)),
                              b.op("MatMul", {b.op("Relu", {h}), b.initializer("w2", seeded({16, 3}, 4))}, {}, "mm2")},
                      {}, "add2");
        b.output(y);
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "matmul-add-to-gemm");
        QCOMPARE(countOps(m.graph, "Gemm"), 2);
        QCOMPARE(countOps(m.graph, "MatMul") + countOps(m.graph, "Add"), 0);
        QCOMPARE(out.result.counter("numFused"), int64_t(2));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("fused MatMul 'mm1' and Add 'add1' into one Gemm: Y = A * B + 'b1'"));
        const Node& gemm = m.graph.node(*m.graph.findNode("mm2"));
        QCOMPARE(m.graph.value(gemm.inputs[2]).name, std::string("b2"));
    }

    void keepsRank3ProductsGrowingBiasesAndSharedProducts() {
        GraphBuilder b;
        auto t = b.input("t", DType::Float, {2, 5, 8});
        b.output(b.op("Add", {b.op("MatMul", {t, b.initializer("w", seeded({8, 4}, 1))}, {}, "mm3"),
                              b.initializer("bias", seeded({4}, 2))}, {}, "add3"));
        auto a = b.input("a", DType::Float, {5, 8});
        b.output(b.op("Add", {b.op("MatMul", {a, b.initializer("w2", seeded({8, 4}, 3))}, {}, "mm_grow"),
                              b.initializer("big", seeded({2, 5, 4}, 4))}, {}, "grow"));
        auto shared = b.op("MatMul", {a, b.initializer("w3", seeded({8, 4}, 5))}, {}, "mm_shared");
        b.output(b.op("Add", {shared, b.initializer("b3", seeded({4}, 6))}, {}, "add_shared"));
        b.output(b.op("Relu", {shared}));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "matmul-add-to-gemm");
        QCOMPARE(countOps(m.graph, "Gemm"), 0);
        QCOMPARE(countOps(m.graph, "MatMul"), 3);
        QVERIFY(declinedWith(out.result, "kept: MatMul input has rank 3; Gemm takes 2-D"));
        QVERIFY(declinedWith(out.result, "does not broadcast to the product"));
        QVERIFY(declinedWith(out.result, "is read by 2 nodes"));
    }
};

QTEST_GUILESS_MAIN(TestMatMulAddToGemm)
#include "tst_matmul_add_to_gemm.moc"
