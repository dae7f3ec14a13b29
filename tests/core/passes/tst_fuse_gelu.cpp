// fuse-gelu: the erf and tanh GELU sub-graphs in the arrangements exporters write, the bias Add
// joining as BiasGelu / FastGelu, declines with their reasons, and the --portable lowering back.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "support/pass_harness.h"

#include <QtTest>

#include <cmath>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

ValueId scalar(GraphBuilder& b, float v) { return b.constant(Tensor::scalar(v)); }

/// x * (1 + erf(x / 1.4142135)) * 0.5, as PyTorch exports nn.GELU.
ValueId erfGelu(GraphBuilder& b, ValueId x, float divisor = 1.4142135f, float half = 0.5f) {
    auto e = b.op("Erf", {b.op("Div", {x, scalar(b, divisor)})});
    auto product = b.op("Mul", {x, b.op("Add", {e, scalar(b, 1.f)})});
    return b.op("Mul", {product, scalar(b, half)});
}

/// 0.5 * x * (1 + tanh(0.7978845 * (x + 0.044715 * x^3))), x^3 as Pow or as x * x * x.
ValueId tanhGelu(GraphBuilder& b, ValueId x, bool pow) {
    auto cube = pow ? b.op("Pow", {x, scalar(b, 3.f)}) : b.op("Mul", {b.op("Mul", {x, x}), x});
    auto inner = b.op("Mul", {scalar(b, 0.7978845608f), b.op("Add", {x, b.op("Mul", {scalar(b, 0.044715f), cube})})});
    auto onePlus = b.op("Add", {scalar(b, 1.f), b.op("Tanh", {inner})});
    return b.op("Mul", {b.op("Mul", {x, scalar(b, 0.5f)}), onePlus});
}

int countDomainOps(const Graph& g, const std::string& op) {
    int n = 0;
    for (NodeId id : g.nodeIds()) n += g.node(id).opType == op && g.node(id).domain == "com.microsoft";
    return n;
}

} // namespace

class TestFuseGelu : public QObject {
    Q_OBJECT
private slots:
    void fusesALinearLayersBiasAndErfGeluIntoBiasGelu() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 8, 16});
        auto mm = b.op("MatMul", {x, b.initializer("w", seeded({16, 32}, 1))}, {}, "fc1");
        auto biased = b.op("Add", {b.initializer("bias", seeded({32}, 2)), mm}, {}, "fc1_bias");
        b.output(erfGelu(b, biased));
        Model m = withShapes(b.model(14));
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(m.graph.nodeCount(), size_t(2));  // MatMul, BiasGelu: the Constants went too
        QCOMPARE(countDomainOps(m.graph, "BiasGelu"), 1);
        QCOMPARE(out.result.counter("numBiasGelu"), int64_t(1));
        QCOMPARE(m.opsetVersion("com.microsoft"), int64_t(1));
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError < 1e-5);
    }

    void shapeInferenceSeesThroughTheFusedNodes() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto y = b.input("y", DType::Float, {2, 16});
        auto z = b.input("z", DType::Float, {2, 16});
        b.output(b.op("Relu", {erfGelu(b, b.op("Add", {x, b.initializer("bias", seeded({16}, 6))}))}));
        b.output(b.op("Relu", {erfGelu(b, y)}));
        b.output(b.op("Relu", {tanhGelu(b, z, true)}));
        Model m = withShapes(b.model(13));
        runPassChecked(m, "fuse-gelu");
        QCOMPARE(m.graph.nodeCount(), size_t(6));
        inferShapesForInputs(m, {{"x", {7, 16}}, {"y", {7, 16}}, {"z", {7, 16}}});  // as a plan does for other shapes
        for (ValueId out : m.graph.outputs()) QCOMPARE(m.graph.value(out).shape, Shape({7, 16}));
    }

    void fusesEveryArrangementOfTheErfForm() {
        GraphBuilder b;
        std::vector<ValueId> x;
        for (int i = 0; i < 4; ++i) x.push_back(b.input("x" + std::to_string(i), DType::Float, {4, 24}));
        b.output(erfGelu(b, x[0]));  // (x * (1 + erf)) * 0.5
        // 0.5 * x first, then times (1 + erf(x * 0.70710678))
        auto e1 = b.op("Erf", {b.op("Mul", {scalar(b, 0.70710678f), x[1]})});
        b.output(b.op("Mul", {b.op("Add", {scalar(b, 1.f), e1}), b.op("Mul", {scalar(b, 0.5f), x[1]})}));
        // ((1 + erf) * 0.5) * x
        auto e2 = b.op("Erf", {b.op("Div", {x[2], scalar(b, 1.41421356f)})});
        b.output(b.op("Mul", {b.op("Mul", {b.op("Add", {e2, scalar(b, 1.f)}), scalar(b, 0.5f)}), x[2]}));
        // (x * (1 + erf)) / 2
        auto e3 = b.op("Erf", {b.op("Div", {x[3], scalar(b, 1.4142f)})});
        b.output(b.op("Div", {b.op("Mul", {b.op("Add", {e3, scalar(b, 1.f)}), x[3]}), scalar(b, 2.f)}));
        Model m = withShapes(b.model(13));
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(countDomainOps(m.graph, "Gelu"), 4);
        QCOMPARE(m.graph.nodeCount(), size_t(4));
        QCOMPARE(out.result.counter("numGelu"), int64_t(4));
        QVERIFY(out.verification.passed);
    }

    void fusesTheTanhFormIntoFastGelu() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3, 40});
        auto y = b.input("y", DType::Float, {3, 40});
        b.output(tanhGelu(b, x, true));
        auto biased = b.op("Add", {y, b.initializer("bias", seeded({40}, 3))});
        b.output(tanhGelu(b, biased, false));
        Model m = withShapes(b.model(17));
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(countDomainOps(m.graph, "FastGelu"), 2);
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QCOMPARE(out.result.counter("numFastGelu"), int64_t(2));
        int withBias = 0;
        for (NodeId id : m.graph.nodeIds()) withBias += m.graph.node(id).inputs().size() == 2;
        QCOMPARE(withBias, 1);
        QVERIFY(out.verification.passed);
    }

    void declinesWhenAnIntermediateIsReadElsewhere() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto e = b.op("Erf", {b.op("Div", {x, scalar(b, 1.4142135f)})}, {}, "erf");
        auto product = b.op("Mul", {x, b.op("Add", {e, scalar(b, 1.f)})});
        b.output(b.op("Mul", {product, scalar(b, 0.5f)}));
        b.output(b.op("Neg", {product}, {}, "reads_the_product"));
        Model m = withShapes(b.model());
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(m.graph.nodeCount(), before);
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "is read by 2 nodes"));
    }

    void declinesWhenAConstantDoesNotMatch() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto y = b.input("y", DType::Float, {2, 16});
        b.output(erfGelu(b, x, 2.0f));        // erf(x / 2): another function
        b.output(erfGelu(b, y, 1.4142135f, 0.4f));  // times 0.4, not 0.5
        Model m = withShapes(b.model());
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(m.graph.nodeCount(), before);
        QVERIFY(declinedWith(out.result, "not 1/sqrt(2)"));
        QVERIFY(declinedWith(out.result, "scales by 0.4, not by 0.5"));
    }

    void keepsTheBiasAddWhenItsSumIsReadElsewhere() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 16});
        auto biased = b.op("Add", {x, b.initializer("bias", seeded({16}, 4))});
        b.output(erfGelu(b, biased));
        b.output(b.op("Relu", {biased}));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-gelu");
        QCOMPARE(countDomainOps(m.graph, "Gelu"), 1);
        QCOMPARE(countDomainOps(m.graph, "BiasGelu"), 0);
        QCOMPARE(countOps(m.graph, "Add"), 1);
        QVERIFY(out.verification.passed);
    }

    void portableExportLowersAndFusesAgain() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 32});
        auto y = b.input("y", DType::Float, {2, 32});
        b.output(erfGelu(b, b.op("Add", {x, b.initializer("bias", seeded({32}, 5))})));
        b.output(tanhGelu(b, y, true));
        Model m = withShapes(b.model());
        runPassChecked(m, "fuse-gelu");
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(2));
        QCOMPARE(countDomainOps(m.graph, "BiasGelu") + countDomainOps(m.graph, "FastGelu"), 0);
        QCOMPARE(countOps(m.graph, "Erf"), 1);
        QCOMPARE(countOps(m.graph, "Tanh"), 1);
        QCOMPARE(m.opsetVersion("com.microsoft"), int64_t(0));
        const CheckedPass again = runPassChecked(m, "fuse-gelu");
        QCOMPARE(countDomainOps(m.graph, "BiasGelu"), 1);
        QCOMPARE(countDomainOps(m.graph, "FastGelu"), 1);
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QVERIFY(again.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestFuseGelu)
#include "tst_fuse_gelu.moc"
