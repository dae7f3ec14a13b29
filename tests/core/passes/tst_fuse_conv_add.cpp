// fuse-conv-add: a residual sum after a convolution becomes FusedConv's Z, and with
// fuse-conv-activation after it a ResNet block's conv -> add -> relu is one FusedConv.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "core/runtime/backend.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// A ResNet basic block: relu(bn2(conv2(relu(bn1(conv1(x))))) + x).
Model residualBlock() {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, 4, 6, 6});
    const Attributes same{{"pads", {1, 1, 1, 1}}};
    auto h = b.op("Conv", {x, b.initializer("w1", seeded({4, 4, 3, 3}, 1, -0.3f, 0.3f))}, same, "conv1");
    h = b.op("Relu", {batchNorm(b, h, 4, "bn1", 10)}, {}, "relu1");
    h = b.op("Conv", {h, b.initializer("w2", seeded({4, 4, 3, 3}, 2, -0.3f, 0.3f))}, same, "conv2");
    h = b.op("Add", {batchNorm(b, h, 4, "bn2", 20), x}, {}, "add");
    b.output(b.op("Relu", {h}, {}, "relu2"));
    return withShapes(b.model());
}

} // namespace

class TestFuseConvAdd : public QObject {
    Q_OBJECT
private slots:
    void residualBlockBecomesTwoFusedConvs() {
        Model m = residualBlock();
        for (const char* id : {"fold-batchnorm", "fuse-conv-add", "fuse-conv-activation"}) {
            const CheckedPass out = runPassChecked(m, id);
            QVERIFY2(out.verification.passed, (std::string(id) + ": " + out.verification.failure).c_str());
            if (std::string(id) == "fuse-conv-add") {
                QCOMPARE(out.result.counter("numFused"), int64_t(1));
                QCOMPARE(out.result.rewrites[0].sentence,
                         std::string("fused Conv 'conv2' and the residual Add 'add' into one FusedConv with Z = 'x'"));
            }
        }
        QCOMPARE(m.graph.nodeCount(), size_t(2));
        QCOMPARE(countOps(m.graph, "FusedConv"), 2);
        const Node& last = m.graph.node(*m.graph.findNode("conv2"));
        QCOMPARE(last.inputs().size(), size_t(4));
        QCOMPARE(m.graph.value(last.input(3)).name, std::string("x"));
        QCOMPARE(last.attributes.getString("activation"), std::string("Relu"));
        // libonnx knows FusedConv's shapes (core/onnx/contrib_schemas): a new batch size reaches the output.
        inferShapesForInputs(m, {{"x", {2, 4, 6, 6}}});
        QCOMPARE(m.graph.value(m.graph.outputs()[0]).shape, Shape({2, 4, 6, 6}));
    }

    void addsZWithoutABiasAndLowersBack() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 5, 5});
        auto z = b.input("z", DType::Float, {1, 3, 5, 5});
        auto c = b.op("Conv", {x, b.initializer("w", seeded({3, 2, 1, 1}, 1))}, {}, "conv");
        b.output(b.op("Add", {z, c}, {}, "residual"));
        Model m = withShapes(b.model());
        const Model original = m;
        const CheckedPass out = runPassChecked(m, "fuse-conv-add");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        // The reference FusedConv (the oracle) agrees too.
        CompileOptions referenceOnly;
        referenceOnly.referenceOnly = true;
        const auto feeds = seededFeeds(m.graph);
        const Tensor want = makeCpuBackend()->compile(original, referenceOnly)->run(feeds).at(0);
        const Tensor got = makeCpuBackend()->compile(m, referenceOnly)->run(feeds).at(0);
        QVERIFY(compareTensors(got, want, 1e-6, 1e-7).matches);
        const Node& fused = m.graph.node(m.graph.nodeIds()[0]);
        QCOMPARE(fused.opType, std::string("FusedConv"));
        QCOMPARE(fused.inputs().size(), size_t(4));
        QCOMPARE(fused.input(2), kNoId);
        Model portable = m;
        QCOMPARE(lowerFusedOps(portable, Lowering::StandardOnly), size_t(1));
        QCOMPARE(countOps(portable.graph, "Conv"), 1);
        QCOMPARE(countOps(portable.graph, "Add"), 1);
        NumericChecker checker(seededFeeds(m.graph), {});
        checker.setBaseline(m);
        const VerifyReport v = checker.check(portable);
        QVERIFY2(v.passed, v.failure.c_str());
    }

    void declinesBroadcastSumsAndSumsAfterAnActivation() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto w = b.initializer("w", seeded({2, 2, 1, 1}, 1));
        auto perChannel = b.input("per_channel", DType::Float, {1, 2, 1, 1});
        b.output(b.op("Add", {b.op("Conv", {x, w}, {}, "conv_b"), perChannel}, {}, "broadcast_add"));
        auto activated = b.op("Conv", {x, w}, {{"activation", "Relu"}}, "fused");
        b.output(b.op("Add", {activated, x}, {}, "late_add"));
        Model m = withShapes(b.model());
        Node& fused = m.graph.node(*m.graph.findNode("fused"));
        fused.opType = "FusedConv";
        fused.domain = "com.microsoft";
        m.opsets.push_back({"com.microsoft", 1});
        const CheckedPass out = runPassChecked(m, "fuse-conv-add");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QCOMPARE(countOps(m.graph, "Add"), 2);
        QVERIFY(declinedWith(out.result, "not exactly the convolution's [1,2,4,4]"));
        QVERIFY(declinedWith(out.result, "applies its activation before the sum"));
    }
};

QTEST_GUILESS_MAIN(TestFuseConvAdd)
#include "tst_fuse_conv_add.moc"
