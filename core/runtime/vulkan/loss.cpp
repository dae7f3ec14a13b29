// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss on the GPU (loss.comp): log-softmax over
// the classes (SCE), the loss at each position, then a one-workgroup sum for the reductions.
#include "core/runtime/vulkan/typed.h"

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> loss(const NodeShapes& s) {
    const bool sce = s.node.opType == "SoftmaxCrossEntropyLoss";
    if (!s.floatInput(0) || !s.hasInput(1) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    if (s.inputTypes[1] != DType::Int64 && s.inputTypes[1] != DType::Int32) return std::nullopt;
    if (s.hasInput(2) && !s.floatInput(2)) return std::nullopt;
    if (sce && s.hasOutput(1) && s.outputTypes[1] != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    if (x.size() < 2) return std::nullopt;
    const int64_t n = x[0], c = x[1], d = numel(x) / std::max<int64_t>(1, n * c);
    if (n * c * d != numel(x) || numel(s.inputDims[1]) != n * d || n * d == 0 || c == 0) return std::nullopt;
    if (s.hasInput(2) && numel(s.inputDims[2]) != c) return std::nullopt;
    const std::string reduction = s.attributes().getString("reduction", "mean");
    const int reduce = reduction == "none" ? 0 : reduction == "sum" ? 1 : reduction == "mean" ? 2 : -1;
    if (reduce < 0 || numel(s.outputDims[0]) != (reduce ? 1 : n * d)) return std::nullopt;
    const bool ignore = s.attributes().has("ignore_index");
    const int64_t ignored = s.attributes().getInt("ignore_index", 0);

    auto constants = [&](int mode) {
        return Constants().i(mode).i(n).i(c).i(d).i(elementCode(s.inputTypes[1])).i(s.hasInput(2)).i(ignore).i(ignored).i(reduce).take();
    };
    NodeProgram program{sce ? "vulkan:softmax-cross-entropy" : "vulkan:nll-loss", {}};
    TensorRef logProb = TensorRef::input(0);
    if (sce) {
        logProb = s.hasOutput(1) ? TensorRef::output(1) : TensorRef::scratch(0);
        if (!s.hasOutput(1)) program.scratch.push_back(uint64_t(n * c * d) * 4);
        program.dispatches.push_back({"loss", constants(0), {logProb, TensorRef::input(0)}, flatGroups(uint64_t(n * d), 64)});
    }
    TensorRef perPosition = TensorRef::output(0);
    if (reduce) {
        perPosition = TensorRef::scratch(int(program.scratch.size()));
        program.scratch.push_back(uint64_t(n * d) * 8);
    }
    Dispatch each{"loss", constants(1), {perPosition, logProb, TensorRef::input(1),
                                         s.hasInput(2) ? TensorRef::input(2) : TensorRef::none()},
                  flatGroups(uint64_t(n * d), 64)};
    each.waits = sce;
    program.dispatches.push_back(each);
    if (reduce) {
        Dispatch sum{"loss", constants(2), {TensorRef::output(0), perPosition}, {1, 1, 1}};
        sum.waits = true;
        program.dispatches.push_back(sum);
    }
    return program;
}

} // namespace

void registerLossOps(VulkanOpRegistry& registry) {
    registry.add("NegativeLogLikelihoodLoss", loss);
    registry.add("SoftmaxCrossEntropyLoss", loss);
}

} // namespace graphlens::vk
