// oneDNN convolutions: Conv and FusedConv (1-D to 3-D, grouped and depthwise, dilated, padded,
// fused activation and residual add as post-ops) and ConvTranspose: their geometry, and whether
// each computes on NCHW or in the blocked layout oneDNN prefers (the kernel: onednn_conv_kernel.h).
#include "core/runtime/cpu/conv_tuning.h"
#include "core/runtime/cpu/onednn_conv_kernel.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <optional>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

/// The geometry of a (transposed) convolution in oneDNN's terms.
struct ConvGeometry {
    Dims src, weights, dst, strides, dilates, padL, padR;
    int64_t inChannels = 0, outChannels = 0, group = 1;
    bool activation = false;  ///< an eltwise post-op
};

/// Where a convolution computes: on the graph's NCHW, in the blocked layout (reorders inside
/// run() unless the plan keeps its neighbours blocked), or blocked only when the neighbours are.
enum class LayoutChoice { Plain, Blocked, BlockedWhenChained };

/// Where oneDNN's direct blocked kernels beat its NCHW ones (enough channels to fill a vector
/// block), reorders included.
LayoutChoice chooseLayout(const ConvGeometry& g) {
    switch (convLayoutPolicy()) {
    case ConvLayout::Plain: return LayoutChoice::Plain;
    case ConvLayout::Blocked: return LayoutChoice::Blocked;
    case ConvLayout::Auto: break;
    }
    const int64_t groupIn = g.inChannels / g.group, groupOut = g.outChannels / g.group;
    // Depthwise: NCHW runs the generic gemm path, 6-60x slower than jit_dw on blocked data.
    if (g.group > 1 && groupIn == 1 && groupOut == 1) return g.inChannels >= 8 ? LayoutChoice::Blocked : LayoutChoice::Plain;
    // Half a 16-channel block or more, padded to the block on AVX-512: the direct kernels still
    // beat NCHW's im2col + GEMM and spare the reorders around the blocked depthwise convs next to
    // them (PP-OCR's text-direction classifier, with 8- and 24-channel stages: 1.12 -> 0.73 ms).
    // Not on a 1x1 plane (squeeze-and-excitation), where the reorders would cost more than the GEMM.
    int64_t outPlane = 1;
    for (size_t i = 2; i < g.dst.size(); ++i) outPlane *= g.dst[i];
    const int64_t fewest = outPlane > 1 ? 8 : 16;
    // An image model's first conv: oneDNN's "flat" kernel reads NCHW and writes blocked, 5-7x
    // faster than the NCHW (im2col + GEMM) one even with the reorder out.
    if (g.inChannels <= 4 && g.outChannels >= fewest && g.group == 1) return LayoutChoice::Blocked;
    if (g.inChannels < fewest || g.outChannels < fewest) return LayoutChoice::Plain;
    // A pointwise (1x1, stride 1, unpadded) convolution on NCHW is one GEMM per image with no
    // im2col: on large planes it beats the blocked kernel plus its two reorders (56x56: ~25%),
    // though not the blocked kernel alone; unless it has an activation, which the GEMM path
    // applies element by element afterwards (several times the GEMM's time).
    bool pointwise = true;
    int64_t plane = 1;
    for (size_t i = 0; i < g.strides.size(); ++i) {
        pointwise = pointwise && g.weights[g.weights.size() - g.strides.size() + i] == 1 && g.strides[i] == 1 &&
                    g.padL[i] == 0 && g.padR[i] == 0;
        plane *= g.src[2 + i];
    }
    if (pointwise && g.group == 1 && plane > 196)
        return g.activation ? LayoutChoice::Blocked : LayoutChoice::BlockedWhenChained;
    return LayoutChoice::Blocked;
}

/// The memory descriptors a (transposed) convolution is created with: activations plain, or in
/// this machine's channel-blocked layout (channelBlockedTag) where the layout choice, or a
/// chained variant, wants them blocked. An image's first conv (4 channels or fewer) reads its
/// input as oneDNN chooses (its "flat" kernel reads NCHW). Left to oneDNN alone, AVX-512 machines
/// get channels-last (nhwc) activations, which the Winograd, pooling and channel-wise kernels
/// that keep chains blocked do not read.
struct ConvDescs {
    memory::desc src, dst, weights, bias;
    bool blocked = false;
};

/// Nullopt when `variant` (the blocked form used only inside chains) does not apply to `g`.
std::optional<ConvDescs> convDescs(const ConvGeometry& g, const NodeDescriptor& info, bool variant) {
    const LayoutChoice choice = chooseLayout(g);
    if (variant && choice != LayoutChoice::BlockedWhenChained) return std::nullopt;
    const bool blocked = variant || choice == LayoutChoice::Blocked;
    const bool flatInput = g.inChannels <= 4 && g.group == 1;
    const tag srcTag = !blocked ? plainTag(g.src.size()) : flatInput ? tag::any : channelBlockedTag(g.src.size());
    return ConvDescs{memory::desc(g.src, dt::f32, srcTag),
                     memory::desc(g.dst, dt::f32, blocked ? channelBlockedTag(g.dst.size()) : plainTag(g.dst.size())),
                     memory::desc(g.weights, dt::f32, tag::any),
                     info.hasInput(2) ? memory::desc({g.outChannels}, dt::f32, tag::a) : memory::desc(), blocked};
}

/// The primitive descriptor of a (de)convolution `Primitive` on `d`; where oneDNN has no kernel
/// for the channel-blocked layout, the blocked activations in the layout it chooses itself.
template <class Primitive>
typename Primitive::primitive_desc convPrimitive(dnnl::algorithm algorithm, const ConvGeometry& g, ConvDescs d,
                                                 const dnnl::primitive_attr& attr) {
    const auto create = [&] {
        const typename Primitive::desc desc(dnnl::prop_kind::forward_inference, algorithm, d.src, d.weights, d.bias,
                                            d.dst, g.strides, g.dilates, g.padL, g.padR);
        return typename Primitive::primitive_desc(desc, attr, engine());
    };
    try {
        return create();
    } catch (const dnnl::error&) {
        if (!d.blocked) throw;
    }
    d.src = memory::desc(g.src, dt::f32, tag::any);
    d.dst = memory::desc(g.dst, dt::f32, tag::any);
    return create();
}

/// Inputs every convolution factory checks: float32, weights of the input's rank,
/// 1 to 3 spatial axes, no empty tensor, a bias of one value per output channel.
bool convInputsOk(const NodeDescriptor& info, int64_t outChannels) {
    if (!allFloat(info) || info.inputDims.size() < 2 || !info.hasInput(0) || !info.hasInput(1)) return false;
    if (info.outputDims.size() != 1) return false;
    const auto& x = info.inputDims[0];
    if (x.size() < 3 || x.size() > 5 || info.inputDims[1].size() != x.size()) return false;
    for (const auto& dims : {x, info.inputDims[1], info.outputDims[0]})
        if (elementCount(dims) <= 0) return false;
    if (info.hasInput(2) && info.inputDims[2] != std::vector<int64_t>{outChannels}) return false;
    return true;
}

dnnl::primitive_attr postOpsAttr(const NodeDescriptor& info, bool residual, bool& ok) {
    dnnl::post_ops ops;
    if (residual) ops.append_sum(1.f);
    ok = appendActivation(info.attributes(), ops);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    return attr;
}

/// The Winograd geometry of a 3x3, stride 1, undilated, ungrouped 2-D convolution that oneDNN
/// computes on nChw8c or nChw16c in and out (so the plan's layout choices stay as they are).
std::optional<WinogradShape> winogradShape(const ConvGeometry& g, const dnnl::convolution_forward::primitive_desc& pd) {
    if (g.src.size() != 4 || g.group != 1 || g.weights != Dims{g.outChannels, g.inChannels, 3, 3}) return std::nullopt;
    if (g.strides != Dims{1, 1} || g.dilates != Dims{0, 0}) return std::nullopt;
    WinogradShape shape;
    if (pd.src_desc() == memory::desc(g.src, dt::f32, tag::nChw16c) && pd.dst_desc() == memory::desc(g.dst, dt::f32, tag::nChw16c))
        shape.block = 16;
    else if (pd.src_desc() != memory::desc(g.src, dt::f32, tag::nChw8c) || pd.dst_desc() != memory::desc(g.dst, dt::f32, tag::nChw8c))
        return std::nullopt;
    shape.batch = g.src[0];
    shape.inChannels = g.inChannels;
    shape.outChannels = g.outChannels;
    shape.inHeight = g.src[2];
    shape.inWidth = g.src[3];
    shape.outHeight = g.dst[2];
    shape.outWidth = g.dst[3];
    shape.padTop = g.padL[0];
    shape.padLeft = g.padL[1];
    return shape;
}

/// The Winograd form of the convolution where winogradShape gives one and the policy (or, with
/// `anyShape`, a measurement) takes it; else nullptr.
std::unique_ptr<WinogradConv> winogradForm(const ConvGeometry& g, const dnnl::convolution_forward::primitive_desc& pd,
                                           const NodeDescriptor& info, bool anyShape = false) {
    const std::optional<WinogradShape> shape = winogradShape(g, pd);
    return shape ? WinogradConv::make(*shape, info, anyShape) : nullptr;
}

/// oneDNN's own Winograd convolution (AVX-512 only in oneDNN 2.6) on the same layouts as the
/// direct one `pd`, with the same post-ops; nullopt where it has none for this layer.
std::optional<dnnl::convolution_forward::primitive_desc> onednnWinograd(const ConvGeometry& g, const ConvDescs& d,
                                                                        const dnnl::primitive_attr& attr,
                                                                        const dnnl::convolution_forward::primitive_desc& pd) {
    if (g.src.size() != 4 || g.group != 1 || !d.blocked) return std::nullopt;
    try {
        const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd,
                                                   pd.src_desc(), d.weights, d.bias, pd.dst_desc(), g.strides, g.dilates,
                                                   g.padL, g.padR);
        dnnl::convolution_forward::primitive_desc wino(desc, attr, engine());
        if (wino.src_desc() != pd.src_desc() || wino.dst_desc() != pd.dst_desc()) return std::nullopt;
        return wino;
    } catch (const dnnl::error&) {
        return std::nullopt;
    }
}

/// Whether the plan measures this layer's algorithms (conv_tuning.h): tuning is on, no algorithm
/// is forced, and weights and bias are constant (the measurement runs on scratch activations).
bool measurable(const NodeDescriptor& info) {
    if (!convTuning() || convAlgorithm() != ConvAlgorithm::Auto) return false;
    if (info.constants.size() < 2 || !info.constants[1]) return false;
    return !info.hasInput(2) || (info.constants.size() > 2 && info.constants[2]);
}

/// The layer as the tuning cache knows it: threads, geometry, layout, post-ops.
std::string layerKey(const ConvGeometry& g, const NodeDescriptor& info, bool blocked, bool residual) {
    const auto list = [](const Dims& dims) {
        std::string text;
        for (size_t i = 0; i < dims.size(); ++i) text += (i ? "x" : "") + std::to_string(dims[i]);
        return text;
    };
    std::string key = "t" + std::to_string(info.threads) + " | conv src " + list(g.src) + " w " + list(g.weights) +
                      " dst " + list(g.dst) + " s " + list(g.strides) + " d " + list(g.dilates) + " p " +
                      list(g.padL) + "," + list(g.padR) + (blocked ? " blocked" : " plain");
    if (const Attribute* a = info.attributes().find("activation"); a && a->holds<std::string>())
        key += " " + a->get<std::string>();
    if (info.hasInput(2)) key += " bias";
    if (residual) key += " sum";
    return key;
}

/// The kernel of the algorithm the plan measured fastest for this layer (or remembered): oneDNN's
/// direct kernel, GraphLens's Winograd or oneDNN's Winograd, each on the same layouts.
std::unique_ptr<PreparedKernel> measuredConv(const ConvGeometry& g, const ConvDescs& d, const dnnl::primitive_attr& attr,
                                             const dnnl::convolution_forward::primitive_desc& pd,
                                             const memory::desc& userWeights, const NodeDescriptor& info, bool residual) {
    const std::optional<WinogradShape> shape = winogradShape(g, pd);
    const bool ownWinograd = shape && WinogradConv::canCompute(*shape, info);
    const auto theirs = onednnWinograd(g, d, attr, pd);
    std::vector<std::string> algorithms{"direct"};
    if (ownWinograd) algorithms.push_back("winograd");
    if (theirs) algorithms.push_back("onednn-winograd");
    const auto build = [&](const std::string& algorithm) -> std::unique_ptr<ConvKernel> {
        if (algorithm == "winograd")
            return std::make_unique<ConvKernel>("onednn:conv", pd, userWeights, info, residual, winogradForm(g, pd, info, true));
        if (algorithm == "onednn-winograd")
            return std::make_unique<ConvKernel>("onednn:conv_winograd_4x3", *theirs, userWeights, info, residual);
        return std::make_unique<ConvKernel>("onednn:conv", pd, userWeights, info, residual);
    };
    if (algorithms.size() == 1) return build("direct");
    const std::string key = layerKey(g, info, d.blocked, residual);
    if (const auto remembered = rememberedConvAlgorithm(key, algorithms)) return build(algorithms[*remembered]);
    std::vector<std::unique_ptr<ConvKernel>> kernels;
    size_t srcBytes = 0, dstBytes = 0;
    for (const std::string& algorithm : algorithms) {
        kernels.push_back(build(algorithm));
        srcBytes = std::max(srcBytes, kernels.back()->sourceBytes());
        dstBytes = std::max(dstBytes, kernels.back()->destinationBytes());
    }
    // Scratch activations of small values (a zero-filled source would let no kernel skip work,
    // but keeps denormals out of the timing).
    std::vector<float> src((srcBytes + sizeof(float) - 1) / sizeof(float), 0.5f), dst((dstBytes + sizeof(float) - 1) / sizeof(float));
    std::vector<ConvCandidate> candidates;
    for (size_t i = 0; i < kernels.size(); ++i)
        candidates.push_back({algorithms[i], [&, i] { kernels[i]->computeOn(src.data(), dst.data()); }});
    return std::move(kernels[measureConvAlgorithm(key, candidates)]);
}

/// A Conv or FusedConv; with `variant`, its blocked form for chains of blocked kernels (see
/// prepareBlockedVariant), nullptr unless that differs from the form it takes alone.
std::unique_ptr<PreparedKernel> makeConv(const NodeDescriptor& info, bool variant) {
    if (info.inputDims.size() < 2 || info.inputDims.size() > 4) return nullptr;
    const bool fused = info.node.opType == "FusedConv";
    const bool residual = info.hasInput(3);
    if (residual && !fused) return nullptr;
    if (!info.hasInput(1) || !convInputsOk(info, info.inputDims[1].empty() ? 0 : info.inputDims[1][0])) return nullptr;
    const auto& xd = info.inputDims[0];
    const auto& wd = info.inputDims[1];
    nn::ConvShapes shapes;
    try {
        shapes = nn::convShapes(info.attributes(), xd, wd);
    } catch (const std::exception&) {
        return nullptr;
    }
    if (nn::convOutputDims(shapes) != info.outputDims[0]) return nullptr;
    if (residual && info.inputDims[3] != info.outputDims[0]) return nullptr;
    const nn::WindowGeometry& w = shapes.window;

    ConvGeometry g;
    g.src = toDims(xd);
    g.dst = toDims(info.outputDims[0]);
    g.inChannels = shapes.inChannels;
    g.outChannels = shapes.outChannels;
    g.group = shapes.group;
    g.activation = hasActivation(info.attributes());
    g.weights = toDims(wd);
    if (g.group > 1) {
        g.weights[0] /= g.group;
        g.weights.insert(g.weights.begin(), g.group);
    }
    for (size_t i = 0; i < w.inSizes.size(); ++i) {
        g.strides.push_back(w.strides[i]);
        g.dilates.push_back(w.dilations[i] - 1);
        g.padL.push_back(w.padsBegin[i]);
        g.padR.push_back(w.padsEnd[i]);
    }
    bool ok = true;
    const dnnl::primitive_attr attr = postOpsAttr(info, residual, ok);
    if (!ok) return nullptr;
    try {
        const std::optional<ConvDescs> d = convDescs(g, info, variant);
        if (!d) return nullptr;
        ThreadScope threads(info.threads);
        const auto pd = convPrimitive<dnnl::convolution_forward>(dnnl::algorithm::convolution_direct, g, *d, attr);
        const memory::desc userWeights = plainDesc(std::vector<int64_t>(g.weights.begin(), g.weights.end()));
        if (measurable(info)) return measuredConv(g, *d, attr, pd, userWeights, info, residual);
        return std::make_unique<ConvKernel>("onednn:conv", pd, userWeights, info, residual, winogradForm(g, pd, info));
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

/// A deconvolution without its bias, which ConvKernel then adds itself: oneDNN adds a
/// deconvolution's bias in a separate, unvectorized pass over the output (PP-OCRv4's detection
/// head, 24 channels at 320x320: 15 ms with the bias, 3 ms without; as a binary post-op, 340).
/// Nullopt without a bias, with an activation (which must follow the bias), or where the
/// primitive would not compute on the layouts asked for (ConvKernel adds to plain or
/// channel-blocked outputs only).
std::optional<dnnl::deconvolution_forward::primitive_desc> deconvolutionWithoutBias(const ConvGeometry& g, ConvDescs d,
                                                                                   const NodeDescriptor& info) {
    if (!info.hasInput(2) || g.activation) return std::nullopt;
    const memory::desc wanted = d.dst;
    d.bias = memory::desc();
    auto pd = convPrimitive<dnnl::deconvolution_forward>(dnnl::algorithm::deconvolution_direct, g, d, dnnl::primitive_attr());
    if (pd.dst_desc() != wanted) return std::nullopt;
    return pd;
}

/// A ConvTranspose; `variant` as for makeConv.
std::unique_ptr<PreparedKernel> makeConvTranspose(const NodeDescriptor& info, bool variant) {
    if (info.inputDims.size() < 2 || info.inputDims.size() > 3 || !info.hasInput(1)) return nullptr;
    const Attributes& a = info.attributes();
    const int64_t group = a.getInt("group", 1);
    const auto& xd = info.inputDims[0];
    const auto& wd = info.inputDims[1];
    if (group <= 0 || wd.size() < 3) return nullptr;
    const int64_t outChannels = wd[1] * group;
    if (!convInputsOk(info, outChannels)) return nullptr;
    if (wd[0] != xd[1] || xd[1] % group != 0) return nullptr;
    const size_t rank = xd.size() - 2;
    const std::vector<int64_t> kernel(wd.begin() + 2, wd.end());
    if (a.has("kernel_shape") && a.getInts("kernel_shape") != kernel) return nullptr;
    std::vector<int64_t> strides, dilations, pads, outputPadding, outputShape = a.getInts("output_shape");
    try {
        strides = nn::attributeInts(a, "strides", rank, 1);
        dilations = nn::attributeInts(a, "dilations", rank, 1);
        pads = nn::attributeInts(a, "pads", 2 * rank, 0);
        outputPadding = nn::attributeInts(a, "output_padding", rank, 0);
    } catch (const std::exception&) {
        return nullptr;
    }
    if (!outputShape.empty() && outputShape.size() < rank) return nullptr;
    if (!outputShape.empty()) outputShape.erase(outputShape.begin(), outputShape.end() - int64_t(rank));
    const std::string autoPad = a.getString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER") return nullptr;

    ConvGeometry g;
    g.src = toDims(xd);
    g.dst = toDims(info.outputDims[0]);
    g.inChannels = xd[1];
    g.outChannels = outChannels;
    g.group = group;
    g.activation = hasActivation(info.attributes());
    std::vector<int64_t> outDims{xd[0], outChannels};
    for (size_t i = 0; i < rank; ++i) {  // as the reference's transposedGeometry
        if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0) return nullptr;
        const int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
        const int64_t full = strides[i] * (xd[i + 2] - 1) + outputPadding[i] + extent;
        int64_t begin = 0, out = 0;
        if (outputShape.empty() && autoPad.rfind("SAME", 0) != 0) {
            begin = autoPad == "VALID" ? 0 : pads[i];
            const int64_t end = autoPad == "VALID" ? 0 : pads[i + rank];
            out = full - begin - end;
        } else {
            out = outputShape.empty() ? xd[i + 2] * strides[i] : outputShape[i];
            const int64_t total = full - out;
            const int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
            begin = autoPad == "SAME_UPPER" ? half : total - half;
        }
        // oneDNN's right padding gives the output size; output_padding beyond the pads makes it
        // negative, which oneDNN takes (tested) as long as it stays within one stride.
        const int64_t right = (xd[i + 2] - 1) * strides[i] + extent - begin - out;
        if (begin < 0 || right < -(strides[i] - 1)) return nullptr;
        outDims.push_back(out);
        g.strides.push_back(strides[i]);
        g.dilates.push_back(dilations[i] - 1);
        g.padL.push_back(begin);
        g.padR.push_back(right);
    }
    if (outDims != info.outputDims[0]) return nullptr;

    // ONNX W is (C, M/group, k...); oneDNN wants (M, C, k...) or (group, M/group, C/group, k...).
    const int64_t groupIn = xd[1] / group, groupOut = wd[1];
    const int64_t plane = elementCount(kernel);
    Dims spatialStrides = plainStrides(toDims(kernel));
    Dims userDims, userStrides;
    if (group > 1) {
        userDims = {group, groupOut, groupIn};
        userStrides = {groupIn * groupOut * plane, plane, groupOut * plane};
    } else {
        userDims = {groupOut, groupIn};
        userStrides = {plane, groupOut * plane};
    }
    userDims.insert(userDims.end(), kernel.begin(), kernel.end());
    userStrides.insert(userStrides.end(), spatialStrides.begin(), spatialStrides.end());
    g.weights = userDims;
    try {
        const std::optional<ConvDescs> d = convDescs(g, info, variant);
        if (!d) return nullptr;
        ThreadScope threads(info.threads);
        const memory::desc userWeights(userDims, dt::f32, userStrides);
        if (auto pd = deconvolutionWithoutBias(g, *d, info))
            return std::make_unique<ConvKernel>("onednn:conv_transpose", *pd, userWeights, info, false);
        bool ok = true;
        const dnnl::primitive_attr attr = postOpsAttr(info, false, ok);
        if (!ok) return nullptr;
        const auto pd = convPrimitive<dnnl::deconvolution_forward>(dnnl::algorithm::deconvolution_direct, g, *d, attr);
        return std::make_unique<ConvKernel>("onednn:conv_transpose", pd, userWeights, info, false);
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

std::unique_ptr<PreparedKernel> prepareConv(const NodeDescriptor& info) { return makeConv(info, false); }
std::unique_ptr<PreparedKernel> prepareConvTranspose(const NodeDescriptor& info) { return makeConvTranspose(info, false); }

} // namespace

std::unique_ptr<PreparedKernel> prepareBlockedConv(const NodeDescriptor& info) {
    return info.node.opType == "ConvTranspose" ? makeConvTranspose(info, true) : makeConv(info, true);
}

void registerConvKernels(CpuKernelRegistry& registry) {
    registry.add("Conv", prepareConv);
    registry.add("FusedConv", prepareConv, "com.microsoft");
    registry.add("ConvTranspose", prepareConvTranspose);
}

} // namespace graphlens::onednn
