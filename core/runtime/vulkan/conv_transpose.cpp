// ConvTranspose on the GPU (conv_transpose.comp): 1-D, 2-D and 3-D, groups, strides, dilations,
// explicit pads, auto_pad, output_padding and output_shape, with the bias; an output element
// gathers the taps that scatter onto it, so no scratch and no atomics. The geometry follows the
// reference's transposedGeometry (core/runtime/reference/neural_net_conv.cpp).
#include "core/runtime/vulkan/ops.h"

namespace graphlens::vk {
namespace {

/// Pads before each spatial dim, as the reference computes them; nullopt (with the reason given)
/// where the attributes do not give the inferred output sizes.
std::optional<std::vector<int64_t>> padsBefore(const Attributes& a, const std::vector<int64_t>& in,
                                               const std::vector<int64_t>& kernel, const std::vector<int64_t>& out,
                                               std::string& why) {
    auto no = [&why](std::string reason) {
        why = std::move(reason);
        return std::nullopt;
    };
    const size_t rank = in.size();
    auto ints = [&](const char* name, size_t count, int64_t fallback) {
        return a.getInts(name, std::vector<int64_t>(count, fallback));
    };
    const auto strides = ints("strides", rank, 1), dilations = ints("dilations", rank, 1);
    const auto pads = ints("pads", 2 * rank, 0), outputPadding = ints("output_padding", rank, 0);
    if (strides.size() != rank || dilations.size() != rank || pads.size() != 2 * rank || outputPadding.size() != rank)
        return no("its strides, dilations, pads or output_padding do not fit its rank");
    std::vector<int64_t> outputShape = a.getInts("output_shape");
    if (!outputShape.empty() && outputShape.size() < rank) return no("its output_shape has too few values");
    if (!outputShape.empty()) outputShape.erase(outputShape.begin(), outputShape.end() - int64_t(rank));
    const std::string autoPad = a.getString("auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
        return no("auto_pad '" + autoPad + "' is unknown");
    std::vector<int64_t> begin(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t full = strides[i] * (in[i] - 1) + outputPadding[i] + (kernel[i] - 1) * dilations[i] + 1;
        int64_t size = 0;
        if (outputShape.empty() && autoPad.rfind("SAME", 0) != 0) {
            begin[i] = autoPad == "VALID" ? 0 : pads[i];
            size = full - begin[i] - (autoPad == "VALID" ? 0 : pads[i + rank]);
        } else {
            size = outputShape.empty() ? in[i] * strides[i] : outputShape[i];
            const int64_t total = full - size;
            const int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
            begin[i] = autoPad == "SAME_UPPER" ? half : total - half;
        }
        if (size != out[i]) return no("its attributes do not give the inferred output shape");
    }
    return begin;
}

std::optional<NodeProgram> convTranspose(const NodeShapes& s) {
    if (!s.floatInput(0) || !s.floatInput(1) || s.outputTypes.at(0) != DType::Float || (s.hasInput(2) && !s.floatInput(2)))
        return declineBecause("conv_transpose.comp takes float tensors");
    const auto& x = s.inputDims[0];
    const auto& w = s.inputDims[1];
    const auto& y = s.outputDims[0];
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size() || y.size() != x.size())
        return declineBecause("conv_transpose.comp takes 1-D, 2-D and 3-D convolutions");
    const Attributes& a = s.attributes();
    const int64_t groups = a.getInt("group", 1);
    if (groups < 1 || x[1] % groups || w[0] != x[1] || w[1] * groups != y[1])
        return declineBecause("its weights do not fit its input and groups");
    if (s.hasInput(2) && numel(s.inputDims[2]) != y[1]) return declineBecause("its bias does not have one value per output channel");
    const std::vector<int64_t> in(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end()), out(y.begin() + 2, y.end());
    std::string why;
    const auto begin = padsBefore(a, in, kernel, out, why);
    if (!begin) return declineBecause(why);
    const size_t rank = in.size();
    auto spatial = [&](const std::vector<int64_t>& v, int64_t fallback) {  // as D, H, W
        std::vector<int64_t> r(3 - rank, fallback);
        r.insert(r.end(), v.begin(), v.end());
        return r;
    };
    const auto strides = a.getInts("strides", std::vector<int64_t>(rank, 1));
    const auto dilations = a.getInts("dilations", std::vector<int64_t>(rank, 1));
    const auto i3 = spatial(in, 1), o3 = spatial(out, 1), k3 = spatial(kernel, 1);
    const auto s3 = spatial(strides, 1), p3 = spatial(*begin, 0), d3 = spatial(dilations, 1);
    for (size_t i = 0; i < 3; ++i)
        if (s3[i] < 1 || d3[i] < 1) return declineBecause("its strides and dilations must be positive");
    const auto act = activationCode("", {});
    // On CPU devices with constant weights: 4 output channels per invocation, weights packed as
    // texels [G][taps][C/G][blocks of 4 output channels].
    const int64_t perGroup = y[1] / groups, inPerGroup = x[1] / groups, taps = numel(kernel);
    const int64_t blocks4 = (perGroup + 3) / 4;
    const bool packed = s.device.texelLoads && s.constants[1] &&
                        uint64_t(groups * taps * inPerGroup * blocks4) <= s.device.maxTexels;
    const int64_t blocks = packed ? blocks4 : perGroup;
    Constants c;
    c.i(x[0]).i(x[1]).i(i3[0]).i(i3[1]).i(i3[2]).i(y[1]).i(o3[0]).i(o3[1]).i(o3[2]);
    c.i(k3[0]).i(k3[1]).i(k3[2]).i(s3[0]).i(s3[1]).i(s3[2]).i(p3[0]).i(p3[1]).i(p3[2]).i(d3[0]).i(d3[1]).i(d3[2]);
    c.i(groups).i(s.hasInput(2)).i(act->op).f(act->alpha).f(act->beta).i(s.device.texelLoads).i(packed);
    const int64_t invocations = x[0] * groups * blocks * o3[0] * s3[1] * ((o3[1] + s3[1] - 1) / s3[1]) * s3[2] *
                                ((o3[2] + s3[2] - 1) / s3[2]);
    Dispatch d{"conv_transpose", c.take(),
               {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1),
                s.hasInput(2) ? TensorRef::input(2) : TensorRef::none()},
               flatGroups(uint64_t(invocations), 64)};
    NodeProgram program{"vulkan:conv-transpose", {}};
    if (packed) {
        Tensor w = Tensor::allocate(DType::Float, {groups * taps * inPerGroup * blocks4 * 4});
        float* out = w.mutableSpan<float>().data();
        const float* in = s.constants[1]->span<float>().data();  // [C][M / G][taps]
        for (int64_t g = 0; g < groups; ++g)
            for (int64_t t = 0; t < taps; ++t)
                for (int64_t ci = 0; ci < inPerGroup; ++ci)
                    for (int64_t mg = 0; mg < perGroup; ++mg)
                        out[(((g * taps + t) * inPerGroup + ci) * blocks4 + mg / 4) * 4 + mg % 4] =
                            in[((g * inPerGroup + ci) * perGroup + mg) * taps + t];
        program.packed.push_back(std::move(w));
        d.bindings[2] = TensorRef::none();
        d.texels = {TensorRef::input(0), TensorRef::packed(0)};
    } else if (s.device.texelLoads) {
        d.texels = {TensorRef::input(0), TensorRef::input(1)};
    }
    program.dispatches.push_back(std::move(d));
    return program;
}

} // namespace

void registerConvTransposeOps(VulkanOpRegistry& registry) { registry.add("ConvTranspose", convTranspose); }

} // namespace graphlens::vk
