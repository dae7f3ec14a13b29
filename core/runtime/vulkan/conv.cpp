// Conv and com.microsoft FusedConv (bias + residual Z + activation in the same dispatch) on the GPU:
// an implicit GEMM tiled through shared memory (conv.comp) for most layers, a direct kernel
// (conv_direct.comp) for depthwise and other narrow groups, and on CPU devices a register-blocked
// kernel without shared memory (conv_rows.comp). 1-D convolutions run as H = 1.
#include "core/runtime/vulkan/ops.h"

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

std::optional<NodeProgram> conv(const NodeShapes& s) {
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

    // 1-D convolutions: a leading spatial dim of 1.
    const int64_t n = x[0], c = x[1], h = spatial == 1 ? 1 : x[2], wd = x.back();
    const int64_t oh = spatial == 1 ? 1 : y[2], ow = spatial == 1 ? y[2] : y[3];
    const int64_t kh = spatial == 1 ? 1 : kernel[0], kw = kernel.back();
    const int64_t sh = spatial == 1 ? 1 : strides[0], sw = strides.back();
    const int64_t ph = spatial == 1 ? 0 : (*pads)[0], pw = pads->back();
    const int64_t dh = spatial == 1 ? 1 : dilations[0], dw = dilations.back();
    const int64_t oc = y[1];
    Constants k;
    k.i(n).i(c).i(h).i(wd).i(oc).i(oh).i(ow).i(kh).i(kw).i(sh).i(sw).i(ph).i(pw).i(dh).i(dw).i(groups);
    k.i(act->op).f(act->alpha).f(act->beta).i(s.hasInput(2)).i(s.hasInput(3));
    const std::vector<TensorRef> bindings{TensorRef::output(0), TensorRef::input(0), TensorRef::input(1),
                                          s.hasInput(2) ? TensorRef::input(2) : TensorRef::none(),
                                          s.hasInput(3) ? TensorRef::input(3) : TensorRef::none()};
    const int64_t perGroup = oc / groups, columns = n * oh * ow;
    const uint64_t tilesN = uint64_t((columns + 63) / 64);
    if (perGroup < 16 || tilesN > 65535 || groups > 65535)
        return NodeProgram{"vulkan:conv-direct", {{"conv_direct", k.take(), bindings, flatGroups(uint64_t(numel(y)), 64)}}};
    if (s.preferRows && (perGroup + 15) / 16 <= 65535)
        return NodeProgram{"vulkan:conv-rows", {{"conv_rows", k.take(), bindings,
                                                 {uint32_t(tilesN), uint32_t((perGroup + 15) / 16), uint32_t(groups)}}}};
    const std::array<uint32_t, 3> tiles{uint32_t(tilesN), uint32_t((perGroup + 63) / 64), uint32_t(groups)};
    return NodeProgram{"vulkan:conv-gemm", {{"conv", k.take(), bindings, tiles}}};
}

} // namespace

void registerConvOps(VulkanOpRegistry& registry) {
    registry.add("Conv", conv);
    registry.add("FusedConv", conv, "com.microsoft");
}

} // namespace graphlens::vk
