// eliminate-common-subexpressions: duplicated chains collapse in one sweep, constants merge by
// content, and graph outputs, randomness and sub-graphs are respected.
#include "core/graph/builder.h"
#include "support/kernel_harness.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

class TestCse : public QObject {
    Q_OBJECT
private slots:
    void collapsesDuplicatedChainsInOneSweep() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 4});
        auto w = b.initializer("w", iota({4, 4}));
        auto left = b.op("MatMul", {b.op("Relu", {x}, {}, "relu_a"), w}, {}, "mm_a");
        auto right = b.op("MatMul", {b.op("Relu", {x}, {}, "relu_b"), w}, {}, "mm_b");
        auto lt = b.op("Transpose", {left}, {{"perm", std::vector<int64_t>{1, 0}}}, "t_a");
        auto rt = b.op("Transpose", {right}, {{"perm", std::vector<int64_t>{1, 0}}}, "t_b");
        b.output(b.op("Add", {lt, rt}, {}, "add"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-common-subexpressions");
        QCOMPARE(m.graph.nodeCount(), size_t(4));
        QCOMPARE(countOps(m.graph, "Relu"), 1);
        QCOMPARE(countOps(m.graph, "MatMul"), 1);
        QCOMPARE(countOps(m.graph, "Transpose"), 1);
        QCOMPARE(out.result.counter("numMerged"), int64_t(3));
        QCOMPARE(out.result.rewrites[0].sentence, std::string("merged Relu 'relu_b' into Relu 'relu_a': same operator, attributes and inputs"));
        const Node& add = m.graph.node(*m.graph.findNode("add"));
        QCOMPARE(add.input(0), add.input(1));
        QCOMPARE(m.graph.value(add.input(0)).name, std::string("t_a_out"));
        // The survivor stands for both nodes it replaced.
        QCOMPARE(m.graph.node(*m.graph.findNode("relu_a")).provenance.size(), size_t(2));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void comparesAttributesAndConstantsByValue() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {3});
        auto c1 = b.constant(Tensor::floats({3}, {1, 2, 3}), "c1");
        auto c2 = b.constant(Tensor::floats({3}, {1, 2, 3}), "c2");
        auto c3 = b.constant(Tensor::floats({3}, {1, 2, 4}), "c3");
        auto l1 = b.op("LeakyRelu", {x}, {{"alpha", 0.1f}}, "leaky1");
        auto l2 = b.op("LeakyRelu", {x}, {{"alpha", 0.2f}}, "leaky2");
        auto s1 = b.op("Add", {l1, c1}, {}, "s1");
        auto s2 = b.op("Add", {l1, c2}, {}, "s2");
        auto s3 = b.op("Add", {l2, c3}, {}, "s3");
        b.output(b.op("Sum", {s1, s2, s3}, {}, "sum"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-common-subexpressions");
        QCOMPARE(countOps(m.graph, "Constant"), 2);   // c2 merged into c1; c3 differs
        QCOMPARE(countOps(m.graph, "LeakyRelu"), 2);  // alphas differ
        QCOMPARE(countOps(m.graph, "Add"), 2);        // s2 merged into s1 once c2 was c1
        QCOMPARE(out.result.counter("numMerged"), int64_t(2));
        QVERIFY(out.verification.passed);
    }

    void keepsTwoGraphOutputsAndMovesIntoOne() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {4});
        b.output(b.op("Sigmoid", {x}, {}, "out1"));
        b.output(b.op("Sigmoid", {x}, {}, "out2"));
        auto inner = b.op("Tanh", {x}, {}, "inner");
        b.output(b.op("Neg", {inner}, {}, "neg"));
        b.output(b.op("Tanh", {x}, {}, "out3"));  // the later node writes the graph output
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-common-subexpressions");
        QCOMPARE(countOps(m.graph, "Sigmoid"), 2);
        QVERIFY(declinedWith(out.result, "both write graph outputs"));
        QCOMPARE(countOps(m.graph, "Tanh"), 1);
        QCOMPARE(m.graph.value(m.graph.outputs()[3]).name, std::string("out3_out"));
        QCOMPARE(m.graph.node(*m.graph.findNode("neg")).input(0), m.graph.outputs()[3]);
        QVERIFY(!m.graph.findValue("inner_out"));
        QVERIFY(out.verification.passed);
    }

    void keepsANodeWhoseOutputASubgraphReadsByName() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2});
        auto a = b.op("Relu", {x}, {}, "relu_a");
        b.op("Relu", {x}, {}, "relu_b");
        GraphBuilder thenB("then"), elseB("else");
        Graph& body = thenB.graph();
        const ValueId outer = body.addValue("relu_b_out", DType::Float, Shape({2}));
        body.value(outer).outerScope = true;
        thenB.output(thenB.op("Identity", {outer}, {}, "pass"));
        elseB.output(elseB.constant(Tensor::floats({2}, {0, 0})));
        auto cond = b.initializer("cond", Tensor::fromVector<uint8_t>(DType::Bool, {}, {1}));
        auto chosen = b.op("If", {cond}, {{"then_branch", GraphPtr(std::make_shared<Graph>(thenB.graph()))},
                                          {"else_branch", GraphPtr(std::make_shared<Graph>(elseB.graph()))}}, "choose");
        b.output(b.op("Add", {a, chosen}, {}, "add"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "eliminate-common-subexpressions");
        QCOMPARE(countOps(m.graph, "Relu"), 2);
        QVERIFY(declinedWith(out.result, "a sub-graph reads its output 'relu_b_out' by name"));
        QVERIFY(out.verification.passed);
    }

    void neverMergesRandomOrSubgraphNodes() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2});
        auto r1 = b.op("RandomUniformLike", {x}, {}, "noise1");
        auto r2 = b.op("RandomUniformLike", {x}, {}, "noise2");
        GraphBuilder thenB("then"), elseB("else");
        thenB.output(thenB.constant(Tensor::floats({2}, {1, 1})));
        elseB.output(elseB.constant(Tensor::floats({2}, {2, 2})));
        const Attributes branches{{"then_branch", GraphPtr(std::make_shared<Graph>(thenB.graph()))},
                                  {"else_branch", GraphPtr(std::make_shared<Graph>(elseB.graph()))}};
        auto cond = b.initializer("cond", Tensor::fromVector<uint8_t>(DType::Bool, {}, {1}));
        auto i1 = b.op("If", {cond}, branches, "if1");
        auto i2 = b.op("If", {cond}, branches, "if2");
        b.output(b.op("Sum", {r1, r2, i1, i2}, {}, "sum"));
        Model m = b.model();
        PassContext context;
        const PassResult result = runPass(*makePipeline("eliminate-common-subexpressions").front(), m, context);
        QCOMPARE(countOps(m.graph, "RandomUniformLike"), 2);
        QCOMPARE(countOps(m.graph, "If"), 2);
        QCOMPARE(result.rewrites.size(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestCse)
#include "tst_cse.moc"
