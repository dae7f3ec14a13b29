// The CPU plan's blocked layouts: activations between oneDNN kernels stay in oneDNN's blocked
// layout (channels padded to the block) exactly where producer and every consumer agree, and the
// results still equal the reference executor's; graph outputs and values another kernel reads
// stay plain.
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/cpu/conv_tuning.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/winograd_conv.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <random>

using namespace graphlens;

namespace {

using Dims = std::vector<int64_t>;

Tensor randomTensor(Dims dims, unsigned seed, float scale = 1.f) {
    Tensor t = Tensor::allocate(DType::Float, std::move(dims));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-scale, scale);
    for (float& v : t.mutableSpan<float>()) v = uniform(rng);
    return t;
}

/// A graph of 2-D convolutions and pools on one image, every value's shape and type declared
/// (as a loaded model has them), so the plan needs no shape inference.
class Chain {
public:
    explicit Chain(Dims input) {
        x = b.input("x", DType::Float, Shape::ofSizes(input));
        feeds["x"] = randomTensor(input, 1);
        declare(x, std::move(input));
    }

    /// Conv (3x3 pad 1, or 1x1) with bias; FusedConv when `activation` or `residual` is given.
    ValueId conv(ValueId in, int64_t out, int64_t kernel, const std::string& activation = {}, ValueId residual = kNoId) {
        const Dims xd = dimsOf(in);
        const int k = ++count_;
        const ValueId w = b.initializer("w" + std::to_string(k), randomTensor({out, xd[1], kernel, kernel}, k, 0.3f));
        const ValueId bias = b.initializer("b" + std::to_string(k), randomTensor({out}, 100 + k));
        Attributes a;
        if (kernel == 3) a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
        if (!activation.empty()) a.set("activation", activation);
        const bool fused = !activation.empty() || residual != kNoId;
        std::vector<ValueId> inputs{in, w, bias};
        if (residual != kNoId) inputs.push_back(residual);
        const ValueId y = b.op(fused ? "FusedConv" : "Conv", inputs, a);
        if (fused) b.graph().node(b.lastNode()).domain = "com.microsoft";
        return declare(y, {xd[0], out, xd[2], xd[3]});
    }
    ValueId maxPool(ValueId in) {
        const Dims xd = dimsOf(in);
        const ValueId y = b.op("MaxPool", {in}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
        return declare(y, {xd[0], xd[1], xd[2] / 2, xd[3] / 2});
    }
    /// An element-wise op (never a oneDNN kernel).
    ValueId unary(const std::string& op, ValueId in) { return declare(b.op(op, {in}), dimsOf(in)); }
    ValueId add(ValueId l, ValueId r) { return binary("Add", l, r); }
    /// Add or Mul; the output has the shape of the operand with more elements (no general broadcast).
    ValueId binary(const std::string& op, ValueId l, ValueId r) {
        const Dims ld = dimsOf(l), rd = dimsOf(r);
        return declare(b.op(op, {l, r}), elements(ld) >= elements(rd) ? ld : rd);
    }
    ValueId globalAveragePool(ValueId in) {
        const Dims xd = dimsOf(in);
        return declare(b.op("GlobalAveragePool", {in}), {xd[0], xd[1], 1, 1});
    }
    /// Concat along the channels.
    ValueId concat(const std::vector<ValueId>& parts) {
        Dims d = dimsOf(parts.at(0));
        d[1] = 0;
        for (ValueId v : parts) d[1] += dimsOf(v)[1];
        Attributes a;
        a.set("axis", int64_t(1));
        return declare(b.op("Concat", parts, a), d);
    }
    /// Inference BatchNormalization with random parameters (variances in [0.5, 1.5]).
    ValueId batchNorm(ValueId in) {
        const int64_t channels = dimsOf(in)[1];
        const ValueId scale = constant({channels}), shift = constant({channels}), mean = constant({channels});
        Tensor var = randomTensor({channels}, 300 + ++count_, 0.5f);
        for (float& v : var.mutableSpan<float>()) v += 1.f;
        const ValueId variance = declare(b.initializer("var" + std::to_string(count_), var), {channels});
        return declare(b.op("BatchNormalization", {in, scale, shift, mean, variance}), dimsOf(in));
    }
    /// Clip(in, 0, 6): ReLU6, its bounds constant inputs.
    ValueId relu6(ValueId in) {
        const int k = ++count_;
        const ValueId lo = declare(b.initializer("lo" + std::to_string(k), Tensor::scalar(0.f)), {});
        const ValueId hi = declare(b.initializer("hi" + std::to_string(k), Tensor::scalar(6.f)), {});
        return declare(b.op("Clip", {in, lo, hi}), dimsOf(in));
    }
    /// A constant operand (an initializer).
    ValueId constant(Dims dims) {
        const int k = ++count_;
        const ValueId c = b.initializer("c" + std::to_string(k), randomTensor(dims, 200 + k));
        return declare(c, std::move(dims));
    }
    /// Squeeze-and-excitation on `in`: GlobalAveragePool, 1x1 conv + Relu down to `squeezed`
    /// channels, 1x1 conv + Sigmoid back, and the channel scales times `in` (as EfficientNet
    /// writes it: Mul(scale, x)).
    ValueId squeezeExcite(ValueId in, int64_t squeezed) {
        const ValueId pooled = globalAveragePool(in);
        const ValueId scale = conv(conv(pooled, squeezed, 1, "Relu"), dimsOf(in)[1], 1, "Sigmoid");
        return binary("Mul", scale, in);
    }

    Dims dimsOf(ValueId v) const { return dims_.at(size_t(v)); }

    GraphBuilder b;
    ValueId x = kNoId;
    std::map<std::string, Tensor> feeds;

private:
    static int64_t elements(const Dims& d) {
        int64_t n = 1;
        for (int64_t v : d) n *= v;
        return n;
    }
    ValueId declare(ValueId v, Dims dims) {
        b.graph().value(v).dtype = DType::Float;
        b.graph().value(v).shape = Shape::ofSizes(dims);
        if (dims_.size() <= size_t(v)) dims_.resize(size_t(v) + 1);
        dims_[size_t(v)] = std::move(dims);
        return v;
    }
    std::vector<Dims> dims_;
    int count_ = 0;
};

/// `channels` padded to this machine's channel block (8 on AVX2, 16 on AVX-512): what a blocked
/// activation holds per pixel.
int64_t paddedChannels(int64_t channels) {
    const int64_t block = onednn::channelBlock();
    return (channels + block - 1) / block * block;
}

/// Values the plan keeps blocked: each has one producer whose kernel says it writes "out" blocked.
int blockedValues(const Plan& plan) {
    int count = 0;
    for (const PlannedNode& n : plan.nodes())
        count += n.kernel.find("[blocked") != std::string::npos && n.kernel.find("out]") != std::string::npos;
    return count;
}

std::vector<std::string> kernelNames(const Plan& plan) {
    std::vector<std::string> names;
    for (const PlannedNode& n : plan.nodes()) names.push_back(n.kernel);
    return names;
}

/// Runs the optimized plan twice (the second on the reused arena) against `expected`.
void expectOutputs(Plan& plan, const std::map<std::string, Tensor>& feeds, const std::vector<Tensor>& expected) {
    for (int run = 0; run < 2; ++run) {
        const std::vector<Tensor> got = plan.run(feeds);
        QCOMPARE(got.size(), expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
            const TensorComparison c = compareTensors(got[i], expected[i], 1e-4, 1e-5);
            QVERIFY2(c.matches, (std::to_string(i) + ": " + c.mismatch).c_str());
        }
    }
}

std::vector<Tensor> referenceOutputs(const Model& m, const std::map<std::string, Tensor>& feeds) {
    CompileOptions reference;
    reference.referenceOnly = true;
    return makeCpuBackend()->compile(m, reference)->run(feeds);
}

/// Runs both plans and expects the very same outputs, bit for bit.
void expectIdenticalOutputs(Plan& plan, Plan& other, const std::map<std::string, Tensor>& feeds) {
    const std::vector<Tensor> got = plan.run(feeds), expected = other.run(feeds);
    QVERIFY(got.size() <= expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        const TensorComparison c = compareTensors(got[i], expected[i], 0, 0);
        QVERIFY2(c.matches, (std::to_string(i) + ": " + c.mismatch).c_str());
    }
}

std::unique_ptr<Plan> optimizedPlan(const Model& m, bool fuseKernels = true) {
    CompileOptions options;
    options.threads = 2;
    options.fuseKernels = fuseKernels;
    return makeCpuBackend()->compile(m, options);
}

struct LayoutGuard {
    ~LayoutGuard() { onednn::setConvLayoutPolicy(onednn::ConvLayout::Auto); }
};

/// Measured algorithms (conv_tuning.h) on, remembered in a file of a fresh folder; off again after.
struct TuningGuard {
    QTemporaryDir dir;
    std::filesystem::path file = std::filesystem::path(dir.path().toStdString()) / "cache" / "conv_algorithms.tsv";
    TuningGuard() {
        onednn::setConvAlgorithm(onednn::ConvAlgorithm::Auto);
        setConvTuning(true);
        setConvTuningCachePath(file);
        takeConvTuningCounts();
    }
    ~TuningGuard() {
        setConvTuning(false);
        setConvTuningCachePath({});
    }
};

/// The cache file's entries: (layer, algorithm, measured times) per line that is not a comment.
std::vector<std::array<std::string, 3>> cacheEntries(const std::filesystem::path& file) {
    std::vector<std::array<std::string, 3>> entries;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const size_t a = line.find('\t'), b = line.find('\t', a + 1);
        if (a == std::string::npos || b == std::string::npos) return {};
        entries.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
    }
    return entries;
}

/// Rewrites the algorithm of every entry of the cache file to `algorithm`, and makes the
/// process read the file again.
void plantAlgorithm(const std::filesystem::path& file, const std::string& algorithm) {
    auto entries = cacheEntries(file);
    std::ofstream out(file, std::ios::trunc);
    for (const auto& e : entries) out << e[0] << '\t' << algorithm << '\t' << e[2] << '\n';
    out.close();
    setConvTuningCachePath(file);
}

/// The kernel name prefix of an algorithm as the cache names it.
std::string kernelOf(const std::string& algorithm) {
    if (algorithm == "winograd") return "onednn:conv_winograd[";
    if (algorithm == "onednn-winograd") return "onednn:conv_winograd_4x3[";
    return "onednn:conv[";
}

bool hasLine(const Plan& plan, const std::string& line) {
    const auto& lines = plan.preparation();
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

} // namespace

class TestCpuLayout : public QObject {
    Q_OBJECT
private slots:
    // The kernel names below are the direct kernels'; Winograd's are checked where named.
    void init() { onednn::setConvAlgorithm(onednn::ConvAlgorithm::Direct); }
    void cleanup() { onednn::setConvAlgorithm(onednn::ConvAlgorithm::Auto); }

    /// Conv -> Conv -> MaxPool -> Conv: the three values between them stay blocked, 20 channels
    /// padded to the block in the arena (24 on AVX2, 32 on AVX-512).
    void convPoolChainStaysBlocked() {
        Chain c({1, 16, 20, 20});
        const ValueId a = c.conv(c.x, 20, 3), d = c.conv(a, 20, 3), p = c.maxPool(d);
        c.b.output(c.conv(p, 24, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 3);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv[blocked out]", "onednn:conv[blocked in,out]",
                                                                "onednn:pool[blocked in,out]", "onednn:conv[blocked in]"}));
        // nChw8c or nChw16c: 24 or 32 channel slots of 20x20, 20x20 and 10x10 floats
        QCOMPARE(plan->memoryPlan().naiveBytes, uint64_t(4 * paddedChannels(20) * (400 + 400 + 100)));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// With every convolution blocked, 12 and 20 channels (padded to 16 and 24, or 16 and 32 on AVX-512) chain as well.
    void channelsOffTheBlockChainBlocked() {
        LayoutGuard guard;
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        Chain c({1, 12, 14, 14});
        const ValueId a = c.conv(c.x, 12, 3), d = c.conv(a, 20, 3), p = c.maxPool(d);
        c.b.output(c.conv(p, 12, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 3);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// FusedConv's residual Z arrives blocked when it has the layout of the conv's output, for
    /// the direct kernel and for Winograd, which computes on the same layouts.
    void fusedConvReadsTheResidualBlocked_data() {
        QTest::addColumn<bool>("winograd");
        QTest::newRow("direct") << false;
        QTest::newRow("winograd") << true;
    }
    void fusedConvReadsTheResidualBlocked() {
        QFETCH(bool, winograd);
        if (winograd) onednn::setConvAlgorithm(onednn::ConvAlgorithm::Winograd);
        Chain c({1, 16, 12, 12});
        const ValueId a = c.conv(c.x, 32, 3, "Relu");
        const ValueId r = c.conv(a, 32, 3, "Relu", a);
        c.b.output(c.conv(r, 32, 1));
        auto plan = optimizedPlan(c.b.model(17));
        QCOMPARE(blockedValues(*plan), 2);
        QCOMPARE(kernelNames(*plan)[1], std::string(winograd ? "onednn:conv_winograd[blocked in,residual,out]"
                                                              : "onednn:conv[blocked in,residual,out]"));

        Chain ref({1, 16, 12, 12});  // the same weights, unfused
        const ValueId ra = ref.unary("Relu", ref.conv(ref.x, 32, 3));
        const ValueId rr = ref.unary("Relu", ref.add(ref.conv(ra, 32, 3), ra));
        ref.b.output(ref.conv(rr, 32, 1));
        expectOutputs(*plan, c.feeds, runReference(ref.b.graph(), 17, ref.feeds));
    }

    /// A value that is also a graph output stays plain (the caller reads it), and so does
    /// everything that reaches it; the chain after it still goes blocked.
    void graphOutputsStayPlain() {
        Chain c({1, 16, 10, 10});
        const ValueId a = c.conv(c.x, 32, 3), d = c.conv(a, 32, 3);
        c.b.output(a);
        c.b.output(c.conv(d, 32, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 1);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv", "onednn:conv[blocked out]",
                                                                "onednn:conv[blocked in]"}));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// A value read by a conv and by an element-wise kernel stays plain.
    void valueReadByAnotherKernelStaysPlain() {
        Chain c({1, 16, 10, 10});
        const ValueId a = c.conv(c.x, 32, 3);
        const ValueId s = c.unary("Sigmoid", a);
        c.b.output(c.add(c.conv(a, 32, 3), s));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m, false);  // the Add on a kernel of its own, not the conv's residual
        QCOMPARE(blockedValues(*plan), 0);
        QCOMPARE(kernelNames(*plan)[0], std::string("onednn:conv"));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// A large 1x1 conv computes on NCHW alone, but blocked between blocked neighbours; first in
    /// the graph (its input plain) it stays plain.
    void largePointwiseConvJoinsABlockedChain() {
        Chain c({1, 32, 24, 24});
        const ValueId p = c.conv(c.x, 32, 1), a = c.conv(p, 32, 3), d = c.conv(a, 64, 1);
        c.b.output(c.conv(d, 32, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 2);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv", "onednn:conv[blocked out]",
                                                                "onednn:conv[blocked in,out]", "onednn:conv[blocked in]"}));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// With an activation, a large 1x1 conv computes blocked even alone (NCHW's GEMM applies
    /// activations element by element afterwards), so it hands its output on blocked.
    void largePointwiseConvWithActivationComputesBlocked() {
        Chain c({1, 32, 24, 24});
        c.b.output(c.conv(c.conv(c.x, 32, 1, "Relu"), 32, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 1);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv[blocked out]", "onednn:conv[blocked in]"}));

        Chain ref({1, 32, 24, 24});  // the same weights, unfused
        ref.b.output(ref.conv(ref.unary("Relu", ref.conv(ref.x, 32, 1)), 32, 3));
        expectOutputs(*plan, c.feeds, runReference(ref.b.graph(), 17, ref.feeds));
    }

    /// An image model's first conv reads NCHW and computes blocked; it writes blocked for a
    /// blocked consumer, else reorders its output to NCHW.
    void firstConvWritesBlockedForABlockedConsumer() {
        Chain c({1, 3, 16, 16});
        const ValueId stem = c.conv(c.x, 16, 3, "Relu");
        c.b.output(c.conv(stem, 16, 3));
        c.b.output(c.unary("Sigmoid", c.conv(c.x, 16, 3)));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 1);
        QCOMPARE(kernelNames(*plan)[0], std::string("onednn:conv[blocked out]"));
        QCOMPARE(kernelNames(*plan)[2], std::string("onednn:conv"));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// Convolutions with 8 to 15 channels (PP-OCR's classifier) compute blocked, padded to the
    /// block where it is 16: the stem writes blocked, the 8-channel conv reads and writes blocked.
    void convsOfHalfABlockComputeBlocked() {
        Chain c({1, 3, 16, 16});
        const ValueId stem = c.conv(c.x, 8, 3, "Relu");
        c.b.output(c.conv(c.conv(stem, 8, 3, "Relu"), 16, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv[blocked out]", "onednn:conv[blocked in,out]",
                                                               "onednn:conv[blocked in]"}));
        QCOMPARE(blockedValues(*plan), 2);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// Squeeze-and-excitation between blocked convolutions keeps the feature map blocked: the
    /// pool reads it blocked (its [N, C, 1, 1] output plain, for the 1x1 convs on it), the Mul
    /// reads it blocked with one plain scale per channel and writes blocked for the next conv.
    /// 20 channels: padded to the block.
    void squeezeExciteStaysBlocked() {
        Chain c({1, 16, 10, 10});
        const ValueId a = c.conv(c.x, 20, 3, "Relu");
        c.b.output(c.conv(c.squeezeExcite(a, 8), 24, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        const std::vector<std::string> kernels = kernelNames(*plan);
        QCOMPARE(kernels[0], std::string("onednn:conv[blocked out]"));
        QCOMPARE(kernels[1], std::string("cpu:global-average-pool[blocked in]"));
        QCOMPARE(kernels[4], std::string("cpu:binary[blocked in,out]"));
        QCOMPARE(kernels[5], std::string("onednn:conv[blocked in]"));
        QCOMPARE(blockedValues(*plan), 2);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));

        // The same graph with the feature map and the Mul as graph outputs too: both stay plain,
        // the pool and the Mul run their plain kernels, and every output is the same to the bit.
        Chain p({1, 16, 10, 10});
        const ValueId pa = p.conv(p.x, 20, 3, "Relu");
        const ValueId scaled = p.squeezeExcite(pa, 8);
        p.b.output(p.conv(scaled, 24, 3));
        p.b.output(pa);
        p.b.output(scaled);
        auto plain = optimizedPlan(p.b.model(17));
        QCOMPARE(blockedValues(*plain), 0);
        QCOMPARE(kernelNames(*plain)[1], std::string("cpu:global-average-pool"));
        QCOMPARE(kernelNames(*plain)[4], std::string("cpu:binary"));
        expectIdenticalOutputs(*plan, *plain, c.feeds);
    }

    /// The pool's input blocked, its output a graph output (plain anyway); a 2-image batch whose
    /// 12 channels fill one and a half blocks.
    void globalAveragePoolReadsBlockedIntoAGraphOutput() {
        LayoutGuard guard;
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        Chain c({2, 12, 9, 7});
        const ValueId a = c.conv(c.x, 12, 3);
        c.b.output(c.globalAveragePool(a));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{"onednn:conv[blocked out]",
                                                                "cpu:global-average-pool[blocked in]"}));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));

        Chain p({2, 12, 9, 7});
        const ValueId pa = p.conv(p.x, 12, 3);
        p.b.output(p.globalAveragePool(pa));
        p.b.output(pa);
        auto plain = optimizedPlan(p.b.model(17));
        QCOMPARE(kernelNames(*plain)[1], std::string("cpu:global-average-pool"));
        expectIdenticalOutputs(*plan, *plain, c.feeds);
    }

    /// Add and Mul of two blocked values of one shape, then of a blocked value and constants:
    /// one per channel ([C, 1, 1]), one per image and channel ([N, C, 1, 1]) and a scalar. All
    /// blocked from the first conv to the last.
    void binaryOpsOnBlockedValuesStayBlocked() {
        Chain c({2, 20, 6, 6});
        const ValueId l = c.conv(c.x, 20, 3), r = c.conv(c.x, 20, 3);
        ValueId v = c.binary("Mul", l, r);
        v = c.binary("Add", v, l);
        v = c.binary("Add", c.constant({20, 1, 1}), v);
        v = c.binary("Mul", v, c.constant({2, 20, 1, 1}));
        v = c.binary("Add", v, c.constant({}));
        c.b.output(c.conv(v, 16, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        const std::vector<std::string> kernels = kernelNames(*plan);
        QCOMPARE(kernels.size(), size_t(8));
        for (size_t i = 2; i < 7; ++i) QCOMPARE(kernels[i], std::string("cpu:binary[blocked in,out]"));
        QCOMPARE(kernels[7], std::string("onednn:conv[blocked in]"));
        QCOMPARE(blockedValues(*plan), 7);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// Only Add and Mul run blocked, and only where each operand is blocked, one per channel
    /// or a scalar: a Sub, a per-row operand ([1, 1, H, 1]) and a mix of a blocked and a plain
    /// operand of one shape keep the values they touch plain. (The Sub reads a Relu: right after
    /// the conv, the plan would fold its per-channel constant into the conv's bias.)
    void otherBinaryOpsKeepTheirOperandsPlain() {
        Chain c({1, 16, 8, 8});
        const ValueId a = c.unary("Relu", c.conv(c.x, 16, 3)), d = c.conv(c.x, 16, 3), e = c.conv(c.x, 16, 3);
        const ValueId sub = c.binary("Sub", a, c.constant({16, 1, 1}));
        const ValueId rows = c.binary("Mul", d, c.constant({1, 1, 8, 1}));
        const ValueId mixed = c.binary("Add", e, c.unary("Relu", c.x));
        c.b.output(c.conv(c.binary("Add", c.binary("Add", sub, rows), mixed), 16, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 0);
        for (const std::string& kernel : kernelNames(*plan)) QVERIFY(kernel.find("blocked") == std::string::npos);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// A blocked Mul's output read by an element-wise kernel whose output is a graph output (so
    /// plain) stays plain, so the Mul runs plain and so, in turn, does everything that fed it
    /// blocked (the pool, the conv's output).
    void squeezeExciteBeforeAPlainKernelStaysPlain() {
        Chain c({1, 16, 10, 10});
        const ValueId a = c.conv(c.x, 24, 3);
        c.b.output(c.unary("Relu", c.squeezeExcite(a, 8)));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 0);
        QCOMPARE(kernelNames(*plan)[1], std::string("cpu:global-average-pool"));
        QCOMPARE(kernelNames(*plan)[4], std::string("cpu:binary"));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// SqueezeNet's Fire module: a 1x1 and a 3x3 conv of one squeezed input, concatenated along
    /// the channels; with channel counts that are multiples of the block the concat copies
    /// whole blocks, so the convs write blocked, and the pool and the next conv read blocked. Two
    /// images, so each image's blocks are copied apart.
    void concatOfWholeBlocksStaysBlocked() {
        LayoutGuard guard;  // every conv blocked (small ones alone may compute on NCHW)
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        const int64_t block = onednn::channelBlock();
        Chain c({2, 16, 10, 10});
        const ValueId squeezed = c.conv(c.x, 16, 1, "Relu");
        const ValueId fire = c.concat({c.conv(squeezed, block, 1, "Relu"), c.conv(squeezed, 2 * block, 3, "Relu")});
        c.b.output(c.conv(c.maxPool(fire), 24, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        const std::vector<std::string> kernels = kernelNames(*plan);
        QCOMPARE(kernels.size(), size_t(6));
        QCOMPARE(kernels[3], std::string("cpu:concat[blocked in,out]"));
        QCOMPARE(kernels[4], std::string("onednn:pool[blocked in,out]"));
        QCOMPARE(kernels[5], std::string("onednn:conv[blocked in]"));
        QCOMPARE(blockedValues(*plan), 5);
        QCOMPARE(plan->memoryPlan().partCount, 0);  // two images: the parts interleave in the output
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));

        // The concat as a graph output: plain, and so are the convs it reads; same outputs.
        Chain p({2, 16, 10, 10});
        const ValueId ps = p.conv(p.x, 16, 1, "Relu");
        const ValueId pf = p.concat({p.conv(ps, block, 1, "Relu"), p.conv(ps, 2 * block, 3, "Relu")});
        p.b.output(p.conv(p.maxPool(pf), 24, 3));
        p.b.output(pf);
        auto plain = optimizedPlan(p.b.model(17));
        QCOMPARE(kernelNames(*plain)[3], std::string("cpu:concat"));
        expectIdenticalOutputs(*plan, *plain, c.feeds);
    }

    /// A part whose channel count is not a multiple of the block (its blocked form padded) keeps
    /// the concat plain, and with it the parts; the results still equal the reference's.
    void concatOffTheBlockStaysPlain() {
        LayoutGuard guard;
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        const int64_t block = onednn::channelBlock();
        Chain c({1, 16, 8, 8});
        const ValueId a = c.conv(c.x, block, 3), b = c.conv(c.x, block + 4, 3);
        c.b.output(c.conv(c.concat({a, b}), 16, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(kernelNames(*plan)[2], std::string("cpu:concat"));
        QCOMPARE(blockedValues(*plan), 0);
        QCOMPARE(plan->memoryPlan().partCount, 2);  // one image: both convs write into the concat's output
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// DenseNet's chain of growing concatenations on one image: every part is written where the
    /// last concat's output holds it (x's features, each layer's new features, and the earlier
    /// concats), so no concat copies; the results equal the reference's, run after run.
    void denseChainIsWrittenInPlace() {
        Chain c({1, 16, 14, 14});
        const ValueId f0 = c.conv(c.x, 32, 3, "Relu");
        const ValueId c1 = c.concat({f0, c.conv(c.unary("Relu", f0), 16, 3)});
        const ValueId c2 = c.concat({c1, c.conv(c.unary("Relu", c1), 16, 3)});
        c.b.output(c.conv(c2, 16, 1));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(kernelNames(*plan)[3], std::string("cpu:concat[blocked in,out]"));
        QCOMPARE(kernelNames(*plan)[6], std::string("cpu:concat[blocked in,out]"));
        QCOMPARE(plan->memoryPlan().partCount, 4);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// A model exported with its BatchNormalization and activations apart from the convs (no
    /// passes), planned without kernel fusion (which would take most of them into the convs,
    /// tst_cpu_conv_fusion): BatchNormalization, Sigmoid and Mul (SiLU), HardSwish, Clip (ReLU6)
    /// and Relu run on the blocked values between the convs, with 20 channels (padded to the block,
    /// Sigmoid(0) = 0.5 written back to 0 in the padding) and with a multiple of the block.
    void batchNormAndActivationsStayBlocked_data() {
        QTest::addColumn<int64_t>("channels");
        QTest::newRow("20 channels") << int64_t(20);
        QTest::newRow("two blocks") << 2 * onednn::channelBlock();
    }
    void batchNormAndActivationsStayBlocked() {
        QFETCH(int64_t, channels);
        LayoutGuard guard;  // every conv blocked: some of these alone compute on NCHW
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Blocked);
        Chain c({2, 16, 9, 9});
        const ValueId bn = c.batchNorm(c.conv(c.x, channels, 3));
        ValueId v = c.binary("Mul", bn, c.unary("Sigmoid", bn));
        v = c.relu6(c.unary("HardSwish", v));
        v = c.unary("Relu", c.batchNorm(c.conv(v, channels, 3)));
        c.b.output(c.conv(c.unary("Sigmoid", v), 8, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m, false);
        QCOMPARE(kernelNames(*plan), (std::vector<std::string>{
                                         "onednn:conv[blocked out]", "cpu:batchnorm[blocked in,out]",
                                         "cpu:activation[blocked in,out]", "cpu:binary[blocked in,out]",
                                         "cpu:activation[blocked in,out]", "cpu:activation[blocked in,out]",
                                         "onednn:conv[blocked in,out]", "cpu:batchnorm[blocked in,out]",
                                         "cpu:activation[blocked in,out]", "cpu:activation[blocked in,out]",
                                         "onednn:conv[blocked in]"}));
        QCOMPARE(blockedValues(*plan), 10);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }

    /// With plain convolutions there is nothing to keep blocked.
    /// With measuring on, a plan times each algorithm of the two Winograd-able layers, runs the
    /// fastest, and remembers it in the cache file; the next plan takes both from there, and a
    /// choice planted in the file is the one a plan runs. Results equal the reference's either way.
    void measuredAlgorithmsAreRemembered() {
        TuningGuard tuning;
        Chain c({1, 32, 14, 14});
        c.b.output(c.conv(c.conv(c.x, 32, 3, "Relu"), 32, 3));
        const Model m = c.b.model(17);
        const std::vector<Tensor> want = referenceOutputs(m, c.feeds);

        auto plan = optimizedPlan(m);
        const std::vector<std::string> names = kernelNames(*plan);
        const auto winograd = std::count_if(names.begin(), names.end(), [](const std::string& n) {
            return n.find("winograd") != std::string::npos;
        });
        QVERIFY(hasLine(*plan, "chose the algorithm of 2 convolutions by measuring (2 measured now, 0 remembered): " +
                                   std::to_string(winograd) + " Winograd, " + std::to_string(2 - winograd) + " direct"));
        const auto entries = cacheEntries(tuning.file);
        QCOMPARE(entries.size(), size_t(2));
        for (const auto& [layer, algorithm, times] : entries) {
            QVERIFY2(layer.find("| t2 | conv src 1x32x14x14 w 32x32x3x3") != std::string::npos, layer.c_str());
            QVERIFY2(algorithm == "direct" || algorithm == "winograd" || algorithm == "onednn-winograd", algorithm.c_str());
            QVERIFY2(times.find("direct=") == 0 && times.find(" winograd=") != std::string::npos, times.c_str());
            // The fused Relu is part of the layer: the first conv's entry names it.
            const size_t node = layer.find("Relu") != std::string::npos ? 0 : 1;
            QVERIFY2(names[node].rfind(kernelOf(algorithm), 0) == 0, (names[node] + " for " + algorithm).c_str());
        }
        expectOutputs(*plan, c.feeds, want);

        auto again = optimizedPlan(m);
        QVERIFY(std::any_of(again->preparation().begin(), again->preparation().end(), [](const std::string& line) {
            return line.find("(0 measured now, 2 remembered)") != std::string::npos;
        }));
        QCOMPARE(kernelNames(*again), names);

        for (const std::string algorithm : {"winograd", "direct"}) {
            plantAlgorithm(tuning.file, algorithm);
            auto planted = optimizedPlan(m);
            for (size_t i = 0; i < 2; ++i)
                QVERIFY2(kernelNames(*planted)[i].rfind(kernelOf(algorithm), 0) == 0, kernelNames(*planted)[i].c_str());
            expectOutputs(*planted, c.feeds, want);
        }
        // An algorithm the layer does not have (a file from another version) is measured again.
        plantAlgorithm(tuning.file, "fft");
        auto remeasured = optimizedPlan(m);
        QVERIFY(std::any_of(remeasured->preparation().begin(), remeasured->preparation().end(), [](const std::string& line) {
            return line.find("(2 measured now, 0 remembered)") != std::string::npos;
        }));
        for (const auto& entry : cacheEntries(tuning.file)) QVERIFY(entry[1] != "fft");
    }

    /// A cache file that cannot be written leaves the choice in memory and the plan says so; with
    /// measuring off, nothing is measured and the shape rules choose.
    void unwritableCacheAndTuningOff() {
        TuningGuard tuning;
        QFile blocker(tuning.dir.filePath("cache"));  // a file where the cache folder should be
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        Chain c({1, 32, 14, 14});
        c.b.output(c.conv(c.x, 32, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QVERIFY(std::any_of(plan->preparation().begin(), plan->preparation().end(), [](const std::string& line) {
            return line.find("(1 measured now, 0 remembered)") != std::string::npos && line.find("(not remembered: ") != std::string::npos;
        }));
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));

        setConvTuning(false);
        auto rules = optimizedPlan(m);
        for (const std::string& line : rules->preparation()) QVERIFY2(line.find("by measuring") == std::string::npos, line.c_str());
        QCOMPARE(kernelNames(*rules)[0], std::string("onednn:conv_winograd"));  // 32 channels on 14x14: the rules take Winograd
    }

    void plainPolicyKeepsEverythingPlain() {
        LayoutGuard guard;
        onednn::setConvLayoutPolicy(onednn::ConvLayout::Plain);
        Chain c({1, 16, 10, 10});
        c.b.output(c.conv(c.maxPool(c.conv(c.x, 32, 3)), 32, 3));
        const Model m = c.b.model(17);
        auto plan = optimizedPlan(m);
        QCOMPARE(blockedValues(*plan), 0);
        expectOutputs(*plan, c.feeds, referenceOutputs(m, c.feeds));
    }
};

QTEST_APPLESS_MAIN(TestCpuLayout)
#include "tst_cpu_layout.moc"
