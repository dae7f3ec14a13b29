// merge-duplicate-initializers: equal type, dims and bytes merge; anything else stays, and so do
// initializers that are graph inputs.
#include "core/graph/builder.h"
#include "support/kernel_harness.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestDuplicateInitializers : public QObject {
    Q_OBJECT
private slots:
    void mergesEqualTensorsOnly() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 4});
        auto w1 = b.initializer("w1", iota({4, 4}));
        auto w2 = b.initializer("w2", iota({4, 4}));           // a copy of w1
        auto w3 = b.initializer("w3", iota({2, 8}));           // same bytes, other dims
        auto w4 = b.initializer("w4", Tensor::fromBytes(DType::Int32, {4, 4}, std::string(
                                          reinterpret_cast<const char*>(iota({4, 4}).data()), 64)));  // other type
        auto a = b.op("MatMul", {x, w1}, {}, "mm1");
        auto c = b.op("MatMul", {x, w2}, {}, "mm2");
        auto flat = b.op("Reshape", {w3, b.initializer("s", Tensor::int64s({2}, {4, 4}))}, {}, "w3_square");
        auto d = b.op("MatMul", {x, flat}, {}, "mm3");
        auto e = b.op("Cast", {w4}, {{"to", int64_t(DType::Float)}}, "w4_f");
        b.output(b.op("Sum", {a, c, d, b.op("MatMul", {x, e}, {}, "mm4")}, {}, "sum"));
        Model m = withShapes(b.model());
        const size_t initializersBefore = m.graph.initializers().size();
        const CheckedPass out = runPassChecked(m, "merge-duplicate-initializers");
        QCOMPARE(m.graph.initializers().size(), initializersBefore - 1);
        QVERIFY(!m.graph.findValue("w2"));
        QCOMPARE(m.graph.node(*m.graph.findNode("mm2")).input(1), *m.graph.findValue("w1"));
        QCOMPARE(out.result.counter("numMerged"), int64_t(1));
        QCOMPARE(out.result.counter("bytesSaved"), int64_t(64));
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("merged the initializer 'w2' into 'w1': same type, dims [4,4] and 64 bytes"));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void largeTensorsAlikeInTheSampledBytesMergeOnlyWhenEqual() {
        // Large tensors are bucketed by a hash of their first and last bytes and a spread sample;
        // ones that agree there but differ in a byte between must stay apart.
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 512});
        const Tensor base = iota({512, 512});
        auto variant = [&](int64_t index, float value) {
            Tensor t = Tensor::allocate(DType::Float, {512, 512});
            std::copy(base.span<float>().begin(), base.span<float>().end(), t.mutableSpan<float>().begin());
            if (index >= 0) t.mutableSpan<float>()[size_t(index)] = value;
            return t;
        };
        // 1001 lies between the sampled bytes (64 bytes, then one byte every 16 KiB).
        auto w1 = b.initializer("w1", variant(1001, -5.f));
        auto w2 = b.initializer("w2", variant(-1, 0));
        auto w3 = b.initializer("w3", variant(1001, -5.f));  // a copy of w1
        auto w4 = b.initializer("w4", variant(-1, 0));       // a copy of w2
        auto sum = b.op("Add", {b.op("MatMul", {x, w1}, {}, "mm1"), b.op("MatMul", {x, w2}, {}, "mm2")}, {}, "s1");
        sum = b.op("Add", {sum, b.op("MatMul", {x, w3}, {}, "mm3")}, {}, "s2");
        b.output(b.op("Add", {sum, b.op("MatMul", {x, w4}, {}, "mm4")}, {}, "s3"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "merge-duplicate-initializers");
        QCOMPARE(out.result.counter("numMerged"), int64_t(2));
        QCOMPARE(m.graph.node(*m.graph.findNode("mm3")).input(1), *m.graph.findValue("w1"));
        QCOMPARE(m.graph.node(*m.graph.findNode("mm4")).input(1), *m.graph.findValue("w2"));
        QVERIFY(m.graph.findValue("w1") != m.graph.findValue("w2"));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void mergesSmallScalarsAndKeepsOverridableDefaults() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3});
        auto one1 = b.initializer("one_a", Tensor::scalar(1.0f));
        auto one2 = b.initializer("one_b", Tensor::scalar(1.0f));
        auto one3 = b.initializer("one_c", Tensor::scalar(1.0f));
        auto bias = b.initializer("bias", Tensor::scalar(1.0f));  // also a graph input: a default
        b.graph().setInputs({x, bias});
        auto v = b.op("Add", {x, one1}, {}, "a1");
        v = b.op("Mul", {v, one2}, {}, "m1");
        v = b.op("Sub", {v, one3}, {}, "s1");
        b.output(b.op("Add", {v, bias}, {}, "a2"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "merge-duplicate-initializers");
        QCOMPARE(out.result.counter("numMerged"), int64_t(2));
        QCOMPARE(out.result.counter("bytesSaved"), int64_t(8));
        QVERIFY(m.graph.findValue("bias"));
        QCOMPARE(m.graph.initializers().size(), size_t(2));  // one_a and bias
        QVERIFY(out.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestDuplicateInitializers)
#include "tst_duplicate_initializers.moc"
