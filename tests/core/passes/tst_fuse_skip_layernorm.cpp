// fuse-skip-layernorm: a post-norm block's residual Add + LayerNormalization becomes one
// com.microsoft SkipLayerNormalization, which the CPU runtime runs as one kernel; a sum read
// elsewhere (pre-norm), a broadcast skip, a constant operand, a rank-2 sum and statistics outputs
// that are read keep the two nodes.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

constexpr int64_t kHidden = 40;  // two 16-lane blocks and a tail of 8

/// y = LayerNorm(x + Relu(x) * w) over the last axis, the shape of a post-norm block.
Model postNormBlock(bool beta = true) {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {2, 3, kHidden});
    auto f = b.op("Mul", {b.op("Relu", {x}, {}, "ffn"), b.initializer("w", seeded({kHidden}, 1))}, {}, "scale");
    auto sum = b.op("Add", {x, f}, {}, "residual");
    std::vector<ValueId> norm{sum, b.initializer("gamma", seeded({kHidden}, 2, 0.5f, 1.5f))};
    if (beta) norm.push_back(b.initializer("beta", seeded({kHidden}, 3)));
    b.output(b.op("LayerNormalization", norm, {{"axis", int64_t(-1)}, {"epsilon", 1e-5f}}, "norm"));
    return withShapes(b.model(17));
}

} // namespace

class TestFuseSkipLayerNorm : public QObject {
    Q_OBJECT
private slots:
    void fusesTheResidualAddIntoTheLayerNorm() {
        Model m = postNormBlock();
        const CheckedPass out = runPassChecked(m, "fuse-skip-layernorm");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(countOps(m.graph, "Add"), 0);
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 0);
        const Node& fused = firstOfType(m.graph, "SkipLayerNormalization");
        QCOMPARE(fused.domain, std::string("com.microsoft"));
        QCOMPARE(fused.name, std::string("norm"));
        QCOMPARE(fused.inputs().size(), size_t(4));
        QCOMPARE(m.graph.value(fused.input(0)).name, std::string("x"));
        QCOMPARE(m.graph.value(fused.input(2)).name, std::string("gamma"));
        QCOMPARE(fused.attributes.getFloat("epsilon", 0.f), 1e-5f);
        QCOMPARE(out.result.counter("numFused"), int64_t(1));
        QCOMPARE(out.result.rewrites[0].sentence,
                 std::string("fused the residual Add 'residual' into LayerNormalization 'norm': "
                             "SkipLayerNormalization('x', 'scale_out') adds them row by row as it normalizes"));
    }

    void cpuRunsItAsOneKernelMatchingTheUnfusedGraph() {
        for (bool beta : {true, false}) {
            Model original = postNormBlock(beta);
            Model fused = original;
            runPassChecked(fused, "fuse-skip-layernorm");
            QCOMPARE(countOps(fused.graph, "SkipLayerNormalization"), 1);
            const auto feeds = seededFeeds(original.graph, 11, -3.f, 3.f);
            CompileOptions reference;
            reference.referenceOnly = true;
            const Tensor want = makeCpuBackend()->compile(original, reference)->run(feeds).at(0);
            auto plan = makeCpuBackend()->compile(fused, {});
            bool native = false;
            for (const auto& node : plan->nodes()) native |= node.kernel == "cpu:skip-layer-norm";
            QVERIFY(native);
            const Tensor got = plan->run(feeds).at(0);
            const TensorComparison same = compareTensors(got, want, 1e-4, 1e-5);
            QVERIFY2(same.matches, same.mismatch.c_str());
        }
    }

    void keepsWhatDoesNotFit() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {2, 3, kHidden});
        auto y = b.input("y", DType::Float, {2, 3, kHidden});
        auto gamma = b.initializer("gamma", seeded({kHidden}, 2));
        const Attributes last{{"axis", int64_t(-1)}};
        // Pre-norm: the sum is also the next residual.
        auto kept = b.op("Add", {x, y}, {}, "kept_sum");
        b.output(b.op("LayerNormalization", {kept, gamma}, last, "pre_norm"));
        b.output(b.op("Relu", {kept}));
        // The skip broadcasts.
        auto row = b.input("row", DType::Float, {1, 1, kHidden});
        b.output(b.op("LayerNormalization", {b.op("Add", {x, row}, {}, "broadcast_sum"), gamma}, last, "broadcast_norm"));
        // A constant bias, not a residual.
        b.output(b.op("LayerNormalization", {b.op("Add", {x, b.initializer("bias", seeded({kHidden}, 4))}, {}, "bias_sum"), gamma},
                      last, "bias_norm"));
        // Rank 2.
        auto p = b.input("p", DType::Float, {6, kHidden});
        auto q = b.input("q", DType::Float, {6, kHidden});
        b.output(b.op("LayerNormalization", {b.op("Add", {p, q}, {}, "flat_sum"), gamma}, last, "flat_norm"));
        Model m = withShapes(b.model(17));
        const CheckedPass out = runPassChecked(m, "fuse-skip-layernorm");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(countOps(m.graph, "SkipLayerNormalization"), 0);
        QCOMPARE(countOps(m.graph, "Add"), 4);
        QVERIFY(declinedWith(out.result, "the output of Add 'kept_sum' is read by 2 nodes (the sum is needed on its own)"));
        QVERIFY(declinedWith(out.result, "SkipLayerNormalization does not broadcast the skip"));
        QVERIFY(declinedWith(out.result, "Add 'bias_sum' adds a constant, not a residual"));
        QVERIFY(declinedWith(out.result, "the sum has rank 2"));
    }

    void portableExportPutsAddAndLayerNormBack() {
        Model m = postNormBlock();
        const auto feeds = seededFeeds(m.graph);
        const Tensor want = runReference(m.graph, m.opsetVersion(), feeds).at(0);
        runPassChecked(m, "fuse-skip-layernorm");
        QCOMPARE(lowerFusedOps(m, Lowering::StandardOnly), size_t(1));
        QCOMPARE(countOps(m.graph, "SkipLayerNormalization"), 0);
        QCOMPARE(countOps(m.graph, "LayerNormalization"), 1);
        QCOMPARE(countOps(m.graph, "Add"), 1);
        const TensorComparison same = compareTensors(runReference(m.graph, m.opsetVersion(), feeds).at(0), want, 0.0, 1e-5);
        QVERIFY2(same.matches, same.mismatch.c_str());
    }
};

QTEST_APPLESS_MAIN(TestFuseSkipLayerNorm)
#include "tst_fuse_skip_layernorm.moc"
