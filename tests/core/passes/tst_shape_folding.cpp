// fold-shapes: Shape/Size of static dims become constants and the shape arithmetic after them is
// folded, so Shape->Gather->Unsqueeze->Concat->Reshape collapses; symbolic dims stay.
#include "core/graph/builder.h"
#include "support/kernel_harness.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// runPassChecked with explicit feeds, for a model whose inputs have symbolic dims.
CheckedPass runWithFeeds(Model& model, const std::string& id, std::map<std::string, Tensor> feeds) {
    PassContext context = contextFor(model);
    context.failIfNotConverged = true;
    NumericChecker checker(std::move(feeds), {});
    checker.setBaseline(model);
    CheckedPass out;
    out.result = runPass(*makePipeline(id).front(), model, context);
    out.verification = checker.check(model);
    return out;
}

} // namespace

class TestShapeFolding : public QObject {
    Q_OBJECT
private slots:
    void collapsesShapeGatherUnsqueezeConcatIntoAConstantTarget() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, 4});
        auto batch = b.op("Gather", {b.op("Shape", {x}, {}, "shape"), b.initializer("zero", Tensor::int64s({}, {0}))},
                          {{"axis", int64_t(0)}}, "batch");
        auto batch1 = b.op("Unsqueeze", {batch, b.initializer("axes", Tensor::int64s({1}, {0}))}, {}, "batch1");
        auto target = b.op("Concat", {batch1, b.initializer("rest", Tensor::int64s({1}, {-1}))}, {{"axis", int64_t(0)}}, "target");
        b.output(b.op("Relu", {b.op("Reshape", {x, target}, {}, "reshape")}, {}, "relu"));
        Model m = withShapes(b.model(13));
        const CheckedPass out = runPassChecked(m, "fold-shapes");
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QCOMPARE(countOps(m.graph, "Reshape"), 1);
        QCOMPARE(countOps(m.graph, "Relu"), 1);
        QCOMPARE(out.result.counter("numShapesFolded"), int64_t(1));
        QCOMPARE(out.result.counter("numFolded"), int64_t(3));
        const Tensor* folded = m.graph.constantValue(*m.graph.findValue("target_out"));
        QVERIFY(folded);
        QCOMPARE(values<int64_t>(*folded), (std::vector<int64_t>{2, -1}));
        QCOMPARE(out.result.rewrites[0].sentence, std::string("replaced Shape 'shape' of 'x' by the constant [2,3,4]"));
        QVERIFY(out.verification.passed);
        QCOMPARE(out.verification.maxAbsError, 0.0);
    }

    void foldsSizeAndShapeWithStartAndEnd() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, Shape(std::vector<Dim>{Dim("batch"), Dim(3), Dim(4)}));
        auto tail = b.op("Shape", {x}, {{"start", int64_t(1)}}, "tail");  // [3, 4]: static
        auto count = b.op("Size", {b.initializer("c", iota({5, 2}))}, {}, "count");
        auto f = b.op("Cast", {b.op("ReduceProd", {tail}, {{"keepdims", int64_t(0)}}, "prod")}, {{"to", int64_t(DType::Float)}}, "prod_f");
        auto g = b.op("Cast", {count}, {{"to", int64_t(DType::Float)}}, "count_f");
        b.output(b.op("Add", {b.op("Mul", {x, f}, {}, "scaled"), g}, {}, "out"));
        Model m = withShapes(b.model(15));
        Tensor feed = iota({2, 3, 4});
        const CheckedPass out = runWithFeeds(m, "fold-shapes", {{"x", feed}});
        QCOMPARE(countOps(m.graph, "Shape") + countOps(m.graph, "Size"), 0);
        QCOMPARE(countOps(m.graph, "ReduceProd") + countOps(m.graph, "Cast"), 0);
        QCOMPARE(m.graph.nodeCount(), size_t(2));  // Mul and Add
        QCOMPARE(values<float>(*m.graph.constantValue(*m.graph.findValue("prod_f_out"))), (std::vector<float>{12}));
        QCOMPARE(values<float>(*m.graph.constantValue(*m.graph.findValue("count_f_out"))), (std::vector<float>{10}));
        QVERIFY(out.verification.passed);
    }

    void foldsStaticDimsOfADynamicShapeAndKeepsTheRest() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, Shape(std::vector<Dim>{Dim("batch"), Dim(8), Dim(32)}));
        auto shape = b.op("Shape", {x}, {}, "shape");
        auto hidden = b.op("Gather", {shape, b.initializer("last", Tensor::int64s({1}, {-1}))}, {{"axis", int64_t(0)}}, "hidden");
        auto batch = b.op("Gather", {shape, b.initializer("first", Tensor::int64s({1}, {0}))}, {{"axis", int64_t(0)}}, "batch");
        auto target = b.op("Concat", {batch, b.initializer("minus1", Tensor::int64s({1}, {-1})), hidden},
                           {{"axis", int64_t(0)}}, "target");
        auto size = b.op("Size", {x}, {}, "size");
        b.output(b.op("Reshape", {x, target}, {}, "reshape"));
        b.output(size);
        Model m = withShapes(b.model(13));
        const CheckedPass out = runWithFeeds(m, "fold-shapes", {{"x", iota({2, 8, 32})}});
        QCOMPARE(countOps(m.graph, "Shape"), 1);   // still read by the batch Gather
        QCOMPARE(countOps(m.graph, "Gather"), 1);  // the batch dim is only known at run time
        QCOMPARE(countOps(m.graph, "Size"), 1);
        QCOMPARE(values<int64_t>(*m.graph.constantValue(*m.graph.findValue("hidden_out"))), (std::vector<int64_t>{32}));
        QVERIFY(declinedWith(out.result, "dim 0 of 'x' is 'batch', known only when the model runs"));
        QVERIFY(declinedWith(out.result, "the shape [batch,8,32] of 'x' is not static"));
        QVERIFY(out.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestShapeFolding)
#include "tst_shape_folding.moc"
