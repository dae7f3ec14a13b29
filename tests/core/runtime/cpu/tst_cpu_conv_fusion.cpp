// The CPU plan's kernel fusion (core/runtime/cpu/conv_fusion.h) on graphs run without passes:
// exactly the fusions the graph allows are made (a Conv's output read twice or a graph output is
// never fused away), the step line counts them, the outputs equal the reference kernels', and the
// plan and the per-node profile still list every node of the caller's graph, the absorbed ones
// as fused into their Conv with no time of their own.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/tensor_compare.h"
#include "profiler/profile_session.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace graphlens;
using graphlens::testing::seeded;

namespace {

/// Small 2-D convolution graphs on one [1, 16, 12, 12] image, weights seeded by count.
class ConvGraph {
public:
    ConvGraph() { x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 12, 12})); }

    /// Conv with bias: 3x3 padded by 1, or 1x1.
    ValueId conv(ValueId in, int64_t inChannels, int64_t out, int64_t kernel, const std::string& name) {
        const uint64_t k = ++count_;
        const ValueId w = b.initializer(name + "_w", seeded({out, inChannels, kernel, kernel}, k, -0.3f, 0.3f));
        const ValueId bias = b.initializer(name + "_b", seeded({out}, 100 + k));
        Attributes a;
        if (kernel == 3) a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
        return b.op("Conv", {in, w, bias}, a, name);
    }
    /// Inference BatchNormalization with seeded parameters (variances in [0.5, 1.5)).
    ValueId batchNorm(ValueId in, int64_t channels, const std::string& name) {
        const uint64_t k = ++count_;
        const ValueId scale = b.initializer(name + "_scale", seeded({channels}, 200 + k));
        const ValueId shift = b.initializer(name + "_shift", seeded({channels}, 300 + k));
        const ValueId mean = b.initializer(name + "_mean", seeded({channels}, 400 + k));
        const ValueId var = b.initializer(name + "_var", seeded({channels}, 500 + k, 0.5f, 1.5f));
        return b.op("BatchNormalization", {in, scale, shift, mean, var}, {}, name);
    }

    GraphBuilder b;
    ValueId x = kNoId;

private:
    int count_ = 0;
};

std::map<std::string, Tensor> feeds() { return {{"x", seeded({1, 16, 12, 12}, 7)}}; }

std::unique_ptr<Plan> compile(const Model& m, bool fuse = true, bool reference = false) {
    CompileOptions options;
    options.threads = 2;
    options.fuseKernels = fuse;
    options.referenceOnly = reference;
    return makeCpuBackend()->compile(m, options);
}

/// The largest magnitude in `t` (float), at least 1.
double scaleOf(const Tensor& t) {
    double scale = 1;
    for (float v : t.span<float>()) scale = std::max(scale, double(std::fabs(v)));
    return scale;
}

/// The plan's outputs equal `expectedPlan`'s within float tolerance (1e-4 relative, 1e-5 of the
/// output's largest magnitude absolute: stacked convolutions sum hundreds of products, so an
/// output near zero keeps the rounding of its large terms), twice (the second run on the reused
/// arena).
void expectOutputsOf(Plan& expectedPlan, Plan& plan) {
    const std::vector<Tensor> expected = expectedPlan.run(feeds());
    for (int run = 0; run < 2; ++run) {
        const std::vector<Tensor> got = plan.run(feeds());
        QCOMPARE(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
            const TensorComparison c = compareTensors(got[i], expected[i], 1e-4, 1e-5 * scaleOf(expected[i]));
            QVERIFY2(c.matches, (std::to_string(i) + ": " + c.mismatch).c_str());
        }
    }
}

/// The plan's outputs equal the reference kernels' (expectOutputsOf).
void expectReferenceOutputs(Plan& plan, const Model& m) { expectOutputsOf(*compile(m, false, true), plan); }

/// The names of the planned nodes fused into another, with the name of the node they went into.
std::map<std::string, std::string> fusedInto(const Plan& plan, const Graph& g) {
    std::map<std::string, std::string> fused;
    for (const PlannedNode& n : plan.nodes())
        if (n.fusedInto != kNoId) fused[g.node(n.node).name] = g.node(n.fusedInto).name;
    return fused;
}

/// The plan's preparation step that starts with `start`; empty when there is none.
std::string step(const Plan& plan, const std::string& start) {
    for (const std::string& line : plan.preparation())
        if (line.rfind(start, 0) == 0) return line;
    return {};
}

std::string fusionStep(const Plan& plan) { return step(plan, "fused "); }
std::string resolvedStep(const Plan& plan) { return step(plan, "read the constants of "); }

/// Whether every node of `g` is planned exactly once.
bool plansEveryNodeOnce(const Plan& plan, const Graph& g) {
    std::set<NodeId> planned;
    for (const PlannedNode& n : plan.nodes()) planned.insert(n.node);
    return plan.nodes().size() == g.nodeIds().size() && planned.size() == g.nodeIds().size();
}

} // namespace

class TestConvFusion : public QObject {
    Q_OBJECT
private slots:
    /// Conv -> BatchNormalization -> Relu and a residual Conv -> Add fuse (three nodes into two
    /// kernels); a Conv read by two nodes and a Conv whose output is a graph output keep their
    /// consumers as kernels of their own.
    void fusesExactlyWhatTheGraphAllows() {
        ConvGraph c;
        const ValueId r1 = c.b.op("Relu", {c.batchNorm(c.conv(c.x, 16, 32, 3, "conv1"), 32, "bn1")}, {}, "relu1");
        const ValueId a2 = c.b.op("Add", {c.conv(r1, 32, 32, 3, "conv2"), r1}, {}, "add2");
        const ValueId c3 = c.conv(a2, 32, 32, 1, "conv3");  // read twice
        const ValueId o3 = c.b.op("Add", {c.b.op("Relu", {c3}, {}, "relu3"), c.b.op("Sigmoid", {c3}, {}, "sigmoid3")}, {}, "add3");
        const ValueId c4 = c.conv(o3, 32, 16, 1, "conv4");  // a graph output, read by relu4 too
        c.b.output(c4);
        c.b.output(c.b.op("Relu", {c4}, {}, "relu4"));
        const Model m = c.b.model(17);

        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 3 nodes into the kernels of 2 others: 1 Add, 1 BatchNormalization, "
                                                "1 Relu; the graph keeps its nodes, whose times are those kernels'"));
        QCOMPARE(fusedInto(*plan, m.graph),
                 (std::map<std::string, std::string>{{"add2", "conv2"}, {"bn1", "conv1"}, {"relu1", "conv1"}}));
        // Every node of the caller's graph is planned once, in its order.
        QCOMPARE(plan->nodes().size(), m.graph.nodeIds().size());
        std::set<NodeId> planned;
        for (const PlannedNode& n : plan->nodes()) planned.insert(n.node);
        QCOMPARE(planned.size(), m.graph.nodeIds().size());
        for (const PlannedNode& n : plan->nodes())
            if (n.fusedInto != kNoId) QVERIFY2(n.kernel.rfind("fused into onednn:conv", 0) == 0, n.kernel.c_str());
        expectReferenceOutputs(*plan, m);

        // Without fusion: no step line, no node fused, the same results.
        auto unfused = compile(m, false);
        QCOMPARE(fusionStep(*unfused), std::string());
        QVERIFY(fusedInto(*unfused, m.graph).empty());
        expectReferenceOutputs(*unfused, m);
    }

    /// The per-node profile of a fused plan lists every node of the graph: the fused kernel's time
    /// under its Conv, the absorbed nodes with no time, their kernel saying where they went.
    void profileListsEveryGraphNode() {
        ConvGraph c;
        const ValueId r1 = c.b.op("Relu", {c.batchNorm(c.conv(c.x, 16, 32, 3, "conv1"), 32, "bn1")}, {}, "relu1");
        c.b.output(c.b.op("Add", {c.conv(r1, 32, 32, 3, "conv2"), r1}, {}, "add2"));
        const Model m = c.b.model(17);
        auto plan = compile(m);
        ProfileOptions options;
        options.warmupRuns = 1;
        options.runs = 3;
        const ProfileResult profile = profilePlan(*plan, m.graph, feeds(), options);
        std::map<std::string, const NodeProfile*> byName;
        for (const NodeProfile& p : profile.nodes) byName[p.name] = &p;
        QCOMPARE(byName.size(), size_t(5));
        for (const char* name : {"conv1", "bn1", "relu1", "conv2", "add2"}) QVERIFY2(byName.count(name), name);
        // add2's output is a graph output: the residual still fuses (the Add computes it).
        for (const char* name : {"bn1", "relu1", "add2"}) {
            QCOMPARE(byName[name]->ms.median, 0.0);
            QVERIFY2(byName[name]->kernel.rfind("fused into onednn:conv", 0) == 0, byName[name]->kernel.c_str());
        }
        QVERIFY(byName["conv1"]->ms.median > 0);
        QVERIFY(byName["conv1"]->kernel.rfind("onednn:conv", 0) == 0);
        QCOMPARE(profile.memorySteps.size(), size_t(5));
        QCOMPARE(profile.events.size(), size_t(5 * 3));
    }

    /// A residual Z that dies at its fused Conv is added where it lies: the output takes over its
    /// buffer (the plan's one in-place tensor); a Z that is also the Conv's input (conv(x) + x,
    /// in fusesExactlyWhatTheGraphAllows) is not, and both equal the reference.
    void residualIsAddedInPlace() {
        ConvGraph c;
        const ValueId a = c.b.op("Relu", {c.conv(c.x, 16, 32, 3, "conv1")}, {}, "relu1");
        const ValueId d = c.conv(a, 32, 32, 3, "conv2");
        c.b.output(c.b.op("Add", {c.conv(d, 32, 32, 3, "conv3"), a}, {}, "add3"));
        const Model m = c.b.model(17);
        auto plan = compile(m);
        QCOMPARE(fusedInto(*plan, m.graph), (std::map<std::string, std::string>{{"add3", "conv3"}, {"relu1", "conv1"}}));
        QCOMPARE(plan->memoryPlan().inPlaceCount, 0);  // add3's output is a graph output, outside the arena
        expectReferenceOutputs(*plan, m);

        ConvGraph inner;  // the same with one more conv after the sum: now the sum lives in the arena
        const ValueId ia = inner.b.op("Relu", {inner.conv(inner.x, 16, 32, 3, "conv1")}, {}, "relu1");
        const ValueId id = inner.conv(ia, 32, 32, 3, "conv2");
        const ValueId sum = inner.b.op("Add", {inner.conv(id, 32, 32, 3, "conv3"), ia}, {}, "add3");
        inner.b.output(inner.conv(sum, 32, 16, 3, "conv4"));
        const Model im = inner.b.model(17);
        auto innerPlan = compile(im);
        QCOMPARE(innerPlan->memoryPlan().inPlaceCount, 1);
        expectReferenceOutputs(*innerPlan, im);
    }

    /// EfficientNet's Conv -> BatchNormalization -> x * sigmoid(x) is one kernel; its
    /// squeeze-and-excitation gate Conv -> Sigmoid fuses the Sigmoid, not the Mul by another tensor.
    void siluAndGateFuse() {
        ConvGraph c;
        const ValueId bn = c.batchNorm(c.conv(c.x, 16, 32, 3, "conv1"), 32, "bn1");
        const ValueId silu = c.b.op("Mul", {bn, c.b.op("Sigmoid", {bn}, {}, "sigmoid1")}, {}, "mul1");
        const ValueId pooled = c.b.op("GlobalAveragePool", {silu}, {}, "pool");
        const ValueId gate = c.b.op("Sigmoid", {c.conv(pooled, 32, 32, 1, "conv2")}, {}, "sigmoid2");
        c.b.output(c.b.op("Mul", {gate, silu}, {}, "mul2"));
        const Model m = c.b.model(17);
        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 4 nodes into the kernels of 2 others: 1 BatchNormalization, 1 Mul, "
                                                "2 Sigmoid; the graph keeps its nodes, whose times are those kernels'"));
        QCOMPARE(fusedInto(*plan, m.graph), (std::map<std::string, std::string>{
                                                {"bn1", "conv1"}, {"mul1", "conv1"}, {"sigmoid1", "conv1"}, {"sigmoid2", "conv2"}}));
        QCOMPARE(plan->nodes().size(), m.graph.nodeIds().size());
        expectReferenceOutputs(*plan, m);
    }

    /// paddle2onnx's HardSwish, x * Clip(x + 3, 0, 6) / 6, in an opset-11 model (PP-OCR): the
    /// plan fuses it into the Conv before it although the model's opset has no HardSwish
    /// operator (the pass library's fuse-hardswish declines there, since it would write one).
    void hardSwishFusesBelowOpset14() {
        ConvGraph c;
        auto scalar = [&](const std::string& name, float v) { return c.b.initializer(name, Tensor::scalar(v)); };
        const ValueId bn = c.batchNorm(c.conv(c.x, 16, 32, 3, "conv1"), 32, "bn1");
        const ValueId shifted = c.b.op("Add", {bn, scalar("three", 3)}, {}, "add1");
        const ValueId relu6 = c.b.op("Clip", {shifted, scalar("zero", 0), scalar("six", 6)}, {}, "clip1");
        const ValueId product = c.b.op("Mul", {bn, relu6}, {}, "mul1");
        const ValueId hardSwish = c.b.op("Div", {product, scalar("six_again", 6)}, {}, "div1");
        c.b.output(c.conv(hardSwish, 32, 16, 1, "conv2"));
        const Model m = c.b.model(11);
        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 5 nodes into the kernels of 1 other: 1 Add, 1 BatchNormalization, "
                                                "1 Clip, 1 Div, 1 Mul; the graph keeps its nodes, whose times are those kernels'"));
        QCOMPARE(fusedInto(*plan, m.graph), (std::map<std::string, std::string>{
                                                {"add1", "conv1"}, {"bn1", "conv1"}, {"clip1", "conv1"}, {"div1", "conv1"}, {"mul1", "conv1"}}));
        expectReferenceOutputs(*plan, m);
    }

    /// PP-LCNet's learnable affine block, Conv -> * scale -> + bias (one number, or one per
    /// channel) -> activation, is one kernel: the scale and bias go into a copy of the weights. A
    /// constant that varies along the rows is no per-channel map and stays a kernel of its own.
    void constantScaleAndShiftFoldIntoTheConv() {
        ConvGraph c;
        const ValueId scaled = c.b.op("Mul", {c.b.initializer("scale", Tensor::scalar(0.75f)), c.conv(c.x, 16, 32, 3, "conv1")}, {}, "mul1");
        const ValueId shifted = c.b.op("Add", {scaled, c.b.initializer("shift", seeded({1, 32, 1, 1}, 9))}, {}, "add1");
        const ValueId r1 = c.b.op("Relu", {shifted}, {}, "relu1");
        const ValueId rows = c.b.op("Mul", {c.conv(r1, 32, 16, 1, "conv2"), c.b.initializer("rows", seeded({1, 1, 12, 1}, 10))}, {}, "mul2");
        c.b.output(rows);
        const Model m = c.b.model(17);
        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 3 nodes into the kernels of 1 other: 1 Add, 1 Mul, 1 Relu; "
                                                "the graph keeps its nodes, whose times are those kernels'"));
        QCOMPARE(fusedInto(*plan, m.graph),
                 (std::map<std::string, std::string>{{"add1", "conv1"}, {"mul1", "conv1"}, {"relu1", "conv1"}}));
        expectReferenceOutputs(*plan, m);
    }

    /// MobileNetV2 as PyTorch exports it with its BatchNorms kept: the BatchNorm parameters reach
    /// the BatchNorm through Identity nodes (one through two of them; the second block's share the
    /// first's initializers) and Clip's bounds come from Constant nodes. The plan reads those
    /// constants where they are used, so Conv -> BatchNormalization -> Clip and the residual
    /// Conv -> BatchNormalization -> Add fuse as they do when the initializers are read directly;
    /// an Identity whose output is a graph output keeps its kernel.
    void batchNormParametersThroughIdentityFuse() {
        ConvGraph c;
        const ValueId gamma = c.b.initializer("gamma", seeded({32}, 201));
        const ValueId beta = c.b.initializer("beta", seeded({32}, 301));
        const ValueId mean = c.b.initializer("mean", seeded({32}, 401));
        const ValueId var = c.b.initializer("var", seeded({32}, 501, 0.5f, 1.5f));
        const auto batchNorm = [&](ValueId in, const std::string& k, bool chained) {
            const auto passOn = [&](ValueId v, const std::string& name) { return c.b.op("Identity", {v}, {}, name + k); };
            const ValueId m = chained ? passOn(passOn(mean, "mean_a"), "mean") : passOn(mean, "mean");
            return c.b.op("BatchNormalization", {in, passOn(gamma, "gamma"), passOn(beta, "beta"), m, passOn(var, "var")}, {}, "bn" + k);
        };
        const ValueId bn1 = batchNorm(c.conv(c.x, 16, 32, 3, "conv1"), "1", true);
        const ValueId clip1 = c.b.op("Clip", {bn1, c.b.constant(Tensor::scalar(0.0f), "min1"), c.b.constant(Tensor::scalar(1.0f), "max1")}, {}, "clip1");
        c.b.output(c.b.op("Add", {batchNorm(c.conv(clip1, 32, 32, 3, "conv2"), "2", false), clip1}, {}, "add2"));
        c.b.output(c.b.op("Identity", {gamma}, {}, "exported"));
        const Model m = c.b.model(17);

        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 4 nodes into the kernels of 2 others: 1 Add, 2 BatchNormalization, "
                                                "1 Clip; the graph keeps its nodes, whose times are those kernels'"));
        QCOMPARE(resolvedStep(*plan), std::string("read the constants of 11 nodes where they are used: 2 Constant, 9 Identity; "
                                                  "they show as fused into the kernels that read them"));
        QCOMPARE(fusedInto(*plan, m.graph),
                 (std::map<std::string, std::string>{{"add2", "conv2"}, {"beta1", "conv1"}, {"beta2", "conv2"}, {"bn1", "conv1"},
                                                     {"bn2", "conv2"}, {"clip1", "conv1"}, {"gamma1", "conv1"}, {"gamma2", "conv2"},
                                                     {"max1", "conv1"}, {"mean1", "conv1"}, {"mean2", "conv2"}, {"mean_a1", "conv1"},
                                                     {"min1", "conv1"}, {"var1", "conv1"}, {"var2", "conv2"}}));
        QVERIFY(plansEveryNodeOnce(*plan, m.graph));
        expectOutputsOf(*compile(m, false), *plan);
        expectReferenceOutputs(*plan, m);

        // Without fusion every Identity and Constant node runs as it is.
        auto unfused = compile(m, false);
        QCOMPARE(resolvedStep(*unfused), std::string());
        QVERIFY(fusedInto(*unfused, m.graph).empty());
        QVERIFY(plansEveryNodeOnce(*unfused, m.graph));
    }

    /// Clip(Conv(x), min, max) with bounds from Constant nodes is one kernel; two Clips reading the
    /// same Constant nodes both fuse, and the Constants show as fused into the first one's Conv.
    /// The profile lists every node: the Constants with no time, as the absorbed Clips.
    void clipBoundsFromConstantNodesFuse() {
        ConvGraph c;
        const ValueId low = c.b.constant(Tensor::scalar(0.0f), "low");
        const ValueId high = c.b.constant(Tensor::scalar(0.5f), "high");
        const ValueId clip1 = c.b.op("Clip", {c.conv(c.x, 16, 32, 3, "conv1"), low, high}, {}, "clip1");
        c.b.output(c.b.op("Clip", {c.conv(clip1, 32, 16, 1, "conv2"), low, high}, {}, "clip2"));
        const Model m = c.b.model(17);

        auto plan = compile(m);
        QCOMPARE(fusionStep(*plan), std::string("fused 2 nodes into the kernels of 2 others: 2 Clip; the graph keeps its "
                                                "nodes, whose times are those kernels'"));
        QCOMPARE(resolvedStep(*plan), std::string("read the constants of 2 nodes where they are used: 2 Constant; they show "
                                                  "as fused into the kernels that read them"));
        QCOMPARE(fusedInto(*plan, m.graph), (std::map<std::string, std::string>{
                                                {"clip1", "conv1"}, {"clip2", "conv2"}, {"high", "conv1"}, {"low", "conv1"}}));
        QVERIFY(plansEveryNodeOnce(*plan, m.graph));
        expectOutputsOf(*compile(m, false), *plan);

        ProfileOptions options;
        options.warmupRuns = 1;
        options.runs = 2;
        const ProfileResult profile = profilePlan(*plan, m.graph, feeds(), options);
        std::map<std::string, const NodeProfile*> byName;
        for (const NodeProfile& p : profile.nodes) byName[p.name] = &p;
        QCOMPARE(byName.size(), size_t(6));
        for (const char* name : {"low", "high", "clip1", "clip2"}) {
            QVERIFY2(byName.count(name), name);
            QCOMPARE(byName[name]->ms.median, 0.0);
            QVERIFY2(byName[name]->kernel.rfind("fused into onednn:conv", 0) == 0, byName[name]->kernel.c_str());
        }
        QCOMPARE(profile.events.size(), size_t(6 * 2));
    }
};

QTEST_MAIN(TestConvFusion)
#include "tst_cpu_conv_fusion.moc"
