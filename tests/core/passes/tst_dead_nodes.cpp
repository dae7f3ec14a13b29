// remove-dead-nodes: branches that reach no output go with the weights only they read.
#include "core/graph/builder.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestDeadNodes : public QObject {
    Q_OBJECT
private slots:
    void removesBranchesThatReachNoOutput() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 4});
        auto w = b.initializer("w_dead", Tensor::floats({4, 4}, std::vector<float>(16, 1)));
        auto shared = b.op("Relu", {x}, {}, "shared");
        auto dead = b.op("MatMul", {shared, w}, {}, "aux_head");
        b.op("Softmax", {dead}, {}, "aux_softmax");
        b.initializer("unused", Tensor::scalar(3.0f));
        b.output(b.op("Tanh", {shared}, {}, "tanh"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "remove-dead-nodes");
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QCOMPARE(out.result.counter("numNodesRemoved"), int64_t(2));
        QCOMPARE(out.result.counter("numInitializersRemoved"), int64_t(1));  // w_dead went with its node
        QVERIFY(!m.graph.findValue("w_dead"));
        QVERIFY(!m.graph.findValue("unused"));
        QVERIFY(out.verification.passed);
    }

    void keepsUnusedGraphInputs() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2});
        b.input("spare", DType::Float, {2});
        b.output(b.op("Relu", {x}, {}, "relu"));
        Model m = withShapes(b.model());
        runPassChecked(m, "remove-dead-nodes");
        QCOMPARE(m.graph.inputs().size(), size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestDeadNodes)
#include "tst_dead_nodes.moc"
