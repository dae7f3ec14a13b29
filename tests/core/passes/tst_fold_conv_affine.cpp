// fold-scale-into-conv: per-channel constant Mul/Div/Add/Sub after a Conv, Gemm or MatMul folded
// into its weights and bias, and the constants that must stay.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

} // namespace

class TestFoldScaleIntoConv : public QObject {
    Q_OBJECT
private slots:
    void foldsPerChannelScaleAndShiftIntoConv() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 3, 6, 6});
        auto c = b.op("Conv", {x, b.initializer("w", seeded({4, 3, 3, 3}, 1))}, {}, "conv");
        auto scaled = b.op("Mul", {b.initializer("s", seeded({1, 4, 1, 1}, 2, 0.5f, 2.0f)), c}, {}, "scale");
        auto shifted = b.op("Add", {scaled, b.initializer("t", seeded({4, 1, 1}, 3))}, {}, "shift");
        auto halved = b.op("Div", {shifted, b.initializer("two", Tensor::scalar(2.0f))}, {}, "halve");
        b.output(b.op("Sub", {b.initializer("one", Tensor::scalar(1.0f)), halved}, {}, "flip"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-scale-into-conv");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QCOMPARE(countOps(m.graph, "Conv"), 1);
        QCOMPARE(out.result.counter("numFolded"), int64_t(4));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("folded Mul 'scale' (c * y, c = 's') into Conv 'conv'"));
        QCOMPARE(m.graph.node(m.graph.nodeIds()[0]).inputs().size(), size_t(3));  // a bias appeared
    }

    void foldsIntoGemmAndScalesMatMulColumns() {
        GraphBuilder b;
        auto a = b.input("a", DType::Float, {2, 5});
        auto g = b.op("Gemm", {a, b.initializer("gb", seeded({5, 3}, 1)), b.initializer("gc", seeded({1, 3}, 2))},
                      {{"beta", 0.5f}}, "gemm");
        auto g2 = b.op("Sub", {b.op("Mul", {g, b.initializer("gs", seeded({3}, 3))}, {}, "gmul"),
                               b.initializer("gt", seeded({1, 3}, 4))}, {}, "gsub");
        auto mm = b.op("MatMul", {g2, b.initializer("mb", seeded({3, 4}, 5))}, {}, "mm");
        auto mmScaled = b.op("Mul", {mm, b.initializer("ms", seeded({4}, 6))}, {}, "mscale");
        b.output(b.op("Add", {mmScaled, b.initializer("mt", seeded({4}, 7))}, {}, "madd"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-scale-into-conv");
        QCOMPARE(countOps(m.graph, "Gemm"), 1);
        QCOMPARE(countOps(m.graph, "MatMul"), 1);
        QCOMPARE(countOps(m.graph, "Mul") + countOps(m.graph, "Sub"), 0);
        QCOMPARE(countOps(m.graph, "Add"), 1);  // MatMul + Add is matmul-add-to-gemm's
        QCOMPARE(out.result.counter("numFolded"), int64_t(3));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
    }

    void declinesConstantsThatAreNotPerChannel() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto c1 = b.op("Conv", {x, b.initializer("w1", seeded({2, 2, 1, 1}, 1))}, {}, "conv1");
        b.output(b.op("Mul", {c1, b.initializer("spatial", seeded({1, 1, 4, 4}, 2))}, {}, "spatial_mul"));
        auto c2 = b.op("Conv", {x, b.initializer("w2", seeded({2, 2, 1, 1}, 3))}, {}, "conv2");
        b.output(b.op("Add", {c2, b.initializer("bigger", seeded({3, 1, 2, 1, 1}, 4))}, {}, "grow"));
        auto c3 = b.op("Conv", {x, b.initializer("w3", seeded({2, 2, 1, 1}, 5))}, {}, "conv3");
        b.output(b.op("Div", {c3, b.initializer("zero", Tensor::floats({1, 2, 1, 1}, {1, 0}))}, {}, "divide"));
        auto c4 = b.op("Conv", {x, b.initializer("w4", seeded({2, 2, 1, 1}, 6))}, {}, "conv4");
        b.output(b.op("Mul", {c4, b.initializer("s4", Tensor::scalar(3.0f))}, {}, "twice_read"));
        b.output(b.op("Relu", {c4}));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fold-scale-into-conv");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QCOMPARE(countOps(m.graph, "Conv"), 4);
        QVERIFY(declinedWith(out.result, "does not broadcast along the output channels only (it has 4 values along axis 2)"));
        QVERIFY(declinedWith(out.result, "has more axes than the output"));
        QVERIFY(declinedWith(out.result, "has a zero"));
        QVERIFY(declinedWith(out.result, "the output of Conv 'conv4' is read by 2 nodes"));
    }
};

QTEST_GUILESS_MAIN(TestFoldScaleIntoConv)
#include "tst_fold_conv_affine.moc"
