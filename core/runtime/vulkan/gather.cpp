// Gather and GatherElements on the GPU (gather.comp): element moves of any element type with
// int32 or int64 indices (negative ones count from the end of the axis).
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> gatherProgram(const NodeShapes& s, std::vector<int64_t> dims, std::vector<int64_t> src,
                                         std::vector<int64_t> idx, int64_t axisStride, int64_t axisDim, const char* kernel) {
    if (dims.size() > 6) return std::nullopt;
    while (dims.size() < 6) {
        dims.insert(dims.begin(), 1);
        src.insert(src.begin(), 0);
        idx.insert(idx.begin(), 0);
    }
    const int64_t count = numel(s.outputDims[0]);
    if (count == 0 || axisDim <= 0) return std::nullopt;
    Constants c;
    c.i(count);
    for (int64_t v : dims) c.i(v);
    for (int64_t v : src) c.i(v);
    for (int64_t v : idx) c.i(v);
    c.i(axisStride).i(axisDim).i(elementCode(s.inputTypes[1])).i(moveCode(s.inputTypes[0]));
    Dispatch d{"gather", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{kernel, {d}};
}

bool usable(const NodeShapes& s) {
    return s.hasInput(0) && s.hasInput(1) && s.hasOutput(0) && moveCode(s.inputTypes[0]) >= 0 &&
           s.inputTypes[0] == s.outputTypes[0] && (s.inputTypes[1] == DType::Int64 || s.inputTypes[1] == DType::Int32);
}

std::optional<NodeProgram> gather(const NodeShapes& s) {
    if (!usable(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    int64_t axis = s.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x[size_t(i)];
    for (int64_t i = axis + 1; i < rank; ++i) inner *= x[size_t(i)];
    const int64_t n = numel(s.inputDims[1]), dim = x[size_t(axis)];
    if (outer * n * inner != numel(s.outputDims[0])) return std::nullopt;
    return gatherProgram(s, {outer, n, inner}, {dim * inner, 0, 1}, {0, 1, 0}, inner, dim, "vulkan:gather");
}

std::optional<NodeProgram> gatherElements(const NodeShapes& s) {
    if (!usable(s)) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& ind = s.inputDims[1];
    const auto rank = int64_t(x.size());
    int64_t axis = s.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank || ind.size() != x.size() || s.outputDims[0] != ind) return std::nullopt;
    std::vector<int64_t> src = stridesOf(x);
    const int64_t axisStride = src[size_t(axis)];
    src[size_t(axis)] = 0;
    return gatherProgram(s, ind, src, stridesOf(ind), axisStride, x[size_t(axis)], "vulkan:gather-elements");
}

} // namespace

void registerGatherOps(VulkanOpRegistry& registry) {
    registry.add("Gather", gather);
    registry.add("GatherElements", gatherElements);
}

} // namespace graphlens::vk
