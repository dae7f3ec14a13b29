// int8 kernels on oneDNN: QLinearConv and ConvInteger as s8/u8 convolutions, QLinearMatMul,
// MatMulInteger and ONNX Runtime's QGemm and MatMulIntegerToFloat (which the CPU plan makes of QDQ
// products, qdq_fusion.h) as s8/u8 matmuls, all accumulating in int32 (VNNI where oneDNN finds it at run
// time). Requantization is oneDNN's: output scales x_scale * w_scale[c] / y_scale (per tensor or
// per output channel), the int32 bias, the output zero point, round half to even, saturate; or,
// for a float output (QGemm without y_scale, MatMulIntegerToFloat), scales x_scale * w_scale[c].
//
// Weights must be constant: u8 weights or weights with a zero point become s8 weights w - w_zero
// once (oneDNN takes no weight zero point), which needs every w - w_zero in [-128, 127]; the
// kernel declines otherwise and the reference runs the node. Input zero points are oneDNN's src
// zero points (it pads with them, as ONNX does), output zero points its dst zero points.
//
// Where results equal the reference kernel's: ConvInteger and MatMulInteger bit for bit while
// every int32 sum stays below 2^24 in magnitude (oneDNN converts the accumulator to float on its
// way out); QLinearConv and QLinearMatMul within one output step: oneDNN adds the bias and the
// output zero point in float where the reference adds them exactly, so a product that lands on
// (or within float rounding of) a half step can round to the neighbour.
//
// Machines without VNNI (AVX2, AVX-512 without VNNI) multiply u8 x s8 pairs into saturating
// 16-bit sums (vpmaddubsw): exact while |w| <= 64 for u8 inputs; for s8 inputs oneDNN halves the
// weights (and doubles the output scale), exact for even weights. ONNX Runtime's MLAS has the
// same limit there (its quantization tools offer reduce_range for it). There, products of one row
// (a classifier's last layer, a squeeze-and-excitation block's 1x1 convolutions) run on
// int8_gemv.h's kernel instead, whose sums are exact.
//
// Convolutions compute on channels-last activations (nhwc), which the plan keeps between
// consecutive int8 convolutions (see onednn_layout.h); matmuls on plain row-major data.
#include "core/runtime/cpu/int8_gemv.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

bool isInt8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

dt int8Type(DType t) { return t == DType::Int8 ? dt::s8 : dt::u8; }

/// The values of a constant input (empty when absent; nullopt when not constant).
std::optional<std::vector<double>> constantValues(const NodeDescriptor& info, size_t i) {
    if (!info.hasInput(i)) return std::vector<double>{};
    if (!info.constants[i]) return std::nullopt;
    return info.constants[i]->toDoubles();
}

/// One value of a per-tensor parameter (a scale or zero point): `fallback` when the input is
/// absent, nullopt when it is not a constant of one element.
std::optional<double> scalarParameter(const NodeDescriptor& info, size_t i, double fallback) {
    const auto v = constantValues(info, i);
    if (!v || v->size() > 1) return std::nullopt;
    return v->empty() ? fallback : (*v)[0];
}

/// `values` per channel: one value repeated, or `channels` values; nullopt otherwise.
std::optional<std::vector<double>> perChannel(std::vector<double> values, int64_t channels, double fallback) {
    if (values.empty()) return std::vector<double>(size_t(channels), fallback);
    if (values.size() == 1) return std::vector<double>(size_t(channels), values[0]);
    if (int64_t(values.size()) != channels) return std::nullopt;
    return values;
}

/// The constant weights w minus their zero point as s8 (channel of element i: channelOf(i)),
/// or nullopt when one of them leaves [-128, 127].
template <class ChannelOf>
std::optional<std::vector<int8_t>> centeredWeights(const Tensor& w, const std::vector<double>& zero, ChannelOf channelOf) {
    const std::vector<double> values = w.toDoubles();
    std::vector<int8_t> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        const double v = values[i] - zero[channelOf(i)];
        if (v < -128 || v > 127) return std::nullopt;
        out[i] = int8_t(v);
    }
    return out;
}

/// The channels-last tag (nwc, nhwc, ndhwc) of an activation of `rank`.
tag channelsLastTag(size_t rank) {
    switch (rank) {
    case 3: return tag::nwc;
    case 4: return tag::nhwc;
    case 5: return tag::ndhwc;
    default: return tag::undef;
    }
}

/// oneDNN's implementation behind a primitive ("brg:avx512_core_vnni", "jit_int8:avx2"...).
std::string implementationOf(const dnnl::primitive_desc_base& pd) {
    const char* impl = nullptr;
    dnnl_primitive_desc_query(pd.get(), dnnl_query_impl_info_str, 0, &impl);
    return impl ? impl : "?";
}

/// The requantization and zero points of an int8 convolution or matmul.
struct Quantization {
    int32_t srcZero = 0, dstZero = 0;
    std::vector<float> scales;  ///< one, or one per output channel; empty: int32 output, no scaling
    std::vector<int8_t> weights;  ///< w - w_zero, in the ONNX layout
    std::vector<int32_t> bias;    ///< empty when none
};

dnnl::primitive_attr quantizationAttr(const Quantization& q, int channelMask) {
    dnnl::primitive_attr attr;
    if (!q.scales.empty()) attr.set_output_scales(q.scales.size() > 1 ? channelMask : 0, q.scales);
    if (q.srcZero != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {q.srcZero});
    if (q.dstZero != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {q.dstZero});
    return attr;
}

/// Where a quantized node's inputs are (kAbsent: the op has no such input).
constexpr size_t kAbsent = size_t(-1);
struct Int8Inputs {
    size_t w, xScale, xZero, wScale, wZero, yScale, yZero, bias;
};

/// The input positions of each op: QLinear{Conv,MatMul}: x, x_scale, x_zero, w, w_scale, w_zero,
/// y_scale, y_zero[, B]; {Conv,MatMul}Integer: x, w, x_zero, w_zero; com.microsoft QGemm: A,
/// a_scale, a_zero, B, b_scale, b_zero, C, [y_scale, y_zero] (float output without y_scale);
/// com.microsoft MatMulIntegerToFloat: A, B, a_scale, b_scale, a_zero, b_zero[, bias] (float
/// output; the bias is not taken here).
Int8Inputs inputsOf(const std::string& op) {
    if (op == "QLinearConv" || op == "QLinearMatMul") return {3, 1, 2, 4, 5, 6, 7, 8};
    if (op == "QGemm") return {3, 1, 2, 4, 5, 7, 8, 6};
    if (op == "MatMulIntegerToFloat") return {1, 2, 4, 3, 5, kAbsent, kAbsent, 6};
    return {1, kAbsent, 2, kAbsent, 3, kAbsent, kAbsent, kAbsent};  // ConvInteger, MatMulInteger
}

/// What a quantized node's inputs say: requantized u8/s8 output (y_scale given), float output
/// (scales but no y_scale: QGemm, MatMulIntegerToFloat) or int32 output (no scales: *Integer).
/// `channels`: output channels (conv) or columns (matmul); the weight zero point and scale may
/// have one value per channel. `channelOf(i)`: the channel of weight i.
template <class ChannelOf>
std::optional<Quantization> readQuantization(const NodeDescriptor& info, int64_t channels, ChannelOf channelOf) {
    const Int8Inputs in = inputsOf(info.node.opType);
    if (!info.hasInput(0) || !info.hasInput(in.w) || !isInt8(info.inputTypes[0]) || !isInt8(info.inputTypes[in.w])) return std::nullopt;
    const Tensor* weights = info.constants[in.w];
    if (!weights) return std::nullopt;
    Quantization q;
    const auto xz = scalarParameter(info, in.xZero, 0.0);
    const auto wzValues = constantValues(info, in.wZero);
    if (!xz || !wzValues) return std::nullopt;
    const auto wz = perChannel(*wzValues, channels, 0.0);
    if (!wz) return std::nullopt;
    auto centered = centeredWeights(*weights, *wz, channelOf);
    if (!centered) return std::nullopt;
    q.weights = std::move(*centered);
    q.srcZero = int32_t(*xz);
    if (in.xScale == kAbsent) {
        if (info.outputTypes[0] != DType::Int32) return std::nullopt;
        return q;
    }
    const bool requantized = in.yScale != kAbsent && info.hasInput(in.yScale);
    const auto xs = scalarParameter(info, in.xScale, 1.0);
    const auto ys = requantized ? scalarParameter(info, in.yScale, 1.0) : std::optional<double>(1.0);
    const auto yz = requantized ? scalarParameter(info, in.yZero, 0.0) : std::optional<double>(0.0);
    const auto wsValues = constantValues(info, in.wScale);
    if (!xs || !ys || !yz || !wsValues || wsValues->empty()) return std::nullopt;
    const auto ws = perChannel(*wsValues, channels, 1.0);
    if (!ws || (requantized ? !isInt8(info.outputTypes[0]) : info.outputTypes[0] != DType::Float)) return std::nullopt;
    const float xScale = float(*xs), yScale = float(*ys);
    // As the reference computes them: x_scale * w_scale / y_scale, or x_scale * w_scale.
    for (double s : *ws) q.scales.push_back(requantized ? xScale * float(s) / yScale : xScale * float(s));
    if (wsValues->size() == 1) q.scales.resize(1);
    q.dstZero = int32_t(*yz);
    if (in.bias != kAbsent && info.hasInput(in.bias)) {
        const auto b = constantValues(info, in.bias);
        if (!b || int64_t(b->size()) != channels || info.inputDims[in.bias].back() != channels ||
            info.inputTypes[in.bias] != DType::Int32)
            return std::nullopt;
        for (double v : *b) q.bias.push_back(int32_t(v));
    }
    return q;
}

// ---- convolution ---------------------------------------------------------------------------

class Int8ConvKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    Int8ConvKernel(std::string name, const dnnl::convolution_forward::primitive_desc& pd, const Quantization& q,
                   const memory::desc& userWeights, const memory::desc& userSrc, const memory::desc& userDst, int threads)
        : name_(std::move(name)), threads_(threads), primitive_(pd) {
        const dnnl::engine& eng = engine();
        src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
        dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
        userSrc_ = memory(userSrc, eng, DNNL_MEMORY_NONE);
        userDst_ = memory(userDst, eng, DNNL_MEMORY_NONE);
        reorderSrc_ = pd.src_desc() != userSrc;
        reorderDst_ = pd.dst_desc() != userDst;
        if (reorderSrc_) srcIn_ = dnnl::reorder(userSrc_, src_);
        if (reorderDst_) dstOut_ = dnnl::reorder(dst_, userDst_);
        weights_ = packedCopy(userWeights, const_cast<int8_t*>(q.weights.data()), pd.weights_desc());
        args_[DNNL_ARG_SRC] = src_;
        args_[DNNL_ARG_WEIGHTS] = weights_;
        args_[DNNL_ARG_DST] = dst_;
        if (!q.bias.empty()) {
            bias_ = memory(pd.bias_desc(), eng);
            std::memcpy(bias_.get_data_handle(), q.bias.data(), q.bias.size() * sizeof(int32_t));
            args_[DNNL_ARG_BIAS] = bias_;
        }
    }

    std::string name() const override {
        if (!keptSrc_ && !keptDst_) return name_;
        return name_ + (keptSrc_ && keptDst_ ? "[nhwc in,out]" : keptSrc_ ? "[nhwc in]" : "[nhwc out]");
    }

    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (i == 0 && reorderSrc_) return src_.get_desc();
        return std::nullopt;
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (reorderDst_) return dst_.get_desc();
        return std::nullopt;
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        keptSrc_ = reorderSrc_ && !inputs.empty() && inputs[0];
        keptDst_ = reorderDst_ && output;
    }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        dnnl::stream& s = stream();
        if (reorderSrc_ && !keptSrc_) {
            userSrc_.set_data_handle(handleOf(*inputs[0]));
            src_.set_data_handle(scratchBuffer(0, src_.get_desc().get_size()));
            srcIn_.execute(s, userSrc_, src_);
        } else {
            src_.set_data_handle(handleOf(*inputs[0]));
        }
        void* out = outputs[0].mutableData();
        userDst_.set_data_handle(out);
        dst_.set_data_handle(reorderDst_ && !keptDst_ ? scratchBuffer(1, dst_.get_desc().get_size()) : out);
        primitive_.execute(s, args_);
        if (reorderDst_ && !keptDst_) dstOut_.execute(s, dst_, userDst_);
        s.wait();
    }

private:
    std::string name_;
    int threads_;
    dnnl::primitive primitive_;
    memory src_, dst_, userSrc_, userDst_, weights_, bias_;
    dnnl::reorder srcIn_, dstOut_;
    std::unordered_map<int, memory> args_;
    bool reorderSrc_ = false, reorderDst_ = false, keptSrc_ = false, keptDst_ = false;
};

std::unique_ptr<PreparedKernel> prepareInt8Conv(const NodeDescriptor& info) {
    const bool qlinear = info.node.opType == "QLinearConv";
    const size_t wIndex = qlinear ? 3 : 1;
    if (!info.hasInput(wIndex) || info.outputDims.size() != 1) return nullptr;
    const auto& xd = info.inputDims[0];
    const auto& wd = info.inputDims[wIndex];
    if (xd.size() < 3 || xd.size() > 5 || wd.size() != xd.size()) return nullptr;
    for (const auto& dims : {xd, wd, info.outputDims[0]})
        if (elementCount(dims) <= 0) return nullptr;
    nn::ConvShapes shapes;
    try {
        shapes = nn::convShapes(info.attributes(), xd, wd);
    } catch (const std::exception&) {
        return nullptr;
    }
    if (nn::convOutputDims(shapes) != info.outputDims[0]) return nullptr;
    const int64_t perChannel = elementCount(wd) / wd[0];
    auto q = readQuantization(info, shapes.outChannels, [perChannel](size_t i) { return size_t(int64_t(i) / perChannel); });
    if (!q) return nullptr;
    const nn::WindowGeometry& w = shapes.window;
    // A 1x1 convolution of one 1x1 plane (a squeeze-and-excitation block's) is a product of one
    // row: its weights [M, C, 1, 1] are the rows, and without leading padding it reads the plane.
    const bool onePoint = elementCount(xd) == shapes.inChannels && elementCount(info.outputDims[0]) == shapes.outChannels;
    if (onePoint && shapes.group == 1 && perChannel == shapes.inChannels && std::ranges::all_of(w.padsBegin, [](int64_t p) { return p == 0; }) &&
        int8GemvWanted()) {
        Int8Gemv gemv{shapes.inChannels, shapes.outChannels, true, info.inputTypes[0], qlinear ? info.outputTypes[0] : DType::Int32,
                      q->srcZero, q->dstZero, q->scales, q->weights, q->bias};
        if (auto kernel = prepareInt8Gemv(std::string(qlinear ? "cpu:qlinear_conv" : "cpu:conv_integer") + "(gemv:avx2)", std::move(gemv), info.threads))
            return kernel;
    }
    Dims strides, dilates, padL, padR;
    for (size_t i = 0; i < w.inSizes.size(); ++i) {
        strides.push_back(w.strides[i]);
        dilates.push_back(w.dilations[i] - 1);
        padL.push_back(w.padsBegin[i]);
        padR.push_back(w.padsEnd[i]);
    }
    Dims weights = toDims(wd);
    if (shapes.group > 1) {
        weights[0] /= shapes.group;
        weights.insert(weights.begin(), shapes.group);
    }
    const dt srcType = int8Type(info.inputTypes[0]);
    const dt dstType = qlinear ? int8Type(info.outputTypes[0]) : dt::s32;
    const Dims src = toDims(xd), dst = toDims(info.outputDims[0]);
    const tag last = channelsLastTag(xd.size());
    const memory::desc userSrc(src, srcType, plainTag(xd.size())), userDst(dst, dstType, plainTag(xd.size()));
    const memory::desc userWeights(weights, dt::s8, plainTag(weights.size()));
    const memory::desc bias = q->bias.empty() ? memory::desc() : memory::desc({shapes.outChannels}, dt::s32, tag::a);
    try {
        ThreadScope threads(info.threads);
        const dnnl::primitive_attr attr = quantizationAttr(*q, 1 << 1);
        const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                                   memory::desc(src, srcType, last), memory::desc(weights, dt::s8, tag::any),
                                                   bias, memory::desc(dst, dstType, last), strides, dilates, padL, padR);
        const dnnl::convolution_forward::primitive_desc pd(desc, attr, engine());
        // Even oneDNN's reference kernel (grouped convolutions with a src zero point on AVX2)
        // computes in int32, far faster than the reference kernel's double loops.
        const std::string impl = implementationOf(pd);
        return std::make_unique<Int8ConvKernel>(std::string(qlinear ? "onednn:qlinear_conv" : "onednn:conv_integer") + "(" + impl + ")",
                                                pd, *q, userWeights, userSrc, userDst, info.threads);
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

// ---- matmul --------------------------------------------------------------------------------

/// A [.., M, K] x [K, N] product with constant B (stored [N, K] for a QGemm with transB), A's
/// leading axes folded into M; an int32 bias of one value per column added to the sums.
class Int8MatMulKernel final : public PreparedKernel {
public:
    Int8MatMulKernel(std::string name, const dnnl::matmul::primitive_desc& pd, const Quantization& q,
                     const memory::desc& userWeights, int threads)
        : name_(std::move(name)), threads_(threads), primitive_(pd) {
        const dnnl::engine& eng = engine();
        src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
        dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
        weights_ = packedCopy(userWeights, const_cast<int8_t*>(q.weights.data()), pd.weights_desc());
        args_[DNNL_ARG_SRC] = src_;
        args_[DNNL_ARG_WEIGHTS] = weights_;
        args_[DNNL_ARG_DST] = dst_;
        if (!q.bias.empty()) {
            bias_ = memory(pd.bias_desc(), eng);
            std::memcpy(bias_.get_data_handle(), q.bias.data(), q.bias.size() * sizeof(int32_t));
            args_[DNNL_ARG_BIAS] = bias_;
        }
    }

    std::string name() const override { return name_; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        dnnl::stream& s = stream();
        src_.set_data_handle(handleOf(*inputs[0]));
        dst_.set_data_handle(outputs[0].mutableData());
        primitive_.execute(s, args_);
        s.wait();
    }

private:
    std::string name_;
    int threads_;
    dnnl::primitive primitive_;
    memory src_, dst_, weights_, bias_;
    std::unordered_map<int, memory> args_;
};

/// What a product kernel computes, for its name in bench --by-op and profiles ("onednn:" or
/// "cpu:" before it, the implementation after it).
std::string matMulKernelName(const std::string& op, bool floatOutput) {
    if (op == "QLinearMatMul") return "qlinear_matmul";
    if (op == "MatMulInteger") return "matmul_integer";
    if (op == "MatMulIntegerToFloat") return "matmul_integer_to_float";
    return floatOutput ? "qgemm_to_float" : "qgemm";
}

std::unique_ptr<PreparedKernel> prepareInt8MatMul(const NodeDescriptor& info) {
    const std::string& op = info.node.opType;
    const Int8Inputs in = inputsOf(op);
    const bool gemm = op == "QGemm";
    const bool transB = gemm && info.attributes().getInt("transB", 0) != 0;
    if (gemm && (info.attributes().getInt("transA", 0) != 0 || info.attributes().getFloat("alpha", 1.f) != 1.f)) return nullptr;
    if (!info.hasInput(in.w) || info.outputDims.size() != 1) return nullptr;
    if (op == "MatMulIntegerToFloat" && info.hasInput(in.bias)) return nullptr;  // the reference adds a float bias
    const auto& ad = info.inputDims[0];
    const auto& bd = info.inputDims[in.w];
    if (ad.size() < 2 || bd.size() != 2 || (gemm && ad.size() != 2)) return nullptr;
    const int64_t k = transB ? bd[1] : bd[0], n = transB ? bd[0] : bd[1];
    if (ad.back() != k) return nullptr;
    const int64_t m = elementCount(ad) / k;
    std::vector<int64_t> outDims(ad.begin(), ad.end() - 1);
    outDims.push_back(n);
    if (outDims != info.outputDims[0] || m <= 0 || n <= 0 || k <= 0) return nullptr;
    auto q = transB ? readQuantization(info, n, [k](size_t i) { return size_t(int64_t(i) / k); })
                    : readQuantization(info, n, [n](size_t i) { return size_t(int64_t(i) % n); });
    if (!q) return nullptr;
    const bool floatOutput = info.outputTypes[0] == DType::Float;
    if (m == 1 && int8GemvWanted()) {
        Int8Gemv gemv{k, n, transB, info.inputTypes[0], info.outputTypes[0], q->srcZero, q->dstZero, q->scales, q->weights, q->bias};
        if (auto kernel = prepareInt8Gemv("cpu:" + matMulKernelName(op, floatOutput) + "(gemv:avx2)", std::move(gemv), info.threads))
            return kernel;
    }
    const dt srcType = int8Type(info.inputTypes[0]);
    const dt dstType = q->scales.empty() ? dt::s32 : floatOutput ? dt::f32 : int8Type(info.outputTypes[0]);
    const memory::desc userWeights({k, n}, dt::s8, transB ? tag::ba : tag::ab);
    const memory::desc bias = q->bias.empty() ? memory::desc() : memory::desc({1, n}, dt::s32, tag::ab);
    try {
        ThreadScope threads(info.threads);
        const dnnl::primitive_attr attr = quantizationAttr(*q, 1 << 1);
        const dnnl::matmul::desc desc(memory::desc({m, k}, srcType, tag::ab), memory::desc({k, n}, dt::s8, tag::any), bias,
                                      memory::desc({m, n}, dstType, tag::ab));
        const dnnl::matmul::primitive_desc pd(desc, attr, engine());
        const std::string impl = implementationOf(pd);
        return std::make_unique<Int8MatMulKernel>("onednn:" + matMulKernelName(op, floatOutput) + "(" + impl + ")", pd, *q, userWeights, info.threads);
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

} // namespace

void registerInt8Kernels(CpuKernelRegistry& registry) {
    registry.add("QLinearConv", prepareInt8Conv);
    registry.add("ConvInteger", prepareInt8Conv);
    registry.add("QLinearMatMul", prepareInt8MatMul);
    registry.add("MatMulInteger", prepareInt8MatMul);
    registry.add("QGemm", prepareInt8MatMul, "com.microsoft");
    registry.add("MatMulIntegerToFloat", prepareInt8MatMul, "com.microsoft");
}

} // namespace graphlens::onednn
