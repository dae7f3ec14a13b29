// fuse-conv-activation: activations after Conv and Gemm become com.microsoft FusedConv and
// FusedGemm, which the CPU runtime runs as one oneDNN kernel each and the reference runs as the
// oracle; exports for ONNX Runtime lower what it cannot run.
#include "core/graph/builder.h"
#include "core/passes/portable.h"
#include "core/runtime/backend.h"
#include "core/runtime/tensor_compare.h"
#include "support/pass_harness.h"

#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// One conv -> activation and one gemm -> activation branch per activation.
Model convAndGemmWithActivations() {
    GraphBuilder b;
    auto x = b.input("x", DType::Float, {1, 3, 6, 6});
    auto a = b.input("a", DType::Float, {4, 8});
    auto conv = [&](const std::string& name) {
        return b.op("Conv", {x, b.initializer(name + ".w", seeded({4, 3, 3, 3}, name.size())),
                             b.initializer(name + ".b", seeded({4}, 7))}, {{"pads", {1, 1, 1, 1}}}, name);
    };
    auto gemm = [&](const std::string& name) {
        return b.op("Gemm", {a, b.initializer(name + ".w", seeded({8, 5}, name.size())), b.initializer(name + ".c", seeded({5}, 3))},
                    {{"alpha", 0.5f}}, name);
    };
    // Constant nodes shared by two Clips: they go with the second fusion.
    auto lo = b.constant(Tensor::scalar(0.0f), "zero"), hi = b.constant(Tensor::scalar(6.0f), "six");
    b.output(b.op("Relu", {conv("c_relu")}, {}, "relu"));
    b.output(b.op("Clip", {conv("c_relu6"), lo, hi}, {}, "relu6"));
    b.output(b.op("LeakyRelu", {conv("c_leaky")}, {{"alpha", 0.2f}}, "leaky"));
    b.output(b.op("HardSwish", {conv("c_hswish")}, {}, "hswish"));
    b.output(b.op("Sigmoid", {gemm("g_sigmoid")}, {}, "sigmoid"));
    b.output(b.op("LeakyRelu", {gemm("g_leaky")}, {{"alpha", 0.3f}}, "gleaky"));
    b.output(b.op("Clip", {gemm("g_clip"), lo, hi}, {}, "gclip"));
    b.output(b.op("HardSigmoid", {gemm("g_hsig")}, {{"alpha", 0.3f}, {"beta", 0.4f}}, "ghsig"));
    return withShapes(b.model());
}

std::vector<Tensor> runModel(const Model& m, bool referenceOnly, std::vector<PlannedNode>* plan = nullptr) {
    CompileOptions options;
    options.referenceOnly = referenceOnly;
    auto compiled = makeCpuBackend()->compile(m, options);
    if (plan) *plan = compiled->nodes();
    return compiled->run(seededFeeds(m.graph));
}

} // namespace

class TestFuseConvActivation : public QObject {
    Q_OBJECT
private slots:
    void fusesSwishIntoConvAndLowersItForOnnxRuntime() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 3, 6, 6});
        auto c = b.op("Conv", {x, b.initializer("w", seeded({4, 3, 3, 3}, 5)), b.initializer("b", seeded({4}, 6))},
                      {{"pads", {1, 1, 1, 1}}}, "conv");
        b.output(b.op("QuickGelu", {c}, {{"alpha", 1.0f}}, "silu"));
        Model m = b.model();
        m.graph.node(*m.graph.findNode("silu")).domain = "com.microsoft";
        m.opsets.push_back({"com.microsoft", 1});
        m = withShapes(m);
        const CheckedPass out = runPassChecked(m, "fuse-conv-activation");
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.graph.nodeCount(), size_t(1));
        const Node& fused = m.graph.node(m.graph.nodeIds()[0]);
        QCOMPARE(fused.opType, std::string("FusedConv"));
        QCOMPARE(fused.attributes.getString("activation"), std::string("QuickGelu"));
        // The CPU runtime runs it as one oneDNN convolution with a swish post-op.
        CompileOptions options;
        const auto plan = makeCpuBackend()->compile(m, options);
        QVERIFY(plan->nodes()[0].kernel.rfind("onednn:conv", 0) == 0);
        // ONNX Runtime's FusedConv has no swish: the export writes Conv, Sigmoid and Mul.
        Model forOrt = m;
        QCOMPARE(lowerFusedOps(forOrt, Lowering::ForOnnxRuntime), size_t(1));
        QCOMPARE(countOps(forOrt.graph, "Conv"), 1);
        QCOMPARE(countOps(forOrt.graph, "Sigmoid"), 1);
        QCOMPARE(countOps(forOrt.graph, "Mul"), 1);
        NumericChecker checker(seededFeeds(m.graph), {});
        checker.setBaseline(m);
        const VerifyReport v = checker.check(forOrt);
        QVERIFY2(v.passed, v.failure.c_str());
    }

    void fusesEveryActivationIntoConvAndGemm() {
        Model m = convAndGemmWithActivations();
        const CheckedPass out = runPassChecked(m, "fuse-conv-activation");
        QCOMPARE(countOps(m.graph, "FusedConv"), 4);
        QCOMPARE(countOps(m.graph, "FusedGemm"), 4);
        QCOMPARE(m.graph.nodeCount(), size_t(8));  // no Constant left behind
        QCOMPARE(out.result.counter("numFusedConv"), int64_t(4));
        QCOMPARE(out.result.counter("numFusedGemm"), int64_t(4));
        QVERIFY2(out.verification.passed, out.verification.failure.c_str());
        QCOMPARE(m.opsetVersion("com.microsoft"), int64_t(1));
        const Node& relu6 = m.graph.node(*m.graph.findNode("c_relu6"));
        QCOMPARE(relu6.domain, std::string("com.microsoft"));
        QCOMPARE(relu6.attributes.getString("activation"), std::string("Clip"));
        QCOMPARE(relu6.attributes.find("activation_params")->get<std::vector<float>>(), (std::vector<float>{0, 6}));
        const Node& gleaky = m.graph.node(*m.graph.findNode("g_leaky"));
        QCOMPARE(gleaky.attributes.getFloat("activation_alpha", 0), 0.3f);
        QCOMPARE(gleaky.attributes.getFloat("alpha", 0), 0.5f);  // Gemm's own alpha stays
        QVERIFY(!gleaky.attributes.has("activation_params"));
        QCOMPARE(out.result.rewrites[0].sentence, std::string("fused Relu 'relu' into Conv 'c_relu' as one FusedConv"));
        // libonnx infers through both fused ops (core/onnx/contrib_schemas).
        inferShapesForInputs(m, {{"a", {3, 8}}, {"x", {2, 3, 6, 6}}});
        QCOMPARE(m.graph.value(*m.graph.findValue("sigmoid_out")).shape, Shape({3, 5}));
        QCOMPARE(m.graph.value(*m.graph.findValue("relu_out")).shape, Shape({2, 4, 6, 6}));
    }

    void runsEachFusedNodeAsOneKernelAndMatchesTheReference() {
        Model original = convAndGemmWithActivations();
        Model m = original;
        runPassChecked(m, "fuse-conv-activation");
        std::vector<PlannedNode> plan;
        const std::vector<Tensor> fast = runModel(m, false, &plan);
        const std::vector<Tensor> oracle = runModel(m, true);
        const std::vector<Tensor> before = runModel(original, true);
        for (const PlannedNode& p : plan) {
            const std::string op = m.graph.node(p.node).opType;
            if (op == "FusedGemm") QCOMPARE(p.kernel, std::string("onednn:gemm"));
            else QVERIFY2(p.kernel.rfind("onednn:", 0) == 0, p.kernel.c_str());
        }
        QCOMPARE(fast.size(), before.size());
        for (size_t i = 0; i < fast.size(); ++i) {
            QVERIFY2(compareTensors(fast[i], oracle[i], 1e-4, 1e-5).matches, std::to_string(i).c_str());
            QVERIFY2(compareTensors(oracle[i], before[i], 1e-5, 1e-6).matches, std::to_string(i).c_str());
        }
    }

    void lowersForOnnxRuntimeOnlyWhatItCannotRun() {
        Model m = convAndGemmWithActivations();
        runPassChecked(m, "fuse-conv-activation");
        Model forOrt = m;
        // ORT lacks FusedConv HardSwish, FusedGemm Clip; it runs FusedGemm Sigmoid/LeakyRelu/HardSigmoid.
        QCOMPARE(lowerFusedOps(forOrt, Lowering::ForOnnxRuntime), size_t(2));
        QCOMPARE(countOps(forOrt.graph, "FusedConv"), 3);
        QCOMPARE(countOps(forOrt.graph, "FusedGemm"), 3);
        QCOMPARE(countOps(forOrt.graph, "HardSwish"), 1);
        QCOMPARE(countOps(forOrt.graph, "Clip"), 1);
        Model portable = m;
        QCOMPARE(lowerFusedOps(portable, Lowering::StandardOnly), size_t(8));
        QCOMPARE(countOps(portable.graph, "Gemm"), 4);
        QCOMPARE(countOps(portable.graph, "Conv"), 4);
        QCOMPARE(portable.opsetVersion("com.microsoft"), int64_t(0));
        for (const Model* lowered : {&forOrt, &portable}) {
            NumericChecker checker(seededFeeds(m.graph), {});
            checker.setBaseline(m);
            const VerifyReport v = checker.check(*lowered);
            QVERIFY2(v.passed, v.failure.c_str());
        }
    }

    /// DequantizeLinear -> Conv -> Relu -> QuantizeLinear stays: the CPU plan runs it as one int8
    /// QLinearConv, which a FusedConv would prevent.
    void keepsQdqConvolutionsForTheInt8Kernels() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto s = b.initializer("s", Tensor::scalar(0.1f));
        auto z = b.initializer("z", Tensor::fromVector<uint8_t>(DType::UInt8, {}, {3}));
        auto dx = b.op("DequantizeLinear", {b.op("QuantizeLinear", {x, s, z}, {}, "qx"), s, z}, {}, "dq");
        auto conv = b.op("Conv", {dx, b.initializer("w", seeded({2, 2, 1, 1}, 1))}, {}, "conv");
        b.output(b.op("QuantizeLinear", {b.op("Relu", {conv}, {}, "relu"), s, z}, {}, "q"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-conv-activation");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QVERIFY(declinedWith(out.result, "kept: a QDQ (int8) Conv, which the CPU plan runs as one int8 kernel"));
    }

    void declinesSharedOutputsGraphOutputsAndRuntimeBounds() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto w = b.initializer("w", seeded({2, 2, 1, 1}, 1));
        auto shared = b.op("Conv", {x, w}, {}, "shared");
        b.output(b.op("Relu", {shared}, {}, "relu_a"));
        b.output(b.op("Sigmoid", {shared}, {}, "sigmoid_b"));
        auto exposed = b.op("Conv", {x, w}, {}, "exposed");
        b.output(exposed);
        b.output(b.op("Tanh", {exposed}, {}, "tanh"));
        auto hi = b.input("hi", DType::Float, Shape(std::vector<Dim>{}));
        b.output(b.op("Clip", {b.op("Conv", {x, w}, {}, "clipped"), b.initializer("lo", Tensor::scalar(0.0f)), hi}, {}, "clip"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-conv-activation");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QCOMPARE(countOps(m.graph, "Conv"), 3);
        QVERIFY(declinedWith(out.result, "kept: the output of Conv 'shared' is read by 2 nodes"));
        QVERIFY(declinedWith(out.result, "kept: the output of Conv 'exposed' is a graph output"));
        QVERIFY(declinedWith(out.result, "kept: a Clip bound is not a constant"));
    }

    void keepsAConvWhoseOutputASubgraphReadsByName() {
        GraphBuilder b;
        auto x = b.input("x", DType::Float, {1, 2, 4, 4});
        auto conv = b.op("Conv", {x, b.initializer("w", seeded({2, 2, 1, 1}, 1))}, {}, "conv");
        GraphBuilder thenB("then"), elseB("else");
        const ValueId outer = thenB.graph().addValue(b.graph().value(conv).name, DType::Float, Shape({1, 2, 4, 4}));
        thenB.graph().value(outer).outerScope = true;
        thenB.output(thenB.op("Identity", {outer}, {}, "pass"));
        elseB.output(elseB.constant(Tensor::floats({1, 2, 4, 4}, std::vector<float>(32, 0.0f))));
        auto cond = b.initializer("cond", Tensor::fromVector<uint8_t>(DType::Bool, {}, {1}));
        b.output(b.op("If", {cond}, {{"then_branch", GraphPtr(std::make_shared<Graph>(thenB.graph()))},
                                     {"else_branch", GraphPtr(std::make_shared<Graph>(elseB.graph()))}}, "choose"));
        b.output(b.op("Relu", {conv}, {}, "relu"));
        Model m = withShapes(b.model());
        const CheckedPass out = runPassChecked(m, "fuse-conv-activation");
        QCOMPARE(out.result.rewrites.size(), size_t(0));
        QCOMPARE(countOps(m.graph, "Relu"), 1);
        QVERIFY(declinedWith(out.result, "kept: a sub-graph reads the output of Conv 'conv' by name"));
        QVERIFY(out.verification.passed);
    }
};

QTEST_GUILESS_MAIN(TestFuseConvActivation)
#include "tst_fuse_conv_activation.moc"
