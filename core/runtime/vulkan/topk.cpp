// TopK on the GPU (topk.comp): the K largest or smallest elements along an axis, sorted, with
// their int64 indices; ties in index order and NaN beyond every number, as the reference kernel.
// K comes from a constant input (or the attribute before opset 10). Each element counts the
// elements of its line ahead of it, so a line costs N^2 comparisons: lines past 16384 elements
// run on the CPU.
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> topK(const NodeShapes& s) {
    if (!s.hasInput(0) || !s.hasOutput(0)) return std::nullopt;
    const DType t = s.inputTypes[0];
    if ((t != DType::Float && t != DType::Int32 && t != DType::Int64) || s.outputTypes[0] != t) return std::nullopt;
    if (s.hasOutput(1) && s.outputTypes[1] != DType::Int64) return std::nullopt;
    const Attributes& a = s.attributes();
    int64_t k = -1;
    if (s.opset >= 10) {
        if (!s.hasInput(1)) return std::nullopt;
        if (!s.constants[1]) return declineBecause("TopK's k is known only at run time: it runs on the CPU");
        const auto values = s.constants[1]->toDoubles();
        if (values.size() != 1) return std::nullopt;
        k = int64_t(values[0]);
    } else {
        k = a.getInt("k", -1);
    }
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    int64_t axis = a.getInt("axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    int64_t outer = 1, n = x[size_t(axis)], inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x[size_t(i)];
    for (int64_t i = axis + 1; i < rank; ++i) inner *= x[size_t(i)];
    if (k <= 0 || k > n || n > 16384) return std::nullopt;
    const int64_t count = outer * n * inner;
    Constants c;
    c.i(outer).i(n).i(inner).i(k).i(elementCode(t)).i(a.getInt("largest", 1) != 0).i(s.hasOutput(1));
    Dispatch d{"topk", c.take(), {TensorRef::output(0), s.hasOutput(1) ? TensorRef::output(1) : TensorRef::none(), TensorRef::input(0)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:topk", {d}};
}

} // namespace

void registerTopKOps(VulkanOpRegistry& registry) { registry.add("TopK", topK); }

} // namespace graphlens::vk
