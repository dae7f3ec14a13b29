// Softmax, LogSoftmax (softmax.comp) and LayerNormalization (layernorm.comp) on the GPU.
#include "core/runtime/vulkan/ops.h"

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> softmax(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    int64_t axis = s.attributes().getInt("axis", s.opset < 13 ? 1 : -1);
    if (rank == 0 || axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
    int64_t outer = 1, dim = 1, inner = 1;
    for (int64_t i = 0; i < rank; ++i) {
        if (i < axis) outer *= x[size_t(i)];
        else if (i == axis || s.opset < 13) dim *= x[size_t(i)];  // before opset 13: the axis and all after it
        else inner *= x[size_t(i)];
    }
    Constants c;
    c.i(outer).i(dim).i(inner).i(s.node.opType == "LogSoftmax");
    Dispatch d{"softmax", c.take(), {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(outer * inner), 64)};
    return NodeProgram{"vulkan:softmax", {d}};
}

std::optional<NodeProgram> layerNorm(const NodeShapes& s) {
    if (!s.floatInput(0) || !s.floatInput(1) || (s.hasInput(2) && !s.floatInput(2))) return std::nullopt;
    for (size_t i = 0; i < s.outputTypes.size(); ++i)
        if (s.hasOutput(i) && s.outputTypes[i] != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    int64_t axis = s.attributes().getInt("axis", -1);
    if (rank == 0 || axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
    int64_t rows = 1, cols = 1;
    for (int64_t i = 0; i < rank; ++i) (i < axis ? rows : cols) *= x[size_t(i)];
    auto strideOf = [&](size_t input) -> std::optional<int64_t> {
        const int64_t count = numel(s.inputDims[input]);
        if (count == cols) return 1;
        if (count == 1) return 0;
        return std::nullopt;
    };
    const auto scaleStride = strideOf(1);
    const auto biasStride = s.hasInput(2) ? strideOf(2) : std::optional<int64_t>(0);
    if (!scaleStride || !biasStride) return std::nullopt;
    Constants c;
    c.i(rows).i(cols).f(s.attributes().getFloat("epsilon", 1e-5f)).i(s.hasInput(2)).i(*scaleStride).i(*biasStride);
    c.i(s.hasOutput(1)).i(s.hasOutput(2));
    Dispatch d{"layernorm", c.take(),
               {TensorRef::output(0), s.hasOutput(1) ? TensorRef::output(1) : TensorRef::none(),
                s.hasOutput(2) ? TensorRef::output(2) : TensorRef::none(), TensorRef::input(0), TensorRef::input(1),
                s.hasInput(2) ? TensorRef::input(2) : TensorRef::none()},
               flatGroups(uint64_t(rows), 64)};
    return NodeProgram{"vulkan:layernorm", {d}};
}

} // namespace

void registerNormalizationOps(VulkanOpRegistry& registry) {
    registry.add("Softmax", softmax);
    registry.add("LogSoftmax", softmax);
    registry.add("LayerNormalization", layerNorm);
}

} // namespace graphlens::vk
