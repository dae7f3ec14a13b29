// Resize and Upsample on the GPU (resize.comp): the reference's plan (resize_plan.h) computed at
// plan time from the constant roi, scales and sizes, uploaded as a table of per-axis taps, so the
// shader follows the reference in every mode, rounding and coordinate transformation. Declines,
// with the reason, run-time scales or sizes, antialias, non-float data and more than 6 dims.
#include "core/runtime/kernel.h"
#include "core/runtime/reference/resize_plan.h"
#include "core/runtime/vulkan/ops.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> resizeProgram(const NodeShapes& s, const nn::ResizePlan& plan) {
    const auto& x = s.inputDims[0];
    if (plan.outDims != s.outputDims[0]) return decline("the plan's output shape differs from the inferred one");
    if (x.size() > 6) return decline("resize.comp handles up to 6 dims");
    size_t taps = 1;
    for (const nn::ResizeAxis& axis : plan.axes)
        for (const auto& t : axis.taps) taps = std::max(taps, t.size());
    const size_t record = 1 + 2 * taps;
    std::vector<int64_t> outs, ins, offsets;
    std::vector<float> table;
    auto addAxis = [&](int64_t in, int64_t out, const nn::ResizeAxis* axis) {
        outs.push_back(out);
        ins.push_back(in);
        offsets.push_back(int64_t(table.size()));
        for (int64_t o = 0; o < out; ++o) {
            const size_t at = table.size();
            table.resize(at + record, 0.0f);
            if (!axis) {  // an axis added in front: one tap of weight 1
                table[at] = 1, table[at + 1] = 0, table[at + 2] = 1;
                continue;
            }
            if (axis->outside[size_t(o)]) {
                table[at] = -1;
                continue;
            }
            const auto& t = axis->taps[size_t(o)];
            table[at] = float(t.size());
            for (size_t k = 0; k < t.size(); ++k) {
                table[at + 1 + 2 * k] = float(t[k].first);
                table[at + 2 + 2 * k] = float(t[k].second);
            }
        }
    };
    for (size_t d = x.size(); d < 6; ++d) addAxis(1, 1, nullptr);
    for (size_t d = 0; d < x.size(); ++d) addAxis(x[d], plan.outDims[d], &plan.axes[d]);
    if (numel(x) >= (int64_t(1) << 24)) return decline("its input indices pass float's exact integers");
    const int64_t count = numel(plan.outDims);
    Constants c;
    c.i(count);
    for (int64_t v : outs) c.i(v);
    for (int64_t v : ins) c.i(v);
    for (int64_t v : offsets) c.i(v);
    c.i(int64_t(record)).f(float(plan.extrapolation)).i(s.device.texelLoads);
    Dispatch d{"resize", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::packed(0)},
               flatGroups(uint64_t(count), 64)};
    if (s.device.texelLoads) d.texels = {TensorRef::input(0)};
    const auto size = int64_t(table.size());
    return NodeProgram{"vulkan:resize", {d}, false, false, {Tensor::floats({size}, table)}};
}

/// The node's inputs as the plan takes them: constants, or empty tensors for empty run-time
/// inputs; nullopt (with the reason given) when one the plan reads is computed at run time.
std::optional<std::vector<const Tensor*>> constantInputs(const NodeShapes& s, std::vector<Tensor>& empties) {
    std::vector<const Tensor*> inputs(s.inputTypes.size(), nullptr);
    empties.reserve(inputs.size());
    for (size_t i = 1; i < inputs.size(); ++i) {
        if (!s.hasInput(i)) continue;
        if (s.constants[i]) {
            inputs[i] = s.constants[i];
        } else if (numel(s.inputDims[i]) == 0) {
            empties.push_back(Tensor::allocate(s.inputTypes[i], s.inputDims[i]));
            inputs[i] = &empties.back();
        } else {
            const char* names[] = {"X", "roi", "scales", "sizes"};
            const bool old = s.node.opType == "Upsample" || s.opset < 11;
            return decline(std::string("its ") + (old ? "scales" : i < 4 ? names[i] : "inputs") + " input is computed at run time");
        }
    }
    return inputs;
}

std::optional<NodeProgram> resize(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float)
        return decline("resize.comp interpolates float tensors, not " + std::string(dtypeName(s.inputTypes.at(0))));
    std::vector<Tensor> empties;
    const auto inputs = constantInputs(s, empties);
    if (!inputs) return std::nullopt;
    try {
        const bool upsample = s.node.opType == "Upsample";
        const nn::ResizePlan plan = upsample ? nn::planUpsample(s.attributes(), s.inputDims[0], *inputs)
                                             : nn::planResize(s.attributes(), s.opset, s.inputDims[0], *inputs);
        return resizeProgram(s, plan);
    } catch (const KernelError& e) {
        return decline(e.what());
    }
}

} // namespace

void registerResizeOps(VulkanOpRegistry& registry) {
    registry.add("Resize", resize);
    registry.add("Upsample", resize);
}

} // namespace graphlens::vk
