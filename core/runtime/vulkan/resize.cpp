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

/// True when `axis` leaves its coordinates alone: output o reads input o with weight 1.
bool untouched(const nn::ResizeAxis& axis, int64_t in, int64_t out) {
    if (in != out) return false;
    for (int64_t o = 0; o < out; ++o) {
        const auto& t = axis.taps[size_t(o)];
        if (axis.outside[size_t(o)] || t.size() != 1 || t[0].first != o || t[0].second != 1.0) return false;
    }
    return true;
}

std::optional<NodeProgram> resizeProgram(const NodeShapes& s, const nn::ResizePlan& plan) {
    const auto& x = s.inputDims[0];
    if (plan.outDims != s.outputDims[0]) return declineBecause("the plan's output shape differs from the inferred one");
    if (numel(x) >= (int64_t(1) << 24)) return declineBecause("its input indices pass float's exact integers");
    // Axes as the shader walks them: runs of untouched axes merged into one (taps 0: no table).
    struct Axis {
        int64_t in = 1, out = 1, taps = 0;
        const nn::ResizeAxis* plan = nullptr;
    };
    std::vector<Axis> axes;
    size_t most = 1;
    for (size_t d = 0; d < x.size(); ++d) {
        if (untouched(plan.axes[d], x[d], plan.outDims[d])) {
            if (!axes.empty() && axes.back().taps == 0) {
                axes.back().in *= x[d];
                axes.back().out *= x[d];
            } else {
                axes.push_back({x[d], x[d], 0, nullptr});
            }
            continue;
        }
        size_t taps = 1;
        for (const auto& t : plan.axes[d].taps) taps = std::max(taps, t.size());
        most = std::max(most, taps);
        axes.push_back({x[d], plan.outDims[d], int64_t(taps), &plan.axes[d]});
    }
    if (axes.size() > 6) return declineBecause("resize.comp handles up to 6 separately resized dims");
    while (axes.size() < 6) axes.insert(axes.begin(), Axis{});
    const size_t record = 1 + 2 * most;
    std::vector<float> table;
    std::vector<int64_t> offsets;
    for (const Axis& a : axes) {
        offsets.push_back(int64_t(table.size()));
        if (!a.plan) continue;
        for (int64_t o = 0; o < a.out; ++o) {
            const size_t at = table.size();
            table.resize(at + record, 0.0f);
            if (a.plan->outside[size_t(o)]) {
                table[at] = -1;
                continue;
            }
            const auto& t = a.plan->taps[size_t(o)];
            table[at] = float(t.size());
            for (size_t k = 0; k < t.size(); ++k) {
                table[at + 1 + 2 * k] = float(t[k].first);
                table[at + 2 + 2 * k] = float(t[k].second);
            }
        }
    }
    if (table.empty()) table.push_back(0.0f);  // nothing resized: still a buffer to bind
    const int64_t count = numel(plan.outDims);
    Constants c;
    c.i(count);
    for (const Axis& a : axes) c.i(a.out);
    for (const Axis& a : axes) c.i(a.in);
    for (int64_t v : offsets) c.i(v);
    for (const Axis& a : axes) c.i(a.taps);
    c.i(int64_t(record)).f(float(plan.extrapolation)).i(s.device.texelLoads);
    Dispatch d{"resize", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::packed(0)},
               flatGroups(uint64_t(count), 64)};
    if (s.device.texelLoads) d.texels = {TensorRef::input(0), TensorRef::packed(0)};
    const auto size = int64_t(table.size());
    return NodeProgram{"vulkan:resize", {d}, false, false, {Tensor::floats({size}, table)}};
}

/// The sizes a run-time sizes input must hold: the output dims the plan knows, over the node's
/// axes (without keep_aspect_ratio_policy, which rounds them from a common scale).
std::optional<Tensor> sizesFromOutput(const NodeShapes& s) {
    if (s.attributes().getString("keep_aspect_ratio_policy", "stretch") != "stretch") return std::nullopt;
    const auto rank = int64_t(s.outputDims[0].size());
    std::vector<int64_t> axes = s.attributes().getInts("axes");
    if (axes.empty())
        for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    std::vector<int64_t> sizes;
    for (int64_t axis : axes) {
        if (axis < -rank || axis >= rank) return std::nullopt;
        sizes.push_back(s.outputDims[0][size_t(axis < 0 ? axis + rank : axis)]);
    }
    if (numel(s.inputDims[3]) != int64_t(sizes.size())) return std::nullopt;
    return Tensor::int64s({int64_t(sizes.size())}, sizes);
}

/// The node's inputs as the plan takes them: constants, or empty tensors for empty run-time
/// inputs, or for run-time sizes the output dims; nullopt (with the reason given) when another
/// input the plan reads is computed at run time.
std::optional<std::vector<const Tensor*>> constantInputs(const NodeShapes& s, std::vector<Tensor>& empties,
                                                         std::string& why) {
    std::vector<const Tensor*> inputs(s.inputTypes.size(), nullptr);
    empties.reserve(inputs.size());
    for (size_t i = 1; i < inputs.size(); ++i) {
        if (!s.hasInput(i)) continue;
        if (s.constants[i]) {
            inputs[i] = s.constants[i];
        } else if (numel(s.inputDims[i]) == 0) {
            empties.push_back(Tensor::allocate(s.inputTypes[i], s.inputDims[i]));
            inputs[i] = &empties.back();
        } else if (auto sizes = i == 3 && s.node.opType == "Resize" && s.opset >= 11 ? sizesFromOutput(s) : std::nullopt) {
            empties.push_back(std::move(*sizes));
            inputs[i] = &empties.back();
        } else {
            const char* names[] = {"X", "roi", "scales", "sizes"};
            const bool old = s.node.opType == "Upsample" || s.opset < 11;
            why = std::string("its ") + (old ? "scales" : i < 4 ? names[i] : "inputs") + " input is computed at run time";
            return std::nullopt;
        }
    }
    return inputs;
}

std::optional<NodeProgram> resize(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float)
        return declineBecause("resize.comp interpolates float tensors, not " + std::string(dtypeName(s.inputTypes.at(0))));
    std::vector<Tensor> empties;
    std::string why;
    const auto inputs = constantInputs(s, empties, why);
    if (!inputs) return declineBecause(why);
    try {
        const bool upsample = s.node.opType == "Upsample";
        const nn::ResizePlan plan = upsample ? nn::planUpsample(s.attributes(), s.inputDims[0], *inputs)
                                             : nn::planResize(s.attributes(), s.opset, s.inputDims[0], *inputs);
        return resizeProgram(s, plan);
    } catch (const KernelError& e) {
        return declineBecause(e.what());
    }
}

} // namespace

void registerResizeOps(VulkanOpRegistry& registry) {
    registry.add("Resize", resize);
    registry.add("Upsample", resize);
}

} // namespace graphlens::vk
