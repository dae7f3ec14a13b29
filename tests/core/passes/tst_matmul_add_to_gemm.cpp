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
        QCOMPARE(m.graph.value(gemm.input(2)).name, std::string("b2"));
    }

    void flattensRank3ProductsAroundOneGemm() {
        GraphBuilder b;
        auto t = b.input("t", DType::Float, {2, 5, 8});
        b.output(b.op("Add", {b.op("MatMul", {t, b.initializer("w", seeded({8, 4}, 1))}, {}, "mm3"),
                              b.initializer("bias", seeded({4}, 2))}, {}, "add3"));
        // [1, 1, N]: still one value per feature.
        b.output(b.op("Add", {b.initializer("b3d", seeded({1, 1, 4}, 3)),
                              b.op("MatMul", {t, b.initializer("w2", seeded({8, 4}, 4))}, {}, "mm3b")}, {}, "add3b"));
        // One value per row: it would not survive flattening.
        b.output(b.op("Add", {b.op("MatMul", {t, b.initializer("w3", seeded({8, 4}, 5))}, {}, "mm_rows"),
                              b.initializer("per_row", seeded({5, 1}, 6))}, {}, "add_rows"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "matmul-add-to-gemm");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(out.result.counter("numFused"), int64_t(2));
        QCOMPARE(countOps(m.graph, "Gemm"), 2);
        QCOMPARE(countOps(m.graph, "Reshape"), 4);
        QCOMPARE(countOps(m.graph, "MatMul"), 1);
        QCOMPARE(countOps(m.graph, "Add"), 1);
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("fused MatMul 'mm3' and Add 'add3' into one Gemm: Y = A * B + 'bias', with A flattened to [10,8] around it"));
        const Node& gemm = m.graph.node(*m.graph.findNode("mm3"));
        QCOMPARE(gemm.opType, std::string("Gemm"));
        QCOMPARE(m.graph.value(gemm.output(0)).shape.toString(), std::string("[10,4]"));
        QCOMPARE(m.graph.constantValue(m.graph.node(*m.graph.findNode("mm3b")).input(2))->dims(), (std::vector<int64_t>{4}));
        // The graph outputs keep their names and shapes.
        QCOMPARE(m.graph.node(*m.graph.findNode("add3")).opType, std::string("Reshape"));
        QCOMPARE(m.graph.value(m.graph.outputs()[0]).shape.toString(), std::string("[2,5,4]"));
        QVERIFY(declinedWith(out.result, "is not one value per output feature"));
    }

    void keepsGrowingBiasesSharedProductsAndDynamicRank3() {
        GraphBuilder b;
        auto t = b.input("t", DType::Float, Shape({Dim("batch"), Dim(5), Dim(8)}));
        b.output(b.op("Add", {b.op("MatMul", {t, b.initializer("w", seeded({8, 4}, 1))}, {}, "mm3"),
                              b.initializer("bias", seeded({4}, 2))}, {}, "add3"));
        auto a = b.input("a", DType::Float, {5, 8});
        b.output(b.op("Add", {b.op("MatMul", {a, b.initializer("w2", seeded({8, 4}, 3))}, {}, "mm_grow"),
                              b.initializer("big", seeded({2, 5, 4}, 4))}, {}, "grow"));
        auto shared = b.op("MatMul", {a, b.initializer("w3", seeded({8, 4}, 5))}, {}, "mm_shared");
        b.output(b.op("Add", {shared, b.initializer("b3", seeded({4}, 6))}, {}, "add_shared"));
        b.output(b.op("Relu", {shared}));
        Model m = withShapes(b.model());
        PassContext context = contextFor(m);  // a symbolic batch: run symbolically, not numerically
        const PassResult out = runPass(*makePipeline("matmul-add-to-gemm").front(), m, context);
        QCOMPARE(countOps(m.graph, "Gemm"), 0);
        QCOMPARE(countOps(m.graph, "MatMul"), 3);
        QVERIFY(declinedWith(out, "kept: the rank-3 input 't' has no static shape to flatten to 2-D for a Gemm"));
        QVERIFY(declinedWith(out, "does not broadcast to the product"));
        QVERIFY(declinedWith(out, "is read by 2 nodes"));
    }
};

QTEST_GUILESS_MAIN(TestMatMulAddToGemm)
#include "tst_matmul_add_to_gemm.moc"
