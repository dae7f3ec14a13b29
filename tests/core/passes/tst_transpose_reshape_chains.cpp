// simplify-transpose-reshape: Transpose pairs compose or cancel, reshape-like chains collapse
// into one Reshape, and chains whose middle tensor is needed elsewhere stay.
#include "core/graph/builder.h"
#include "support/kernel_harness.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

ValueId transpose(GraphBuilder& b, ValueId x, std::vector<int64_t> perm, const std::string& name) {
    return b.op("Transpose", {x}, {{"perm", std::move(perm)}}, name);
}

} // namespace

class TestTransposeReshapeChains : public QObject {
    Q_OBJECT
private slots:
    void composesTwoTransposesIntoOne() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto t = transpose(b, transpose(b, x, {1, 2, 0}, "t1"), {0, 2, 1}, "t2");
        b.output(b.op("Relu", {t}, {}, "relu"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "simplify-transpose-reshape");
        QCOMPARE(countOps(m.graph, "Transpose"), 1);
        const Node& composed = m.graph.node(m.graph.value(*m.graph.findValue("t2_out")).producer());
        QCOMPARE(composed.attributes.getInts("perm"), (std::vector<int64_t>{1, 0, 2}));
        QCOMPARE(composed.input(0), *m.graph.findValue("x"));
        QCOMPARE(out.result.counter("numTransposesComposed"), int64_t(1));
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("composed Transpose 't1' and Transpose 't2' into one Transpose with perm [1,0,2]"));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void removesTransposesThatCancel() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto back = transpose(b, transpose(b, x, {1, 2, 0}, "t1"), {2, 0, 1}, "t2");
        b.output(b.op("Relu", {back}, {}, "relu"));
        // A default-perm pair (reversed axes twice) at a graph output becomes an Identity.
        b.output(b.op("Transpose", {b.op("Transpose", {x}, {}, "r1")}, {}, "r2"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "simplify-transpose-reshape");
        QCOMPARE(countOps(m.graph, "Transpose"), 0);
        QCOMPARE(countOps(m.graph, "Identity"), 1);
        QCOMPARE(m.graph.node(*m.graph.findNode("relu")).input(0), *m.graph.findValue("x"));
        QCOMPARE(m.graph.value(m.graph.outputs()[1]).name, std::string("r2_out"));
        QCOMPARE(out.result.counter("numTransposesCancelled"), int64_t(2));
        QVERIFY(out.verification.passed);
    }

    void collapsesReshapeLikeChainsIntoOneReshape() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto flat = b.op("Flatten", {x}, {{"axis", int64_t(1)}}, "flat");  // [2,12]
        // 0 copies dim 0 of 'flat' (2): after collapsing it must say 2, not "dim 0 of x".
        auto r = b.op("Reshape", {flat, b.initializer("s1", Tensor::int64s({3}, {0, -1, 2}))}, {}, "r1");  // [2,6,2]
        b.output(b.op("Relu", {r}, {}, "relu1"));
        auto u = b.op("Unsqueeze", {x, b.initializer("axes", Tensor::int64s({1}, {0}))}, {}, "u");  // [1,2,3,4]
        auto r2 = b.op("Reshape", {u, b.initializer("s2", Tensor::int64s({2}, {6, 4}))}, {}, "r2");
        auto r3 = b.op("Reshape", {r2, b.initializer("s3", Tensor::int64s({2}, {4, -1}))}, {}, "r3");
        b.output(b.op("Relu", {r3}, {}, "relu2"));
        Model m = withShapes(b.model(13));
        const CheckedPass out = runPassChecked(m, "simplify-transpose-reshape");
        QCOMPARE(m.graph.nodeCount(), size_t(4));
        QCOMPARE(countOps(m.graph, "Reshape"), 2);
        QCOMPARE(countOps(m.graph, "Flatten") + countOps(m.graph, "Unsqueeze"), 0);
        const Node& first = m.graph.node(m.graph.value(*m.graph.findValue("r1_out")).producer());
        QCOMPARE(first.input(0), *m.graph.findValue("x"));
        QCOMPARE(values<int64_t>(*m.graph.constantValue(first.input(1))), (std::vector<int64_t>{2, -1, 2}));
        const Node& second = m.graph.node(m.graph.value(*m.graph.findValue("r3_out")).producer());
        QCOMPARE(second.input(0), *m.graph.findValue("x"));
        QCOMPARE(values<int64_t>(*m.graph.constantValue(second.input(1))), (std::vector<int64_t>{4, -1}));
        QCOMPARE(out.result.counter("numReshapesCollapsed"), int64_t(3));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void keepsChainsWhoseMiddleIsNeededOrWhoseTargetIsNotConstant() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto y = b.input("y", DType::Float, {6, 4});
        auto t1 = transpose(b, x, {1, 0, 2}, "t1");
        auto t2 = transpose(b, t1, {0, 2, 1}, "t2");
        auto flat = b.op("Flatten", {x}, {{"axis", int64_t(2)}}, "flat");  // [6,4]
        auto r = b.op("Reshape", {flat, b.op("Shape", {y}, {}, "y_shape")}, {}, "r");
        b.output(b.op("Sum", {b.op("ReduceSum", {t1}, {{"keepdims", int64_t(0)}}, "reduce"),
                              b.op("ReduceSum", {t2}, {{"keepdims", int64_t(0)}}, "reduce2")},
                      {}, "sum"));
        b.output(r);
        Model m = withShapes(b.model(13));
        const CheckedPass out = runPassChecked(m, "simplify-transpose-reshape");
        QCOMPARE(countOps(m.graph, "Transpose"), 2);
        QCOMPARE(countOps(m.graph, "Flatten"), 1);
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "kept apart from Transpose 't1': its output 't1_out' is read by 2 nodes"));
        QVERIFY(declinedWith(out.result, "its target shape 'y_shape_out' is not a constant"));
        QVERIFY(out.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestTransposeReshapeChains)
#include "tst_transpose_reshape_chains.moc"
