// fuse-silu: x * sigmoid(x) and x * sigmoid(alpha * x) become com.microsoft QuickGelu(alpha);
// gates of other tensors stay, shared Sigmoids decline, and --portable lowers it back.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

std::vector<const Node*> nodesOf(const Graph& g, const std::string& op) {
    std::vector<const Node*> out;
    for (NodeId id : g.nodeIds())
        if (g.node(id).opType == op) out.push_back(&g.node(id));
    return out;
}

} // namespace

class TestFuseSilu : public QObject {
    Q_OBJECT
private slots:
    void fusesSiluAndItsScaledForm() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 8, 6, 6});
        auto y = b.input("y", DType::Float, {2, 8, 6, 6});
        b.output(b.op("Mul", {x, b.op("Sigmoid", {x})}, {}, "silu"));
        auto scaled = b.op("Mul", {y, b.constant(Tensor::scalar(1.702f))});
        b.output(b.op("Mul", {b.op("Sigmoid", {scaled}), y}, {}, "quick"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-silu");
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        const auto fused = nodesOf(m.graph, "QuickGelu");
        QCOMPARE(fused.size(), size_t(2));
        for (const Node* n : fused) {
            QCOMPARE(n->domain, std::string("com.microsoft"));
            QCOMPARE(n->attributes.getFloat("alpha", 0), n->name == "silu" ? 1.f : 1.702f);  // always written
        }
        QCOMPARE(out.result.counter("numFused"), int64_t(2));
        QVERIFY(out.verification.passed);
        QVERIFY(out.verification.maxAbsError < 1e-5);
    }

    void leavesGatesAloneAndDeclinesSharedSigmoids() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4, 16});
        auto g = b.input("g", DType::Float, {4, 16});
        b.output(b.op("Mul", {x, b.op("Sigmoid", {g})}, {}, "gate"));  // x * sigmoid(g): no SiLU
        auto s = b.op("Sigmoid", {x}, {}, "shared");
        b.output(b.op("Mul", {x, s}));
        b.output(b.op("Neg", {s}));
        Model m = withShapes(b.model());
        const size_t before = m.graph.nodeCount();
        const CheckedPass out = runPassChecked(m, "fuse-silu");
        QCOMPARE(m.graph.nodeCount(), before);
        QCOMPARE(out.result.declines.size(), size_t(1));
        QVERIFY(declinedWith(out.result, "'shared_out' is read by 2 nodes"));
    }

    void portableExportLowersQuickGelu() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4, 16});
        b.output(b.op("Mul", {x, b.op("Sigmoid", {x})}));
        Model m = withShapes(b.model());
        runPassChecked(m, "fuse-silu");
        QCOMPARE(lowerFusedOps(m, Lowering::ForOnnxRuntime), size_t(0));
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(1));
        QCOMPARE(countOps(m.graph, "Sigmoid"), 1);
        QCOMPARE(countOps(m.graph, "Mul"), 1);
        const CheckedPass again = runPassChecked(m, "fuse-silu");
        QCOMPARE(countOps(m.graph, "QuickGelu"), 1);
        QVERIFY(again.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestFuseSilu)
#include "tst_fuse_silu.moc"
