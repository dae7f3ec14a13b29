// Conv and com.microsoft FusedConv (bias + residual Z + activation in the same dispatch) on the GPU:
// an implicit GEMM tiled through shared memory (conv.comp) on GPUs, the texel-fed implicit GEMM of
// texel_gemm.h on CPU devices (the input packed by conv_pack.comp, the weights at plan time; 3x3
// stride-1 layers as Winograd F(4x4, 3x3), conv_winograd.cpp; 1x1 stride-1 layers straight from the
// NCHW input, conv_pointwise.comp), on CPU devices a depthwise kernel
// reading texels along rows (conv_depthwise.comp), and a direct kernel (conv_direct.comp) for the
// other narrow groups. 1-D convolutions run as H = 1.
#include "core/runtime/vulkan/conv.h"
#include "core/runtime/vulkan/texel_gemm.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

/// Pads before each spatial dim (the ends follow from the output size the plan already knows).
std::optional<std::vector<int64_t>> beginPads(const NodeShapes& s, const std::vector<int64_t>& in,
                                              const std::vector<int64_t>& out, const std::vector<int64_t>& kernel,
                                              const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations) {
    const size_t n = kernel.size();
    const std::string autoPad = s.attributes().getString("auto_pad", "NOTSET");
    std::vector<int64_t> pads(n, 0);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        for (size_t i = 0; i < n; ++i) {
            const int64_t total = std::max<int64_t>(0, (out[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in[i]);
            pads[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        }
    } else if (autoPad == "NOTSET") {
        const std::vector<int64_t> given = s.attributes().getInts("pads", std::vector<int64_t>(2 * n, 0));
        if (given.size() != 2 * n) return std::nullopt;
        std::copy(given.begin(), given.begin() + int64_t(n), pads.begin());
    } else if (autoPad != "VALID") {
        return std::nullopt;
    }
    return pads;
}

std::optional<ConvShape> convShape(const NodeShapes& s) {
    const bool fused = s.node.opType == "FusedConv";
    if (!s.floatInput(0) || !s.floatInput(1) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    if ((s.hasInput(2) && !s.floatInput(2)) || (s.hasInput(3) && (!fused || s.inputDims[3] != s.outputDims[0])))
        return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& w = s.inputDims[1];
    const auto& y = s.outputDims[0];
    if ((x.size() != 3 && x.size() != 4) || w.size() != x.size() || y.size() != x.size()) return std::nullopt;
    const size_t spatial = x.size() - 2;
    const Attributes& a = s.attributes();
    const int64_t groups = a.getInt("group", 1);
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    const auto strides = a.getInts("strides", std::vector<int64_t>(spatial, 1));
    const auto dilations = a.getInts("dilations", std::vector<int64_t>(spatial, 1));
    if (groups < 1 || x[1] % groups || w[0] % groups || w[1] * groups != x[1] || strides.size() != spatial ||
        dilations.size() != spatial || (s.hasInput(2) && numel(s.inputDims[2]) != w[0]))
        return std::nullopt;
    const auto pads = beginPads(s, {x.begin() + 2, x.end()}, {y.begin() + 2, y.end()}, kernel, strides, dilations);
    if (!pads) return std::nullopt;
    auto params = [&](const Attribute* p) {
        if (p && p->holds<std::vector<float>>()) return p->get<std::vector<float>>();
        return std::vector<float>{};
    };
    const auto act = activationCode(fused ? a.getString("activation") : "", params(a.find("activation_params")));
    if (!act) return std::nullopt;
    const bool is1d = spatial == 1;
    ConvShape c;
    c.n = x[0], c.c = x[1], c.h = is1d ? 1 : x[2], c.w = x.back();
    c.oc = y[1], c.oh = is1d ? 1 : y[2], c.ow = y.back();
    c.kh = is1d ? 1 : kernel[0], c.kw = kernel.back();
    c.sh = is1d ? 1 : strides[0], c.sw = strides.back();
    c.ph = is1d ? 0 : (*pads)[0], c.pw = pads->back();
    c.dh = is1d ? 1 : dilations[0], c.dw = dilations.back();
    c.groups = groups;
    c.bias = s.hasInput(2);
    c.residual = s.hasInput(3);
    c.act = *act;
    return c;
}

std::vector<TensorRef> convBindings(const ConvShape& c) {
    return {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1),
            c.bias ? TensorRef::input(2) : TensorRef::none(), c.residual ? TensorRef::input(3) : TensorRef::none()};
}

/// conv.comp (64x64 tiles through shared memory) or, for depthwise and other narrow groups,
/// conv_direct.comp (one invocation per output).
std::optional<NodeProgram> tiledConv(const ConvShape& c, const DeviceTraits& device) {
    Constants k;
    k.i(c.n).i(c.c).i(c.h).i(c.w).i(c.oc).i(c.oh).i(c.ow).i(c.kh).i(c.kw).i(c.sh).i(c.sw).i(c.ph).i(c.pw).i(c.dh).i(c.dw);
    k.i(c.groups).i(c.act.op).f(c.act.alpha).f(c.act.beta).i(c.bias).i(c.residual);
    const int64_t columns = c.n * c.oh * c.ow;
    const std::array<uint32_t, 3> tiles{uint32_t((columns + 63) / 64), uint32_t((c.perGroup() + 63) / 64), uint32_t(c.groups)};
    if (c.perGroup() >= 16 && device.maxInvocations >= 256 && fitsGroups(device, tiles))
        return NodeProgram{"vulkan:conv-gemm", {{"conv", k.take(), convBindings(c), tiles}}};
    const auto groups = flatGroups(uint64_t(c.n * c.oc * c.oh * c.ow), 64);
    if (!fitsGroups(device, groups)) return std::nullopt;
    k.i(device.texelLoads);
    Dispatch direct{"conv_direct", k.take(), convBindings(c), groups};
    if (device.texelLoads) direct.texels = {TensorRef::input(0), TensorRef::input(1)};
    return NodeProgram{"vulkan:conv-direct", {std::move(direct)}};
}

/// conv_depthwise.comp for convolutions with one input channel per group on CPU devices: 8 outputs
/// of a row per invocation, its input read through a texel view, the weights packed per output
/// channel into (KH * KW + 3) / 4 texels.
std::optional<NodeProgram> depthwiseConv(const ConvShape& c, const Tensor& weights, const DeviceTraits& device) {
    constexpr int64_t q = 8;  // outputs per invocation, Q in the shader
    const int64_t taps = c.kh * c.kw, wt = (taps + 3) / 4;
    if (c.inPerGroup() != 1 || taps > 64) return std::nullopt;
    if (uint64_t(c.oc * wt) > device.maxTexels || uint64_t((c.n * c.c * c.h * c.w + 3) / 4) > device.maxTexels)
        return std::nullopt;
    Tensor packed = Tensor::allocate(DType::Float, {c.oc * wt * 4});
    float* out = packed.mutableSpan<float>().data();
    const float* in = weights.span<float>().data();
    for (int64_t oc = 0; oc < c.oc; ++oc)
        for (int64_t t = 0; t < taps; ++t) out[oc * wt * 4 + t] = in[oc * taps + t];
    Constants k;
    k.i(c.n).i(c.c).i(c.h).i(c.w).i(c.oc).i(c.oh).i(c.ow).i(c.kh).i(c.kw).i(c.sh).i(c.sw).i(c.ph).i(c.pw).i(c.dh).i(c.dw);
    k.i(c.groups).i(c.act.op).f(c.act.alpha).f(c.act.beta).i(c.bias).i(c.residual).i(wt);
    const auto groups = flatGroups(uint64_t(c.n * c.oc * c.oh * ((c.ow + q - 1) / q)), 64);
    if (!fitsGroups(device, groups)) return std::nullopt;
    Dispatch d{"conv_depthwise", k.take(), convBindings(c), groups, {TensorRef::input(0), TensorRef::packed(0)}};
    d.bindings[2] = TensorRef::none();
    NodeProgram program{"vulkan:conv-depthwise", {std::move(d)}};
    program.packed.push_back(std::move(packed));
    return program;
}

/// conv_pointwise.comp for 1x1, stride-1, unpadded, ungrouped convolutions whose planes are whole
/// texels (H * W a multiple of 4) on CPU devices: the input read in place, no packing dispatch.
std::optional<NodeProgram> pointwiseConv(const ConvShape& c, const Tensor& weights, const DeviceTraits& device) {
    const int64_t hw = c.h * c.w;
    if (c.kh != 1 || c.kw != 1 || c.sh != 1 || c.sw != 1 || c.ph != 0 || c.pw != 0 || c.oh != c.h || c.ow != c.w ||
        c.groups != 1 || hw % 4 != 0)
        return std::nullopt;
    const int64_t blocks = (c.oc + kTexelChannels - 1) / kTexelChannels, lanes = c.n * hw / 4;
    if (uint64_t(c.n * c.c * hw / 4) > device.maxTexels || uint64_t(c.n * c.oc * hw / 4) > device.maxTexels ||
        uint64_t(blocks * c.c * 2) > device.maxTexels)
        return std::nullopt;
    Tensor packed = Tensor::allocate(DType::Float, {blocks * c.c * kTexelChannels});
    float* out = packed.mutableSpan<float>().data();
    const float* in = weights.span<float>().data();
    for (int64_t m = 0; m < c.oc; ++m)
        for (int64_t ic = 0; ic < c.c; ++ic)
            out[((m / kTexelChannels) * c.c + ic) * kTexelChannels + m % kTexelChannels] = in[m * c.c + ic];
    const uint32_t local = std::min<uint32_t>(lanes >= 512 ? 64 : lanes >= 128 ? 32 : 16, device.maxInvocations);
    Constants k;
    k.i(local).i(c.n).i(c.c).i(hw).i(c.oc).i(c.bias).i(c.residual).i(c.act.op).f(c.act.alpha).f(c.act.beta);
    const std::array<uint32_t, 3> groups{uint32_t((lanes + local - 1) / local), uint32_t(blocks), 1};
    if (!fitsGroups(device, groups) || uint64_t((lanes + local - 1) / local) > device.maxGroups[0]) return std::nullopt;
    Dispatch d{"conv_pointwise", k.take(), {TensorRef::output(0)}, groups,
               {TensorRef::input(0), TensorRef::packed(0), c.bias ? TensorRef::input(2) : TensorRef::none(),
                c.residual ? TensorRef::input(3) : TensorRef::none()}};
    NodeProgram program{"vulkan:conv-pointwise", {std::move(d)}};
    program.packed.push_back(std::move(packed));
    return program;
}

/// The weights [OC][C/G][KH][KW] as gemm_texel.comp's B side: per group and block of 8 output
/// channels, per texel of 4 input channels and tap, 8 texels (one per output channel).
Tensor packConvWeights(const ConvShape& c, const Tensor& weights, const TexelGemm& g) {
    const int64_t m = c.perGroup(), cg = c.inPerGroup(), taps = c.kh * c.kw;
    Tensor packed = Tensor::allocate(DType::Float, {g.bTexels() * 4});
    float* out = packed.mutableSpan<float>().data();
    const float* in = weights.span<float>().data();
    for (int64_t group = 0; group < c.groups; ++group)
        for (int64_t mb = 0; mb < g.channelBlocks(); ++mb)
            for (int64_t c4 = 0; c4 < g.k4; ++c4)
                for (int64_t tap = 0; tap < taps; ++tap)
                    for (int64_t r = 0; r < kTexelChannels; ++r) {
                        const int64_t oc = mb * kTexelChannels + r;
                        const int64_t step = ((group * g.channelBlocks() + mb) * g.k4 + c4) * taps + tap;
                        float* texel = out + 4 * (step * kTexelChannels + r);
                        for (int64_t j = 0; j < 4; ++j) {
                            const int64_t ic = 4 * c4 + j;
                            if (oc < m && ic < cg) texel[j] = in[((group * m + oc) * cg + ic) * taps + tap];
                        }
                    }
    return packed;
}

/// The texel-fed implicit GEMM (texel_gemm.h): the input packed into a padded copy of 4-channel
/// texels (conv_pack.comp) in scratch, then gemm_texel.comp with the weights packed at plan time.
std::optional<NodeProgram> texelConv(const ConvShape& c, const Tensor& weights, const DeviceTraits& device) {
    const int64_t c4 = (c.inPerGroup() + 3) / 4;
    // A 1x1 kernel reads every sh-th row and sw-th column: only those are packed.
    const bool pointwise = c.kh == 1 && c.kw == 1;
    const int64_t stepH = pointwise ? c.sh : 1, stepW = pointwise ? c.sw : 1;
    const int64_t hp = pointwise ? c.oh : (c.oh - 1) * c.sh + (c.kh - 1) * c.dh + 1;
    const int64_t wp = pointwise ? c.ow : (c.ow - 1) * c.sw + (c.kw - 1) * c.dw + 1;
    TexelGemm g;
    g.k4 = c4, g.kh = c.kh, g.kw = c.kw;
    g.aK = hp * wp, g.aH = c.dh * wp, g.aW = c.dw;
    g.outer = c.n, g.inner = c.oh * c.ow, g.row = c.ow;
    g.aOuter = c.groups * c4 * hp * wp, g.aRow = c.sh / stepH * wp, g.aCol = c.sw / stepW, g.aGroup = c4 * hp * wp;
    g.m = c.perGroup(), g.groups = c.groups;
    g.yOuter = c.oc * c.oh * c.ow, g.yInner = 1, g.yChannel = c.oh * c.ow;
    g.bias = c.bias, g.residual = c.residual, g.act = c.act;
    const int64_t inputTexels = c.n * c.groups * c4 * hp * wp;
    if (uint64_t(inputTexels) > device.maxTexels || !fitsTexels(c, device) || uint64_t(g.bTexels()) > device.maxTexels) return std::nullopt;
    Dispatch pack = convPackDispatch(c, hp, wp, TensorRef::scratch(0), stepH, stepW);
    auto product = texelGemmDispatch(g, TensorRef::scratch(0), TensorRef::packed(0),
                                     c.bias ? TensorRef::input(2) : TensorRef::none(),
                                     c.residual ? TensorRef::input(3) : TensorRef::none(), device);
    if (!product || !fitsGroups(device, pack.groups)) return std::nullopt;
    product->waits = true;
    NodeProgram program{"vulkan:conv-texel", {std::move(pack), std::move(*product)}};
    program.packed.push_back(packConvWeights(c, weights, g));
    program.scratch.push_back(texelBytes(inputTexels));
    return program;
}

std::optional<NodeProgram> conv(const NodeShapes& s) {
    const auto shape = convShape(s);
    if (!shape) return std::nullopt;
    // Texel tiles waste the unused lanes of a 4-channel texel and of an 8-channel block: depthwise
    // and other narrow groups run direct.
    const bool wide = shape->perGroup() >= 4 && shape->inPerGroup() >= 2;
    if (s.device.products == ProductKernels::TexelTiles && wide && s.constants[1]) {
        if (auto program = winogradConv(*shape, *s.constants[1], s.device)) return program;
        if (auto program = pointwiseConv(*shape, *s.constants[1], s.device)) return program;
        if (auto program = texelConv(*shape, *s.constants[1], s.device)) return program;
    }
    if (s.device.texelLoads && s.constants[1])
        if (auto program = depthwiseConv(*shape, *s.constants[1], s.device)) return program;
    return tiledConv(*shape, s.device);
}

} // namespace

bool fitsTexels(const ConvShape& c, const DeviceTraits& device) {
    return uint64_t((c.n * c.c * c.h * c.w + 3) / 4) <= device.maxTexels;
}

Dispatch convPackDispatch(const ConvShape& c, int64_t hp, int64_t wp, TensorRef target, int64_t stepH, int64_t stepW) {
    const int64_t c4 = (c.inPerGroup() + 3) / 4;
    Constants k;
    k.i(c.n).i(c.c).i(c.h).i(c.w).i(c.groups).i(c4).i(hp).i(wp).i(c.ph).i(c.pw).i(stepH).i(stepW);
    return {"conv_pack", k.take(), {target}, flatGroups(uint64_t(c.n * c.groups * c4 * hp * wp), 64), {TensorRef::input(0)}};
}

void registerConvOps(VulkanOpRegistry& registry) {
    registry.add("Conv", conv);
    registry.add("FusedConv", conv, "com.microsoft");
}

} // namespace graphlens::vk
