// eliminate-noops: what it removes, what it merges, and where it must decline.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestEliminateNoOps : public QObject {
    Q_OBJECT
private slots:
    void removesIdentityDropoutAndNoOpShapeOps() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto a = b.op("Identity", {x}, {}, "id");
        auto d = b.op("Dropout", {a}, {{"ratio", 0.5f}}, "drop");
        auto c = b.op("Cast", {d}, {{"to", int64_t(DType::Float)}}, "cast");
        auto r = b.op("Reshape", {c, b.initializer("shape", Tensor::int64s({3}, {2, 3, 4}))}, {}, "reshape");
        auto t = b.op("Transpose", {r}, {{"perm", std::vector<int64_t>{0, 1, 2}}}, "transpose");
        auto s = b.op("Slice", {t, b.initializer("st", Tensor::int64s({1}, {0})), b.initializer("en", Tensor::int64s({1}, {100})),
                                b.initializer("ax", Tensor::int64s({1}, {2}))}, {}, "slice");
        b.output(b.op("Relu", {s}, {}, "relu"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops");
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        QCOMPARE(countOps(m.graph, "Relu"), 1);
        QCOMPARE(out.result.counter("numRemoved"), int64_t(6));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
        QCOMPARE(m.graph.node(m.graph.nodeIds()[0]).input(0), m.graph.inputs()[0]);
    }

    void removesNeutralArithmeticOnEitherSide() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3});
        auto zero = b.initializer("zero", Tensor::floats({1, 3}, {0, 0, 0}));
        auto one = b.constant(Tensor::scalar(1.0f));
        auto v = b.op("Add", {zero, x}, {}, "add0");
        v = b.op("Mul", {v, one}, {}, "mul1");
        v = b.op("Div", {v, one}, {}, "div1");
        v = b.op("Sub", {v, zero}, {}, "sub0");
        b.output(b.op("Tanh", {v}, {}, "tanh"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops");
        QCOMPARE(countOps(m.graph, "Tanh"), 1);
        QCOMPARE(countOps(m.graph, "Add") + countOps(m.graph, "Mul") + countOps(m.graph, "Div") + countOps(m.graph, "Sub"), 0);
        QVERIFY(out.verification.passed);
    }

    void declinesWhereItMust() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 3});
        // 0 of shape [2,3] broadcasts x from [1,3] to [2,3]: not a no-op.
        auto grown = b.op("Add", {x, b.initializer("zeros", Tensor::floats({2, 3}, std::vector<float>(6, 0)))}, {}, "grow");
        // Dropout in training mode drops values.
        auto train = b.op("Dropout", {grown, b.initializer("ratio", Tensor::scalar(0.5f)),
                                      b.initializer("training", Tensor::fromVector(DType::Bool, {}, std::vector<uint8_t>{1}))},
                          {}, "train_drop");
        // Sub with 0 on the left is -x, not x.
        auto neg = b.op("Sub", {b.initializer("z", Tensor::scalar(0.0f)), train}, {}, "negate");
        b.output(neg);
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops");
        QCOMPARE(m.graph.nodeCount(), size_t(3));
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "broadcast"));
        QVERIFY(declinedWith(out.result, "training_mode"));
    }

    void keepsAnIdentityBetweenGraphInputAndOutput() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        b.output(b.op("Identity", {x}, {}, "id"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops");
        QCOMPARE(countOps(m.graph, "Identity"), 1);
        QVERIFY(declinedWith(out.result, "graph output"));
    }

    void mergesStackedClamps() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 8});
        auto r = b.op("Relu", {b.op("Relu", {x}, {}, "r1")}, {}, "r2");
        auto c = b.op("Clip", {r, b.initializer("lo", Tensor::scalar(-1.0f)), b.initializer("hi", Tensor::scalar(6.0f))}, {}, "clip6");
        auto c2 = b.op("Clip", {c, b.initializer("lo2", Tensor::scalar(0.5f)), b.initializer("hi2", Tensor::scalar(8.0f))}, {}, "clip2");
        b.output(c2);
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops", {}, {});
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& clip = m.graph.node(m.graph.nodeIds().back());
        QCOMPARE(clip.opType, std::string("Clip"));
        QCOMPARE(m.graph.constantValue(clip.input(1))->span<float>()[0], 0.5f);
        QCOMPARE(m.graph.constantValue(clip.input(2))->span<float>()[0], 6.0f);
        QCOMPARE(out.result.counter("numMerged"), int64_t(3));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void keepsAClampWhoseInnerValueIsReadElsewhere() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        auto r1 = b.op("Relu", {x}, {}, "r1");
        b.output(b.op("Relu", {r1}, {}, "r2"));
        b.output(b.op("Neg", {r1}, {}, "neg"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-noops");
        QCOMPARE(countOps(m.graph, "Relu"), 2);
        QVERIFY(declinedWith(out.result, "read elsewhere"));
    }
};

QTEST_GUILESS_MAIN(TestEliminateNoOps)
#include "tst_eliminate_noops.moc"
