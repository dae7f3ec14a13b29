// Softmax, LogSoftmax (softmax.comp), LayerNormalization and com.microsoft SkipLayerNormalization
// (layernorm.comp) on the GPU.
#include "core/runtime/vulkan/ops.h"

#include "core/onnx/schema_defaults.h"

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> softmax(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
    int64_t axis = intAttributeOrDefault(s.attributes(), OpKey::of(s.node), s.opset, "axis");  // 1 before opset 13, then -1
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

/// layernorm.comp over the trailing dims from `axis`; `skip` and `skipBias` are the inputs added
/// first (SkipLayerNormalization), -1 when absent.
std::optional<NodeProgram> layerNormProgram(const NodeShapes& s, int64_t axis, float epsilon, size_t scale, int bias, int skip,
                                            int skipBias) {
    const auto& x = s.inputDims[0];
    const auto rank = int64_t(x.size());
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
    const auto scaleStride = strideOf(scale);
    const auto biasStride = bias >= 0 ? strideOf(size_t(bias)) : std::optional<int64_t>(0);
    if (!scaleStride || !biasStride) return std::nullopt;
    if (skip >= 0 && s.inputDims[size_t(skip)] != x) return std::nullopt;
    if (skipBias >= 0 && numel(s.inputDims[size_t(skipBias)]) != cols) return std::nullopt;
    Constants c;
    c.i(rows).i(cols).f(epsilon).i(bias >= 0).i(*scaleStride).i(*biasStride);
    c.i(s.hasOutput(1)).i(s.hasOutput(2)).i(skip >= 0).i(skipBias >= 0);
    auto in = [](int i) { return i >= 0 ? TensorRef::input(i) : TensorRef::none(); };
    Dispatch d{"layernorm", c.take(),
               {TensorRef::output(0), s.hasOutput(1) ? TensorRef::output(1) : TensorRef::none(),
                s.hasOutput(2) ? TensorRef::output(2) : TensorRef::none(), TensorRef::input(0), TensorRef::input(int(scale)),
                in(bias), in(skip), in(skipBias)},
               flatGroups(uint64_t(rows), 64)};
    return NodeProgram{"vulkan:layernorm", {d}};
}

bool floatTensors(const NodeShapes& s) {
    for (size_t i = 0; i < s.inputTypes.size(); ++i)
        if (s.hasInput(i) && !s.floatInput(i)) return false;
    for (size_t i = 0; i < s.outputTypes.size(); ++i)
        if (s.hasOutput(i) && s.outputTypes[i] != DType::Float) return false;
    return !s.inputTypes.empty() && s.hasInput(0);
}

std::optional<NodeProgram> layerNorm(const NodeShapes& s) {
    if (!floatTensors(s) || !s.hasInput(1)) return std::nullopt;
    const Attributes& a = s.attributes();
    return layerNormProgram(s, a.getInt("axis", -1), floatAttributeOrDefault(a, OpKey::of(s.node), s.opset, "epsilon"), 1, s.hasInput(2) ? 2 : -1, -1, -1);
}

/// com.microsoft SkipLayerNormalization: LayerNorm(input + skip + bias) * gamma + beta over the last
/// dim. Its optional fourth output (the sum) has no binding here: such nodes run on the CPU.
std::optional<NodeProgram> skipLayerNorm(const NodeShapes& s) {
    if (!floatTensors(s) || !s.hasInput(1) || !s.hasInput(2) || s.hasOutput(3)) return std::nullopt;
    // ONNX Runtime's default epsilon here is 1e-12, not LayerNormalization's 1e-5.
    return layerNormProgram(s, -1, s.attributes().getFloat("epsilon", 1e-12f), 2, s.hasInput(3) ? 3 : -1, 1,
                            s.hasInput(4) ? 4 : -1);
}

} // namespace

void registerNormalizationOps(VulkanOpRegistry& registry) {
    registry.add("Softmax", softmax);
    registry.add("LogSoftmax", softmax);
    registry.add("LayerNormalization", layerNorm);
    registry.add("SkipLayerNormalization", skipLayerNorm, "com.microsoft");
}

} // namespace graphlens::vk
