// The CPU backend's int8 kernels (onednn_int8.cpp, quantize_linear.cpp) against the reference
// kernels, on u8 and s8 inputs with nonzero zero points, per-tensor and per-channel weight scales:
// - ConvInteger and MatMulInteger (int32 out): equal bit for bit; the sums here stay far below
//   2^24, where oneDNN's float conversion of the accumulator is exact.
// - QLinearConv and QLinearMatMul (requantized u8/s8 out): at most one output step from the
//   reference, which adds the bias and the output zero point exactly where oneDNN adds them in
//   float (a value within float rounding of a half step can round either way); the test also
//   counts the elements that differ and requires them to be rare (under 1%).
// - QuantizeLinear and DequantizeLinear: equal bit for bit.
// - QDQ models: DQ -> Conv / MatMul / Gemm -> Q runs as QLinearConv, QLinearMatMul or QGemm,
//   and a product with a float output as MatMulIntegerToFloat or QGemm (the plan's QDQ fusion);
//   products the int8 kernels cannot take stay float and equal to the reference within a step;
//   a Clip between Conv and Q goes into the QLinearConv where the Q's range lies inside it.
// Weights are even and within [-64, 62] after their zero point, so the results are the same on
// machines without VNNI, where oneDNN multiplies into saturating 16-bit pairs and halves s8
// weights (ONEDNN_MAX_CPU_ISA=AVX2 runs this suite that way).
#include "core/graph/builder.h"
#include "core/runtime/backend.h"
#include "core/runtime/cpu/int8_gemv.h"
#include "support/seeded_tensor.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <set>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

/// Whether one line of the plan's preparation is `line` (a plan left to choose its threads may add
/// its own line after the int8 ones).
bool saysInItsPreparation(const Plan& plan, const std::string& line) {
    const auto& lines = plan.preparation();
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

/// Seeded integers of `type` in [lo, hi]; with `even`, only even ones.
Tensor seededInts(DType type, std::vector<int64_t> dims, uint64_t seed, int lo, int hi, bool even = false) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    Tensor t = Tensor::allocate(type, std::move(dims));
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
        int v = dist(rng);
        if (even) v &= ~1;
        if (type == DType::UInt8) t.mutableSpan<uint8_t>()[size_t(i)] = uint8_t(v);
        else if (type == DType::Int8) t.mutableSpan<int8_t>()[size_t(i)] = int8_t(v);
        else t.mutableSpan<int32_t>()[size_t(i)] = int32_t(v);
    }
    return t;
}

Tensor scalarOf(DType type, int v) {
    if (type == DType::UInt8) return Tensor::fromVector<uint8_t>(type, {}, {uint8_t(v)});
    return Tensor::fromVector<int8_t>(type, {}, {int8_t(v)});
}

int lowest(DType t) { return t == DType::UInt8 ? 0 : -128; }
int highest(DType t) { return t == DType::UInt8 ? 255 : 127; }

/// Weights w with w - zero even and within [-64, 62].
Tensor weightsAround(DType type, std::vector<int64_t> dims, uint64_t seed, int zero) {
    Tensor t = seededInts(DType::Int32, dims, seed, -64, 62, true);
    Tensor out = Tensor::allocate(type, dims);
    for (int64_t i = 0; i < t.numel(); ++i) {
        const int v = t.span<int32_t>()[size_t(i)] + zero;
        if (type == DType::UInt8) out.mutableSpan<uint8_t>()[size_t(i)] = uint8_t(v);
        else out.mutableSpan<int8_t>()[size_t(i)] = int8_t(v);
    }
    return out;
}

struct Outputs {
    std::vector<double> reference, cpu;
    std::vector<std::string> kernels;
};

Outputs runBoth(const Model& m, const std::map<std::string, Tensor>& feeds) {
    CompileOptions reference;
    reference.referenceOnly = true;
    Outputs o;
    o.reference = makeCpuBackend()->compile(m, reference)->run(feeds).at(0).toDoubles();
    CompileOptions options;
    options.threads = 2;
    auto plan = makeCpuBackend()->compile(m, options);
    for (const PlannedNode& n : plan->nodes()) o.kernels.push_back(n.kernel);
    o.cpu = plan->run(feeds).at(0).toDoubles();
    return o;
}

/// Largest |got - expected| and how many elements differ.
std::pair<double, size_t> difference(const std::vector<double>& got, const std::vector<double>& expected) {
    double worst = 0;
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        worst = std::max(worst, std::fabs(got[i] - expected[i]));
        differ += got[i] != expected[i];
    }
    return {worst, differ};
}
std::pair<double, size_t> difference(const Outputs& o) { return difference(o.cpu, o.reference); }

/// QDQ graphs written node by node: QuantizeLinear to u8 with its own scale and zero point,
/// DequantizeLinear reading the QuantizeLinear's, and a 1x1 convolution of `channels` channels in
/// and out (16 unless given) with s8 weights (scale 0.004) behind a DequantizeLinear.
struct QdqBuilder {
    GraphBuilder& b;
    ValueId q(ValueId v, float scale, int zero, const std::string& name) const {
        return b.op("QuantizeLinear", {v, b.initializer(name + "_s", Tensor::scalar(scale)),
                                       b.initializer(name + "_z", scalarOf(DType::UInt8, zero))}, {}, name);
    }
    ValueId dq(ValueId v, const std::string& name) const {
        const Node& n = b.graph().node(b.graph().value(v).producer());
        return b.op("DequantizeLinear", {v, n.input(1), n.input(2)}, {}, name);
    }
    ValueId conv1x1(ValueId in, int seed, const std::string& name, int64_t channels = 16) const {
        const ValueId w = b.op("DequantizeLinear", {b.initializer(name + "_wq", seededInts(DType::Int8, {channels, channels, 1, 1}, seed, -64, 62, true)),
                                                   b.initializer(name + "_ws", Tensor::scalar(0.004f))}, {}, name + "_wdq");
        return b.op("Conv", {in, w, b.initializer(name + "_b", seeded({channels}, seed, -0.2f, 0.2f))}, {}, name);
    }
};

struct ConvCase {
    DType x = DType::UInt8, w = DType::Int8, y = DType::UInt8;
    int xZero = 0, wZero = 0, yZero = 0;
    bool perChannel = false, bias = false;
    int64_t channels = 16, outChannels = 24, group = 1, size = 10, kernel = 3, stride = 1, pad = 1;
};

/// `depth` QLinearConvs in a row (or, with `integer`, one ConvInteger) on a seeded input; a
/// chain needs as many output channels as input channels and y of x's type.
Model convModel(const ConvCase& c, bool integer, Tensor& input, int depth = 1) {
    GraphBuilder b;
    const std::vector<int64_t> xDims{2, c.channels, c.size, c.size};
    ValueId x = b.input("x", c.x, Shape::ofSizes(xDims));
    input = seededInts(c.x, xDims, 11, lowest(c.x), highest(c.x));
    const ValueId w = b.initializer("w", weightsAround(c.w, {c.outChannels, c.channels / c.group, c.kernel, c.kernel}, 12, c.wZero));
    Attributes a;
    a.set("group", c.group);
    a.set("strides", std::vector<int64_t>{c.stride, c.stride});
    a.set("pads", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad});
    a.set("kernel_shape", std::vector<int64_t>{c.kernel, c.kernel});
    const ValueId xz = b.initializer("xz", scalarOf(c.x, c.xZero));
    const ValueId wz = b.initializer("wz", scalarOf(c.w, c.wZero));
    if (integer) {
        b.output(b.op("ConvInteger", {x, w, xz, wz}, a, "conv"));
        return b.model(17);
    }
    std::vector<float> ws(size_t(c.perChannel ? c.outChannels : 1));
    for (size_t i = 0; i < ws.size(); ++i) ws[i] = 0.008f + 0.0003f * float(i);
    // Outputs of about +-40 steps around the zero point: the sums' spread is about
    // sqrt(K) * 74 * 37 (uniform inputs and weights), times x_scale * w_scale.
    const float yScale = 0.011f * std::sqrt(float(c.channels / c.group * c.kernel * c.kernel));
    const ValueId xs = b.initializer("xs", Tensor::scalar(0.02f)), wsv = b.initializer("ws", Tensor::floats({int64_t(ws.size())}, ws));
    const ValueId ys = b.initializer("ys", Tensor::scalar(yScale)), yz = b.initializer("yz", scalarOf(c.y, c.yZero));
    const ValueId bias = c.bias ? b.initializer("bias", seededInts(DType::Int32, {c.outChannels}, 13, -20000, 20000)) : kNoId;
    for (int i = 0; i < depth; ++i) {
        std::vector<ValueId> inputs{x, i == 0 ? xs : ys, i == 0 ? xz : yz, w, wsv, wz, ys, yz};
        if (c.bias) inputs.push_back(bias);
        x = b.op("QLinearConv", inputs, a, "conv" + std::to_string(i));
    }
    b.output(x);
    return b.model(17);
}

/// A QDQ matrix product as ONNX Runtime's quantize_static and quantize-int8 write it:
/// Q(x) -> DQ, DQ(w s8 constant, per tensor or per output column), MatMul or Gemm (its bias a
/// float constant or DQ(int32) in units of x_scale * w_scale), then Q -> DQ or a float output.
struct ProductCase {
    bool gemm = false, transB = false, perChannel = false, quantizeOutput = true;
    int rank = 2;
    enum Bias { NoBias, FloatBias, Int32Bias } bias = NoBias;
    DType x = DType::UInt8, w = DType::Int8;
    int xZero = 128, wZero = 0;
    float alpha = 1.f;
    bool weightsAsInput = false;  ///< w_q a graph input: not constant
    bool outputPerAxis = false;   ///< the output's QuantizeLinear has one scale per column
};

constexpr int64_t kDepth = 48, kColumns = 20;
constexpr float kInputScale = 0.02f, kOutputScale = 0.02f;

std::vector<int64_t> productInputDims(int rank) {
    switch (rank) {
    case 3: return {2, 5, kDepth};
    case 4: return {2, 3, 4, kDepth};
    default: return {6, kDepth};
    }
}

std::vector<float> weightScales(bool perChannel) {
    std::vector<float> ws(perChannel ? size_t(kColumns) : 1);
    for (size_t i = 0; i < ws.size(); ++i) ws[i] = 0.004f + 0.0002f * float(i);
    return ws;
}

/// The product's output (before any Q) on `x`, a float activation of [.., kDepth].
ValueId qdqProduct(GraphBuilder& b, const ProductCase& c, ValueId x, const std::string& name, uint64_t seed) {
    const ValueId xq = b.op("QuantizeLinear", {x, b.initializer(name + "_xs", Tensor::scalar(kInputScale)),
                                               b.initializer(name + "_xz", scalarOf(c.x, c.xZero))}, {}, name + "_xq");
    const Node& qn = b.graph().node(b.graph().value(xq).producer());
    const ValueId xdq = b.op("DequantizeLinear", {xq, qn.input(1), qn.input(2)}, {}, name + "_xdq");
    const std::vector<int64_t> wDims = c.transB ? std::vector<int64_t>{kColumns, kDepth} : std::vector<int64_t>{kDepth, kColumns};
    const std::vector<float> ws = weightScales(c.perChannel);
    Attributes axis;
    axis.set("axis", int64_t(c.transB ? 0 : 1));
    const ValueId wq = c.weightsAsInput ? b.input(name + "_wq", c.w, Shape::ofSizes(wDims))
                                        : b.initializer(name + "_wq", weightsAround(c.w, wDims, seed, c.wZero));
    Tensor wz = Tensor::allocate(c.w, {int64_t(ws.size())});
    for (int64_t i = 0; i < wz.numel(); ++i) {
        if (c.w == DType::UInt8) wz.mutableSpan<uint8_t>()[size_t(i)] = uint8_t(c.wZero);
        else wz.mutableSpan<int8_t>()[size_t(i)] = int8_t(c.wZero);
    }
    if (!c.perChannel) wz = scalarOf(c.w, c.wZero);
    const ValueId wdq = b.op("DequantizeLinear", {wq, b.initializer(name + "_ws", c.perChannel ? Tensor::floats({kColumns}, ws) : Tensor::scalar(ws[0])),
                                                  b.initializer(name + "_wz", wz)}, axis, name + "_wdq");
    if (!c.gemm) return b.op("MatMul", {xdq, wdq}, {}, name);
    std::vector<ValueId> inputs{xdq, wdq};
    if (c.bias == ProductCase::FloatBias) inputs.push_back(b.initializer(name + "_b", seeded({kColumns}, seed + 1, -0.5f, 0.5f)));
    if (c.bias == ProductCase::Int32Bias) {
        std::vector<float> unit(static_cast<size_t>(kColumns));
        for (size_t i = 0; i < unit.size(); ++i) unit[i] = kInputScale * ws[ws.size() == 1 ? 0 : i];
        Attributes biasAxis;
        biasAxis.set("axis", int64_t(0));
        inputs.push_back(b.op("DequantizeLinear", {b.initializer(name + "_bq", seededInts(DType::Int32, {kColumns}, seed + 2, -3000, 3000)),
                                                   b.initializer(name + "_bs", Tensor::floats({kColumns}, unit)),
                                                   b.initializer(name + "_bz", Tensor::fromVector<int32_t>(DType::Int32, {kColumns}, std::vector<int32_t>(size_t(kColumns), 0)))},
                              biasAxis, name + "_bdq"));
    }
    Attributes a;
    a.set("transB", int64_t(c.transB ? 1 : 0));
    if (c.alpha != 1.f) a.set("alpha", c.alpha);
    return b.op("Gemm", inputs, a, name);
}

/// y -> Q(kOutputScale, 128) -> DQ, or with one scale per column (axis 1).
ValueId quantizeOutput(GraphBuilder& b, ValueId y, bool perAxis, const std::string& name) {
    Attributes axis;
    if (perAxis) axis.set("axis", int64_t(1));
    std::vector<float> scales(perAxis ? size_t(kColumns) : 1, kOutputScale);
    const ValueId s = b.initializer(name + "_ys", perAxis ? Tensor::floats({kColumns}, scales) : Tensor::scalar(kOutputScale));
    const ValueId z = b.initializer(name + "_yz", perAxis ? Tensor::fromVector<uint8_t>(DType::UInt8, {kColumns}, std::vector<uint8_t>(size_t(kColumns), 128))
                                                           : scalarOf(DType::UInt8, 128));
    const ValueId q = b.op("QuantizeLinear", {y, s, z}, axis, name + "_q");
    return b.op("DequantizeLinear", {q, s, z}, axis, name + "_dq");
}

/// The kernels of a plan without their oneDNN implementation ("onednn:qgemm(brg:...)" -> "onednn:qgemm").
std::vector<std::string> kernelsOf(const Plan& plan) {
    std::vector<std::string> ops;
    for (const PlannedNode& n : plan.nodes()) ops.push_back(n.kernel.substr(0, n.kernel.find('(')));
    return ops;
}

/// The plan's line about QDQ products ("" when it has none).
std::string productLine(const Plan& plan) {
    for (const std::string& line : plan.preparation())
        if (line.find("QDQ matrix product") != std::string::npos) return line;
    return {};
}

} // namespace

Q_DECLARE_METATYPE(ProductCase)

class TestCpuInt8 : public QObject {
    Q_OBJECT
private slots:
    void convolutionsMatchTheReference_data() {
        QTest::addColumn<int>("xType");
        QTest::addColumn<int>("wType");
        QTest::addColumn<int>("xZero");
        QTest::addColumn<int>("wZero");
        QTest::addColumn<int>("yZero");
        QTest::addColumn<bool>("perChannel");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("stride");
        const int u8 = int(DType::UInt8), s8 = int(DType::Int8);
        QTest::newRow("u8 x, s8 w, per tensor, bias") << u8 << s8 << 7 << 0 << 100 << false << true << 1 << 1;
        QTest::newRow("u8 x, s8 w, per channel, stride 2") << u8 << s8 << 131 << 0 << 3 << true << true << 1 << 2;
        QTest::newRow("s8 x, s8 w, per channel") << s8 << s8 << -3 << 0 << -5 << true << false << 1 << 1;
        QTest::newRow("s8 x, s8 w, zero points 0, bias") << s8 << s8 << 0 << 0 << 0 << false << true << 1 << 2;
        QTest::newRow("u8 x, u8 w around 128") << u8 << u8 << 20 << 128 << 60 << true << false << 1 << 1;
        QTest::newRow("depthwise u8") << u8 << s8 << 9 << 0 << 128 << true << true << 16 << 1;
        QTest::newRow("grouped s8") << s8 << s8 << 4 << 0 << 1 << false << false << 4 << 1;
    }

    void convolutionsMatchTheReference() {
        QFETCH(int, xType);
        QFETCH(int, wType);
        QFETCH(int, xZero);
        QFETCH(int, wZero);
        QFETCH(int, yZero);
        QFETCH(bool, perChannel);
        QFETCH(bool, bias);
        QFETCH(int, group);
        QFETCH(int, stride);
        ConvCase c;
        c.x = c.y = DType(xType);
        c.w = DType(wType);
        c.xZero = xZero;
        c.wZero = wZero;
        c.yZero = yZero;
        c.perChannel = perChannel;
        c.bias = bias;
        c.group = group;
        c.stride = stride;
        if (group == c.channels) c.outChannels = c.channels;
        Tensor x;
        // QLinearConv: requantized, within one step.
        const Model qlinear = convModel(c, false, x);
        const Outputs q = runBoth(qlinear, {{"x", x}});
        QVERIFY2(q.kernels.at(0).rfind("onednn:qlinear_conv", 0) == 0, q.kernels.at(0).c_str());
        const auto [worst, differ] = difference(q);
        QVERIFY2(worst <= 1.0, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 100 < q.cpu.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(q.cpu.size())));
        // Not all saturated: the outputs spread over the type's range.
        size_t inside = 0;
        for (double v : q.reference) inside += v > lowest(c.y) && v < highest(c.y);
        QVERIFY(inside * 2 > q.reference.size());
        // ConvInteger: int32 sums, bit for bit.
        const Outputs i = runBoth(convModel(c, true, x), {{"x", x}});
        QVERIFY2(i.kernels.at(0).rfind("onednn:conv_integer", 0) == 0, i.kernels.at(0).c_str());
        QCOMPARE(i.cpu, i.reference);
    }

    void matmulsMatchTheReference_data() {
        QTest::addColumn<int>("aType");
        QTest::addColumn<int>("bType");
        QTest::addColumn<int>("aZero");
        QTest::addColumn<int>("bZero");
        const int u8 = int(DType::UInt8), s8 = int(DType::Int8);
        QTest::newRow("u8 a, s8 b") << u8 << s8 << 17 << 0;
        QTest::newRow("s8 a, s8 b") << s8 << s8 << -9 << 0;
        QTest::newRow("u8 a, u8 b around 127") << u8 << u8 << 200 << 127;
        QTest::newRow("s8 a, s8 b with zero point") << s8 << s8 << 5 << -6;
    }

    void matmulsMatchTheReference() {
        QFETCH(int, aType);
        QFETCH(int, bType);
        QFETCH(int, aZero);
        QFETCH(int, bZero);
        const DType at = DType(aType), bt = DType(bType);
        const std::vector<int64_t> aDims{2, 5, 96};
        const Tensor a = seededInts(at, aDims, 21, lowest(at), highest(at));
        const Tensor w = weightsAround(bt, {96, 40}, 22, bZero);
        for (bool integer : {true, false}) {
            GraphBuilder b;
            const ValueId x = b.input("a", at, Shape::ofSizes(aDims));
            const ValueId bw = b.initializer("b", w);
            const ValueId az = b.initializer("az", scalarOf(at, aZero)), bz = b.initializer("bz", scalarOf(bt, bZero));
            if (integer)
                b.output(b.op("MatMulInteger", {x, bw, az, bz}, {}, "mm"));
            else
                b.output(b.op("QLinearMatMul", {x, b.initializer("as", Tensor::scalar(0.05f)), az, bw, b.initializer("bs", Tensor::scalar(0.01f)),
                                                bz, b.initializer("ys", Tensor::scalar(1.5f)), b.initializer("yz", scalarOf(at, aZero / 2))}, {}, "mm"));
            const Outputs o = runBoth(b.model(17), {{"a", a}});
            QVERIFY2(o.kernels.at(0).rfind(integer ? "onednn:matmul_integer" : "onednn:qlinear_matmul", 0) == 0, o.kernels.at(0).c_str());
            if (integer) {
                QCOMPARE(o.cpu, o.reference);
            } else {
                const auto [worst, differ] = difference(o);
                QVERIFY2(worst <= 1.0, qPrintable(QString("off by %1").arg(worst)));
                QVERIFY2(differ * 100 < o.cpu.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(o.cpu.size())));
            }
        }
    }

    /// Two QLinearConvs in a row pass their u8 activations channels-last, with no reorder between.
    void consecutiveConvolutionsKeepChannelsLast() {
        ConvCase c;
        c.xZero = 3;
        c.yZero = 3;
        c.outChannels = 16;
        c.perChannel = true;
        c.bias = true;
        Tensor x;
        const Model m = convModel(c, false, x, 2);
        const Outputs o = runBoth(m, {{"x", x}});
        QCOMPARE(o.kernels.size(), size_t(2));
        QVERIFY2(o.kernels[0].find("[nhwc out]") != std::string::npos, o.kernels[0].c_str());
        QVERIFY2(o.kernels[1].find("[nhwc in]") != std::string::npos, o.kernels[1].c_str());
        QVERIFY(difference(o).first <= 2.0);  // one step each, at most
    }

    /// A QDQ model (ONNX Runtime's format: DQ on activations and weights, Q after Conv or Relu)
    /// runs as two QLinearConvs passing u8 channels-last; the reference plan runs the float graph
    /// as written. Each conv can round one step differently: at most 2 steps of the last scale.
    void qdqConvolutionsRunAsInt8() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 8, 12, 12}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const auto conv = [&](ValueId in, int seed, bool perChannel, const std::string& name) {
            const std::vector<int64_t> dims{8, 8, 3, 3};
            std::vector<float> scales(perChannel ? 8 : 1);
            for (size_t i = 0; i < scales.size(); ++i) scales[i] = 0.004f + 0.0005f * float(i);
            Attributes axis;
            axis.set("axis", int64_t(0));
            const ValueId w = b.op("DequantizeLinear", {b.initializer(name + "_wq", seededInts(DType::Int8, dims, seed, -64, 62, true)),
                                                       b.initializer(name + "_ws", Tensor::floats({int64_t(scales.size())}, scales))},
                                   axis, name + "_wdq");
            Attributes a;
            a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
            return b.op("Conv", {in, w, b.initializer(name + "_b", seeded({8}, seed, -0.2f, 0.2f))}, a, name);
        };
        const ValueId c1 = conv(dq(q(x, 0.01f, 128, "xq"), "xdq"), 31, true, "conv1");
        const ValueId r1 = q(b.op("Relu", {c1}, {}, "relu1"), 0.006f, 0, "r1q");
        const ValueId c2 = conv(dq(r1, "r1dq"), 32, false, "conv2");
        b.output(dq(q(c2, 0.005f, 120, "c2q"), "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, 8, 12, 12}, 33, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        CompileOptions two;  // as many threads as the machine's two cores, not the one a model this small gets
        two.threads = 2;
        auto plan = makeCpuBackend()->compile(m, two);
        std::vector<std::string> ops;
        for (const PlannedNode& n : plan->nodes()) ops.push_back(plan->nodes().empty() ? "" : n.kernel.substr(0, n.kernel.find('(')));
        QCOMPARE(ops, (std::vector<std::string>{"cpu:quantize", "onednn:qlinear_conv", "onednn:qlinear_conv", "cpu:dequantize"}));
        QVERIFY(plan->nodes()[1].kernel.find("[nhwc out]") != std::string::npos);
        QVERIFY(plan->nodes()[2].kernel.find("[nhwc in]") != std::string::npos);
        QCOMPARE(plan->preparation().back(), std::string("ran 2 QDQ convolutions as int8 QLinearConv (int8 activations between them)"));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        double worst = 0;
        size_t inside = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            worst = std::max(worst, std::fabs(got[i] - expected[i]));
            inside += expected[i] > -120 * 0.005 && expected[i] < 135 * 0.005;
        }
        QVERIFY2(worst <= 2 * 0.005 + 1e-6, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY(inside * 2 > got.size());
    }

    /// DQ -> Conv -> Clip -> Q (ReLU6 in ONNX Runtime's QDQ format) runs as one QLinearConv when
    /// every value the QuantizeLinear can write lies in the Clip's range, so its saturation is the
    /// Clip; otherwise the convolution stays float. Both within one output step of the reference.
    void qdqConvolutionWithClipRunsAsInt8WhereItsRangeImpliesTheClip_data() {
        QTest::addColumn<float>("lo");
        QTest::addColumn<float>("hi");
        QTest::addColumn<bool>("s8");
        QTest::addColumn<float>("scale");
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("int8");
        QTest::newRow("relu6, u8 [0, 6]") << 0.f << 6.f << false << 6.f / 255.f << 0 << true;
        QTest::newRow("relu6, u8 [0, 7.65]") << 0.f << 6.f << false << 0.03f << 0 << false;
        QTest::newRow("clip(-1, 1), s8 [-1, 127/128]") << -1.f << 1.f << true << 1.f / 128.f << 0 << true;
        QTest::newRow("clip(-1, 1), u8 [-1.004, 0.996]") << -1.f << 1.f << false << 2.f / 255.f << 128 << false;
    }
    void qdqConvolutionWithClipRunsAsInt8WhereItsRangeImpliesTheClip() {
        QFETCH(float, lo);
        QFETCH(float, hi);
        QFETCH(bool, s8);
        QFETCH(float, scale);
        QFETCH(int, zero);
        QFETCH(bool, int8);
        const DType yType = s8 ? DType::Int8 : DType::UInt8;
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 8, 12, 12}));
        const ValueId xq = b.op("QuantizeLinear", {x, b.initializer("xs", Tensor::scalar(0.01f)), b.initializer("xz", scalarOf(DType::UInt8, 128))});
        const ValueId xdq = b.op("DequantizeLinear", {xq, b.initializer("xs2", Tensor::scalar(0.01f)), b.initializer("xz2", scalarOf(DType::UInt8, 128))});
        Attributes axis;
        axis.set("axis", int64_t(0));
        const ValueId w = b.op("DequantizeLinear", {b.initializer("wq", seededInts(DType::Int8, {8, 8, 3, 3}, 51, -64, 62, true)),
                                                   b.initializer("ws", Tensor::floats({8}, std::vector<float>(8, 0.02f)))}, axis);
        Attributes pads;
        pads.set("pads", std::vector<int64_t>{1, 1, 1, 1});
        const ValueId c = b.op("Conv", {xdq, w, b.initializer("bias", seeded({8}, 52, -0.5f, 0.5f))}, pads, "conv");
        const ValueId clip = b.op("Clip", {c, b.initializer("lo", Tensor::scalar(lo)), b.initializer("hi", Tensor::scalar(hi))});
        const ValueId ys = b.initializer("ys", Tensor::scalar(scale)), yz = b.initializer("yz", scalarOf(yType, zero));
        b.output(b.op("DequantizeLinear", {b.op("QuantizeLinear", {clip, ys, yz}), ys, yz}));
        const Model m = b.model(17);
        const Outputs o = runBoth(m, {{"x", seeded({1, 8, 12, 12}, 53, -1.2f, 1.2f)}});
        const auto qlinear = std::count_if(o.kernels.begin(), o.kernels.end(), [](const std::string& k) { return k.rfind("onednn:qlinear_conv", 0) == 0; });
        QCOMPARE(qlinear, std::ptrdiff_t(int8 ? 1 : 0));
        double worst = 0;
        size_t saturated = 0;
        for (size_t i = 0; i < o.cpu.size(); ++i) {
            worst = std::max(worst, std::fabs(o.cpu[i] - o.reference[i]));
            saturated += o.reference[i] >= hi - scale;
        }
        QVERIFY2(worst <= scale + 1e-6, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY(saturated > 0);  // the upper bound is reached
    }

    /// DQ(a) + DQ(b) -> Add -> Relu -> Q (a residual addition of a QDQ model) runs as one
    /// QLinearAdd, equal bit for bit to the float subgraph the reference plan runs.
    void qdqAdditionRunsAsQLinearAdd() {
        GraphBuilder b;
        const std::vector<int64_t> dims{1, 16, 9, 11};
        const ValueId a = b.input("a", DType::UInt8, Shape::ofSizes(dims)), c = b.input("b", DType::UInt8, Shape::ofSizes(dims));
        const ValueId da = b.op("DequantizeLinear", {a, b.initializer("as", Tensor::scalar(0.031f)), b.initializer("az", scalarOf(DType::UInt8, 130))});
        const ValueId db = b.op("DequantizeLinear", {c, b.initializer("bs", Tensor::scalar(0.017f)), b.initializer("bz", scalarOf(DType::UInt8, 9))});
        const ValueId sum = b.op("Relu", {b.op("Add", {da, db}, {}, "add")});
        b.output(b.op("QuantizeLinear", {sum, b.initializer("ys", Tensor::scalar(0.023f)), b.initializer("yz", scalarOf(DType::UInt8, 0))}));
        const Model m = b.model(17);
        const std::map<std::string, Tensor> feeds{{"a", seededInts(DType::UInt8, dims, 41, 0, 255)}, {"b", seededInts(DType::UInt8, dims, 42, 0, 255)}};
        const Outputs o = runBoth(m, feeds);
        QCOMPARE(o.kernels, std::vector<std::string>{"cpu:qlinear-add"});
        QCOMPARE(o.cpu, o.reference);
        size_t zeros = 0;
        for (double v : o.cpu) zeros += v == 0;
        QVERIFY(zeros > 0 && zeros < o.cpu.size() / 2);  // the Relu's floor is reached, not everywhere
    }

    void qdqProductsRunAsInt8_data() {
        QTest::addColumn<ProductCase>("c");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("line");
        const auto row = [](const char* name, ProductCase c, const char* kernel, const char* kind) {
            QTest::newRow(name) << c << QString(kernel) << QString("ran 1 QDQ matrix product (MatMul, Gemm) as int8: 1 ") + kind;
        };
        ProductCase c;
        row("MatMul 2-D, per tensor", c, "onednn:qlinear_matmul", "QLinearMatMul");
        c.perChannel = true;
        c.rank = 3;
        row("MatMul 3-D, per column", c, "onednn:qlinear_matmul", "QLinearMatMul");
        c.rank = 4;
        c.x = DType::Int8;
        c.xZero = 3;
        row("MatMul 4-D s8, per column", c, "onednn:qlinear_matmul", "QLinearMatMul");
        c = {};
        c.w = DType::UInt8;
        c.wZero = 128;
        c.rank = 3;
        row("MatMul u8 weights around 128", c, "onednn:qlinear_matmul", "QLinearMatMul");
        c = {};
        c.quantizeOutput = false;
        c.perChannel = true;
        c.rank = 3;
        row("MatMul float output, per column", c, "onednn:matmul_integer_to_float", "MatMulIntegerToFloat");
        c = {};
        c.gemm = true;
        row("Gemm, no bias", c, "onednn:qgemm", "QGemm");
        c.transB = true;
        c.perChannel = true;
        c.bias = ProductCase::Int32Bias;
        row("Gemm transB, per column, int32 bias", c, "onednn:qgemm", "QGemm");
        c.transB = false;
        row("Gemm, per column, int32 bias", c, "onednn:qgemm", "QGemm");
        c.bias = ProductCase::FloatBias;
        c.perChannel = false;
        row("Gemm, per tensor, float bias", c, "onednn:qgemm", "QGemm");
        c.transB = true;
        c.quantizeOutput = false;
        row("Gemm transB float output, float bias", c, "onednn:qgemm_to_float", "QGemm with a float output");
        c.bias = ProductCase::Int32Bias;
        c.perChannel = true;
        row("Gemm transB float output, int32 bias", c, "onednn:qgemm_to_float", "QGemm with a float output");
    }

    /// One QDQ MatMul or Gemm runs as one int8 kernel: requantized outputs within one step of the
    /// float graph the reference plan runs, float outputs within one accumulator unit
    /// (x_scale * w_scale: a float bias is rounded to it) and float rounding.
    void qdqProductsRunAsInt8() {
        QFETCH(ProductCase, c);
        QFETCH(QString, kernel);
        QFETCH(QString, line);
        GraphBuilder b;
        const std::vector<int64_t> dims = productInputDims(c.rank);
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes(dims));
        const ValueId y = qdqProduct(b, c, x, "p", 51);
        b.output(c.quantizeOutput ? quantizeOutput(b, y, false, "y") : y);
        const Model m = b.model(17);
        const Tensor input = seeded(dims, 52, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        CompileOptions options;
        options.threads = 2;
        auto plan = makeCpuBackend()->compile(m, options);
        const std::vector<std::string> want = c.quantizeOutput
                                                  ? std::vector<std::string>{"cpu:quantize", kernel.toStdString(), "cpu:dequantize"}
                                                  : std::vector<std::string>{"cpu:quantize", kernel.toStdString()};
        QCOMPARE(kernelsOf(*plan), want);
        QCOMPARE(productLine(*plan), line.toStdString());
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        QCOMPARE(got.size(), expected.size());
        double worst = 0, largest = 0;
        size_t differ = 0, inside = 0;
        for (size_t i = 0; i < got.size(); ++i) {
            worst = std::max(worst, std::fabs(got[i] - expected[i]));
            largest = std::max(largest, std::fabs(expected[i]));
            differ += got[i] != expected[i];
            inside += std::fabs(expected[i]) < 120 * kOutputScale;
        }
        if (c.quantizeOutput) {
            QVERIFY2(worst <= kOutputScale * 1.0001, qPrintable(QString("off by %1").arg(worst)));
            QVERIFY2(differ * 100 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
            QVERIFY(inside * 2 > got.size());  // not all saturated
        } else {
            const std::vector<float> ws = weightScales(c.perChannel);
            const double unit = kInputScale * *std::max_element(ws.begin(), ws.end());
            const double bound = (c.bias == ProductCase::FloatBias ? 0.5 * unit : 0.0) + 1e-6 * largest;
            QVERIFY2(worst <= bound, qPrintable(QString("off by %1, allowed %2").arg(worst).arg(bound)));
            QVERIFY(largest > 100 * unit);
        }
    }

    /// A QDQ MatMul, Gemm (transB, int32 bias) and Gemm with float output in a row (widened by a
    /// float Concat between them): three int8 kernels. Each requantization can round one step
    /// differently (rarely: under 1% of elements), and a step of one input moves a logit by at most
    /// kOutputScale * 64 * w_scale; the logits are compared within four such moves.
    void qdqProductChainRunsAsInt8() {
        GraphBuilder b;
        const std::vector<int64_t> dims{6, kDepth};
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes(dims));
        ProductCase c;
        c.perChannel = true;
        ValueId y = quantizeOutput(b, qdqProduct(b, c, x, "mm", 61), false, "mm");
        // A [6, kColumns] activation: the next products need kDepth columns; pad by concatenating.
        y = b.op("Concat", {y, y, b.op("Slice", {y, b.initializer("s0", Tensor::fromVector<int64_t>(DType::Int64, {1}, {0})),
                                                 b.initializer("s1", Tensor::fromVector<int64_t>(DType::Int64, {1}, {kDepth - 2 * kColumns})),
                                                 b.initializer("s2", Tensor::fromVector<int64_t>(DType::Int64, {1}, {1}))})},
                 [] { Attributes a; a.set("axis", int64_t(1)); return a; }(), "widen");
        c.gemm = c.transB = true;
        c.bias = ProductCase::Int32Bias;
        y = quantizeOutput(b, qdqProduct(b, c, y, "fc", 62), false, "fc");
        c.quantizeOutput = false;
        c.transB = false;
        ValueId widened = b.op("Concat", {y, y, b.op("Slice", {y, b.initializer("t0", Tensor::fromVector<int64_t>(DType::Int64, {1}, {0})),
                                                              b.initializer("t1", Tensor::fromVector<int64_t>(DType::Int64, {1}, {kDepth - 2 * kColumns})),
                                                              b.initializer("t2", Tensor::fromVector<int64_t>(DType::Int64, {1}, {1}))})},
                               [] { Attributes a; a.set("axis", int64_t(1)); return a; }(), "widen2");
        b.output(qdqProduct(b, c, widened, "logits", 63));
        const Model m = b.model(17);
        const Tensor input = seeded(dims, 64, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(productLine(*plan), std::string("ran 3 QDQ matrix products (MatMul, Gemm) as int8: 1 QLinearMatMul, 1 QGemm, 1 QGemm with a float output"));
        size_t int8Kernels = 0;
        for (const std::string& k : kernelsOf(*plan))
            int8Kernels += k == "onednn:qlinear_matmul" || k == "onednn:qgemm" || k == "onednn:qgemm_to_float";
        QCOMPARE(int8Kernels, size_t(3));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        // A step of an input to the logits moves them by at most kOutputScale * w_scale * |w| <= 64.
        const std::vector<float> scales = weightScales(true);
        const double step = kOutputScale * 64 * *std::ranges::max_element(scales);
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
        QVERIFY2(worst <= 4 * step, qPrintable(QString("off by %1, allowed %2").arg(worst).arg(4 * step)));
    }

    void qdqProductsThatDoNotFit_data() {
        QTest::addColumn<ProductCase>("c");
        ProductCase c;
        c.weightsAsInput = true;
        QTest::newRow("MatMul of non-constant weights") << c;
        c = {};
        c.gemm = true;
        c.alpha = 0.5f;
        c.bias = ProductCase::FloatBias;
        QTest::newRow("Gemm with alpha 0.5") << c;
        c = {};
        c.perChannel = true;
        c.outputPerAxis = true;
        QTest::newRow("MatMul whose QuantizeLinear has a scale per column") << c;
        c = {};
        c.w = DType::UInt8;  // around 0: -2 is 254, 254 steps from its zero point
        QTest::newRow("MatMul of u8 weights beyond [-128, 127] from their zero point") << c;
    }

    /// Products the int8 kernels cannot take stay float, and the plan computes what the reference
    /// does (a float sum rounded to a step either way: within one step).
    void qdqProductsThatDoNotFit() {
        QFETCH(ProductCase, c);
        GraphBuilder b;
        const std::vector<int64_t> dims = productInputDims(c.rank);
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes(dims));
        b.output(quantizeOutput(b, qdqProduct(b, c, x, "p", 71), c.outputPerAxis, "y"));
        const Model m = b.model(17);
        std::map<std::string, Tensor> feeds{{"x", seeded(dims, 72, -1.2f, 1.2f)}};
        if (c.weightsAsInput) feeds["p_wq"] = weightsAround(c.w, {kDepth, kColumns}, 73, c.wZero);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run(feeds).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(productLine(*plan), std::string());
        for (const std::string& k : kernelsOf(*plan)) QVERIFY2(k.find("qgemm") == std::string::npos && k.find("qlinear_matmul") == std::string::npos &&
                                                                   k.find("integer_to_float") == std::string::npos, k.c_str());
        const std::vector<double> got = plan->run(feeds).at(0).toDoubles();
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - expected[i]));
        QVERIFY2(worst <= kOutputScale * 1.0001, qPrintable(QString("off by %1").arg(worst)));
    }

    /// com.microsoft QLinearAdd for each pair of input types the kernel takes (and the output
    /// types it gives them), on 1000 values (16 lanes at a time and a tail of 8): equal to the
    /// reference, saturation included.
    void qlinearAddMatchesTheReferenceForEachType_data() {
        QTest::addColumn<int>("a");
        QTest::addColumn<int>("b");
        QTest::addColumn<int>("c");
        const int u8 = int(DType::UInt8), s8 = int(DType::Int8);
        QTest::addRow("u8 + u8 -> u8") << u8 << u8 << u8;
        QTest::addRow("u8 + u8 -> s8") << u8 << u8 << s8;
        QTest::addRow("s8 + s8 -> s8") << s8 << s8 << s8;
        QTest::addRow("s8 + s8 -> u8") << s8 << s8 << u8;
        QTest::addRow("u8 + s8 -> s8") << u8 << s8 << s8;
        QTest::addRow("s8 + u8 -> s8") << s8 << u8 << s8;
    }
    void qlinearAddMatchesTheReferenceForEachType() {
        QFETCH(int, a);
        QFETCH(int, b);
        QFETCH(int, c);
        const DType ta = DType(a), tb = DType(b), tc = DType(c);
        const auto lowest = [](DType t) { return t == DType::UInt8 ? 0 : -128; };
        const std::vector<int64_t> dims{1, 8, 5, 25};
        GraphBuilder g;
        const ValueId x = g.input("a", ta, Shape::ofSizes(dims)), y = g.input("b", tb, Shape::ofSizes(dims));
        g.output(g.op("QLinearAdd", {x, g.initializer("as", Tensor::scalar(0.031f)), g.initializer("az", scalarOf(ta, lowest(ta) + 120)),
                                     y, g.initializer("bs", Tensor::scalar(0.017f)), g.initializer("bz", scalarOf(tb, lowest(tb) + 9)),
                                     g.initializer("cs", Tensor::scalar(0.023f)), g.initializer("cz", scalarOf(tc, lowest(tc) + 100))},
                      {}, "add"),
                 tc, Shape::ofSizes(dims));
        g.graph().node(g.lastNode()).domain = "com.microsoft";
        Model m = g.model(17);
        m.opsets.push_back({"com.microsoft", 1});
        const std::map<std::string, Tensor> feeds{{"a", seededInts(ta, dims, 41, lowest(ta), lowest(ta) + 255)},
                                                  {"b", seededInts(tb, dims, 42, lowest(tb), lowest(tb) + 255)}};
        const Outputs o = runBoth(m, feeds);
        QCOMPARE(o.kernels, std::vector<std::string>{"cpu:qlinear-add"});
        QCOMPARE(o.cpu, o.reference);
        const double low = lowest(tc), high = lowest(tc) + 255;
        QVERIFY(std::count(o.cpu.begin(), o.cpu.end(), low) > 0);  // saturated at both ends
        QVERIFY(std::count(o.cpu.begin(), o.cpu.end(), high) > 0);
    }

    /// DQ -> activation -> Q runs as one 256-entry lookup table whose codes are the reference's
    /// for every input code: the input holds all 256 of them, and the outputs are equal exactly.
    void qdqActivationsRunAsLookupTables_data() {
        QTest::addColumn<QString>("activation");
        QTest::addColumn<int>("type");
        // QuickGelu and Gelu are com.microsoft's: fuse-silu writes x * Sigmoid(x) as QuickGelu(alpha 1)
        // when default passes run on a quantized model.
        for (const char* a : {"HardSwish", "HardSigmoid", "Sigmoid", "Tanh", "x * Sigmoid(x)", "Sigmoid(x) * x", "QuickGelu", "Gelu"})
            for (DType t : {DType::UInt8, DType::Int8})
                QTest::addRow("%s %s", a, t == DType::UInt8 ? "u8" : "s8") << QString(a) << int(t);
    }
    void qdqActivationsRunAsLookupTables() {
        QFETCH(QString, activation);
        QFETCH(int, type);
        const DType t = DType(type);
        const bool u8 = t == DType::UInt8;
        const std::vector<int64_t> dims{1, 16, 4, 4};  // 256 elements, one per code
        GraphBuilder b;
        const ValueId x = b.input("x", t, Shape::ofSizes(dims));
        // x spans [-6, 6]: every activation's curved part falls on many codes.
        const ValueId d = b.op("DequantizeLinear", {x, b.initializer("xs", Tensor::scalar(0.047f)), b.initializer("xz", scalarOf(t, u8 ? 128 : 0))}, {}, "dq");
        ValueId y;
        if (activation == "x * Sigmoid(x)") y = b.op("Mul", {d, b.op("Sigmoid", {d}, {}, "gate")}, {}, "swish");
        else if (activation == "Sigmoid(x) * x") y = b.op("Mul", {b.op("Sigmoid", {d}, {}, "gate"), d}, {}, "swish");
        else if (activation == "HardSigmoid") y = b.op("HardSigmoid", {d}, {{"alpha", 0.25f}, {"beta", 0.4f}}, "act");
        else if (activation == "QuickGelu") y = b.op("QuickGelu", {d}, {{"alpha", 1.0f}}, "act");
        else y = b.op(activation.toStdString(), {d}, {}, "act");
        const bool microsoft = activation == "QuickGelu" || activation == "Gelu";
        if (microsoft) b.graph().node(b.lastNode()).domain = "com.microsoft";
        b.output(b.op("QuantizeLinear", {y, b.initializer("ys", Tensor::scalar(0.025f)), b.initializer("yz", scalarOf(t, u8 ? 20 : -108))}, {}, "q"));
        Model m = b.model(17);
        if (microsoft) m.opsets.push_back({"com.microsoft", 1});
        Tensor codes = Tensor::allocate(t, dims);
        for (int i = 0; i < 256; ++i) reinterpret_cast<uint8_t*>(codes.mutableData())[i] = uint8_t(i);
        const Outputs o = runBoth(m, {{"x", codes}});
        QCOMPARE(o.kernels, std::vector<std::string>{"cpu:qlinear-lookup-table"});
        QCOMPARE(o.cpu, o.reference);
        std::set<double> distinct(o.cpu.begin(), o.cpu.end());
        QVERIFY2(distinct.size() > 20, qPrintable(QString("%1 distinct codes").arg(distinct.size())));  // not a saturated table
        auto plan = makeCpuBackend()->compile(m, {});
        const std::string what = activation.startsWith("Sigmoid(x)") || activation.startsWith("x *") ? "x * Sigmoid(x)" : activation.toStdString();
        QVERIFY(saysInItsPreparation(*plan, "ran 1 QDQ activation as int8 lookup tables: 1 " + what));
    }

    /// QLinearConv -> lookup table -> QLinearConv (MobileNetV3's HardSwish between int8
    /// convolutions) passes u8 channels-last through the table. Each convolution can round one
    /// step differently from the reference, and the table carries such a step on (HardSwish's
    /// slope is at most 1.5); a wrong layout would scramble channels and miss by far more.
    void qdqActivationKeepsChannelsLastBetweenInt8Convolutions() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 10, 10}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const auto conv = [&](ValueId in, int seed, const std::string& name) { return qdq.conv1x1(in, seed, name); };
        const ValueId c1 = q(conv(dq(q(x, 0.01f, 128, "xq"), "xdq"), 51, "conv1"), 0.02f, 128, "c1q");
        const ValueId h = q(b.op("HardSwish", {dq(c1, "c1dq")}, {}, "hswish"), 0.012f, 30, "hq");
        b.output(dq(q(conv(dq(h, "hdq"), 52, "conv2"), 0.01f, 128, "c2q"), "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, 16, 10, 10}, 53, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(kernelsOf(*plan), (std::vector<std::string>{"cpu:quantize", "onednn:qlinear_conv", "cpu:qlinear-lookup-table[nhwc in out]",
                                                              "onednn:qlinear_conv", "cpu:dequantize"}));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        const auto [worst, differ] = difference(got, expected);
        // conv1's step (0.02) through HardSwish (x1.5) in units of 0.012, plus hq's own step, into
        // conv2 (sum |w| * 0.004 per input step, |w| <= 64 over 16 inputs), plus c2q's step.
        qInfo("largest difference %g, %zu of %zu outputs differ", worst, differ, got.size());
        QVERIFY2(worst <= 4 * 0.01 + 1e-6, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 20 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
    }

    /// A squeeze-and-excitation block in QDQ form (x from an int8 convolution; GlobalAveragePool,
    /// a 1x1 convolution, a Sigmoid, the Mul of x by the gate, a convolution) runs int8 from end to
    /// end: QLinearGlobalAveragePool and QLinearMul read x channels-last where the convolution wrote
    /// it. The pooled mean can round one step off the reference's float sum (int32 sums), and each
    /// convolution one step; a step in the gate moves the product by at most x's largest value
    /// times the gate's step.
    void qdqSqueezeExcitationRunsAsInt8_data() {
        QTest::addColumn<int>("channels");
        QTest::addRow("16 channels") << 16;
        QTest::addRow("24 channels (16 lanes and a tail)") << 24;
    }
    void qdqSqueezeExcitationRunsAsInt8() {
        QFETCH(int, channels);
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, channels, 9, 9}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const auto conv = [&](ValueId in, int seed, const std::string& name) { return qdq.conv1x1(in, seed, name, channels); };
        const ValueId c1 = q(conv(dq(q(x, 0.01f, 128, "xq"), "xdq"), 61, "conv1"), 0.02f, 128, "c1q");
        const ValueId pooled = q(b.op("GlobalAveragePool", {dq(c1, "c1dq_pool")}, {}, "pool"), 0.004f, 128, "pq");
        const ValueId gate = q(b.op("Sigmoid", {dq(q(conv(dq(pooled, "pdq"), 62, "squeeze"), 0.01f, 128, "sq"), "sdq")}, {}, "sigmoid"),
                               1.f / 255, 0, "gq");
        const ValueId scaled = q(b.op("Mul", {dq(c1, "c1dq_mul"), dq(gate, "gdq")}, {}, "excite"), 0.015f, 128, "mq");
        b.output(dq(q(conv(dq(scaled, "mdq"), 63, "conv2"), 0.01f, 128, "c2q"), "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, channels, 9, 9}, 64, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        // The squeeze convolution (one 1x1 plane) is a product of one row: int8_gemv.h's kernel
        // runs it where oneDNN's int8 sums saturate.
        const std::string squeeze = onednn::int8GemvWanted() ? "cpu:qlinear_conv" : "onednn:qlinear_conv";
        QCOMPARE(kernelsOf(*plan), (std::vector<std::string>{"cpu:quantize", "onednn:qlinear_conv", "cpu:qlinear-global-average-pool[nhwc in]",
                                                              squeeze, "cpu:qlinear-lookup-table", "cpu:qlinear-mul-by-channel[nhwc in,out]",
                                                              "onednn:qlinear_conv", "cpu:dequantize"}));
        QVERIFY(saysInItsPreparation(*plan, "ran 1 QDQ GlobalAveragePool and 1 QDQ Mul as int8 QLinearGlobalAveragePool and QLinearMul"));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        const auto [worst, differ] = difference(got, expected);
        qInfo("largest difference %g, %zu of %zu outputs differ", worst, differ, got.size());
        QVERIFY2(worst <= 4 * 0.01 + 1e-6, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 10 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
    }

    /// A SqueezeNet Fire module in QDQ form (a squeeze convolution, two expand convolutions, Concat,
    /// MaxPool, a convolution) runs int8 from end to end: the Concat as QLinearConcat, which maps one
    /// expand output's codes to the Concat's scale and copies the other's (quantized alike), and the
    /// MaxPool on the u8 codes, all channels-last. Both are exact; the convolutions may round a step.
    void qdqFireModuleRunsAsInt8() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 9, 9}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const ValueId squeezed = q(qdq.conv1x1(dq(q(x, 0.01f, 128, "xq"), "xdq"), 71, "squeeze"), 0.02f, 128, "sq");
        const ValueId left = q(qdq.conv1x1(dq(squeezed, "sdq_left"), 72, "left"), 0.015f, 120, "lq");
        const ValueId right = q(qdq.conv1x1(dq(squeezed, "sdq_right"), 73, "right"), 0.025f, 100, "rq");
        Attributes axis;
        axis.set("axis", int64_t(1));
        const ValueId cat = q(b.op("Concat", {dq(left, "ldq"), dq(right, "rdq")}, axis, "concat"), 0.025f, 100, "cq");
        Attributes window;
        window.set("kernel_shape", std::vector<int64_t>{3, 3});
        window.set("strides", std::vector<int64_t>{2, 2});
        window.set("ceil_mode", int64_t(1));
        const ValueId pooled = q(b.op("MaxPool", {dq(cat, "cdq")}, window, "pool"), 0.025f, 100, "pq");
        b.output(dq(q(qdq.conv1x1(dq(pooled, "pdq"), 74, "conv", 32), 0.01f, 128, "oq"), "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, 16, 9, 9}, 75, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        QCOMPARE(kernelsOf(*plan), (std::vector<std::string>{"cpu:quantize", "onednn:qlinear_conv", "onednn:qlinear_conv", "onednn:qlinear_conv",
                                                              "cpu:qlinear-concat[nhwc in,out]", "onednn:pool[blocked in,out]",
                                                              "onednn:qlinear_conv", "cpu:dequantize"}));
        QVERIFY(saysInItsPreparation(*plan, "ran 1 QDQ node on its int8 codes (1 MaxPool) and 1 QDQ Concat as int8 QLinearConcat"));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        const auto [worst, differ] = difference(got, expected);
        qInfo("largest difference %g, %zu of %zu outputs differ", worst, differ, got.size());
        // A step of an expand output (0.025 at most) through the last convolution (sum |w| * 0.004
        // over 32 inputs, |w| <= 64), plus its own step.
        QVERIFY2(worst <= 4 * 0.01 + 1e-6, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 10 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
    }

    /// Transpose and Reshape between QuantizeLinear and DequantizeLinear pairs of one scale and zero
    /// point (ONNX Runtime's quantizer writes them around every op that moves values) move the u8
    /// codes themselves, exactly; a Reshape whose pair differs stays float between them.
    void qdqDataMovementRunsOnTheCodes() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 6, 5}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const ValueId c = q(qdq.conv1x1(dq(q(x, 0.01f, 128, "xq"), "xdq"), 91, "conv"), 0.02f, 110, "cq");
        Attributes perm;
        perm.set("perm", std::vector<int64_t>{0, 1, 3, 2});
        const ValueId t = q(b.op("Transpose", {dq(c, "cdq")}, perm, "transpose"), 0.02f, 110, "tq");
        const ValueId shape = b.initializer("shape", Tensor::fromVector(DType::Int64, {2}, std::vector<int64_t>{1, -1}));
        const ValueId r = q(b.op("Reshape", {dq(t, "tdq"), shape}, {}, "reshape"), 0.02f, 110, "rq");
        const ValueId r2 = q(b.op("Reshape", {dq(r, "rdq"), shape}, {}, "requantized"), 0.03f, 110, "r2q");
        b.output(dq(r2, "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, 16, 6, 5}, 92, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        QVERIFY(saysInItsPreparation(*plan, "ran 2 QDQ nodes on their int8 codes (1 Reshape, 1 Transpose)"));
        QCOMPARE(kernelsOf(*plan), (std::vector<std::string>{"cpu:quantize", "onednn:qlinear_conv", "cpu:transpose", "cpu:reshape",
                                                              "cpu:dequantize", "cpu:reshape", "cpu:quantize", "cpu:dequantize"}));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        const auto [worst, differ] = difference(got, expected);
        qInfo("largest difference %g, %zu of %zu outputs differ", worst, differ, got.size());
        // The convolution may round a step (0.02), which the last pair may round to one of its own.
        QVERIFY2(worst <= 0.03 * 1.001, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 10 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
    }

    /// QLinearConcat of a convolution's output (channels-last) and of the quantized graph input
    /// (plain): the plain one is reordered to the output's layout first, and where the output is
    /// plain (the graph's, dequantized), the channels-last one is.
    void qdqConcatOfMixedLayouts_data() {
        QTest::addColumn<bool>("convolutionAfter");
        QTest::addColumn<std::string>("kernel");
        QTest::addRow("channels-last output") << true << std::string("cpu:qlinear-concat[nhwc in,out]");
        QTest::addRow("plain output") << false << std::string("cpu:qlinear-concat[nhwc in]");
    }
    void qdqConcatOfMixedLayouts() {
        QFETCH(bool, convolutionAfter);
        QFETCH(std::string, kernel);
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({1, 16, 6, 5}));
        const QdqBuilder qdq{b};
        const auto q = [&](ValueId v, float scale, int zero, const std::string& name) { return qdq.q(v, scale, zero, name); };
        const auto dq = [&](ValueId v, const std::string& name) { return qdq.dq(v, name); };
        const ValueId xq = q(x, 0.01f, 128, "xq");
        const ValueId c = q(qdq.conv1x1(dq(xq, "xdq_conv"), 81, "conv"), 0.02f, 110, "cq");
        Attributes axis;
        axis.set("axis", int64_t(1));
        ValueId cat = q(b.op("Concat", {dq(c, "cdq"), dq(xq, "xdq_cat")}, axis, "concat"), 0.02f, 128, "catq");
        if (convolutionAfter) cat = q(qdq.conv1x1(dq(cat, "catdq"), 82, "after", 32), 0.01f, 128, "aq");
        b.output(dq(cat, "out"));
        const Model m = b.model(17);
        const Tensor input = seeded({1, 16, 6, 5}, 83, -1.2f, 1.2f);
        CompileOptions reference;
        reference.referenceOnly = true;
        const std::vector<double> expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}}).at(0).toDoubles();
        auto plan = makeCpuBackend()->compile(m, {});
        const std::vector<std::string> kernels = kernelsOf(*plan);
        QStringList names;
        for (const std::string& k : kernels) names << QString::fromStdString(k);
        QVERIFY2(std::find(kernels.begin(), kernels.end(), kernel) != kernels.end(), qPrintable(names.join(", ")));
        const std::vector<double> got = plan->run({{"x", input}}).at(0).toDoubles();
        const auto [worst, differ] = difference(got, expected);
        qInfo("largest difference %g, %zu of %zu outputs differ", worst, differ, got.size());
        // The convolution may round one step (0.02) before the Concat; after it, as in the Fire module.
        QVERIFY2(worst <= (convolutionAfter ? 4 * 0.01 : 0.02) * 1.001, qPrintable(QString("off by %1").arg(worst)));
        QVERIFY2(differ * 10 < got.size(), qPrintable(QString("%1 of %2 differ").arg(differ).arg(got.size())));
    }

    void quantizeAndDequantizeMatchTheReference() {
        for (DType t : {DType::UInt8, DType::Int8}) {
            GraphBuilder b;
            const ValueId x = b.input("x", DType::Float, Shape::ofSizes({3, 1000}));
            const ValueId s = b.initializer("s", Tensor::scalar(0.037f)), z = b.initializer("z", scalarOf(t, t == DType::UInt8 ? 131 : -7));
            const ValueId q = b.op("QuantizeLinear", {x, s, z}, {}, "q");
            b.output(b.op("DequantizeLinear", {q, s, z}, {}, "dq"));
            b.output(q);
            Tensor input = seeded({3, 1000}, 5, -6.f, 6.f);
            input.mutableSpan<float>()[0] = 0.5f * 0.037f;  // ties round to even
            input.mutableSpan<float>()[1] = 1.5f * 0.037f;
            // Saturation, infinities and NaN (the lowest code, as ONNX Runtime gives it), in a
            // vector's lanes and in the tail after them.
            const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
            for (size_t at : {size_t(2), size_t(2994)}) {  // the tail: 2992 on
                const float edges[] = {1e30f, -1e30f, inf, -inf, -0.f, nan};
                for (size_t k = 0; k < std::size(edges); ++k) input.mutableSpan<float>()[at + k] = edges[k];
            }
            const Model m = b.model(17);
            CompileOptions reference;
            reference.referenceOnly = true;
            const auto expected = makeCpuBackend()->compile(m, reference)->run({{"x", input}});
            auto plan = makeCpuBackend()->compile(m, {});
            QCOMPARE(plan->nodes().at(0).kernel, std::string("cpu:quantize"));
            QCOMPARE(plan->nodes().at(1).kernel, std::string("cpu:dequantize"));
            const auto got = plan->run({{"x", input}});
            QCOMPARE(got.at(1).toDoubles()[7], t == DType::UInt8 ? 0.0 : -128.0);  // the NaN
            QCOMPARE(got.at(0).toDoubles(), expected.at(0).toDoubles());
            QCOMPARE(got.at(1).toDoubles(), expected.at(1).toDoubles());
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuInt8)
#include "tst_cpu_int8.moc"
