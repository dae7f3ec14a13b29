// Per-channel normalizations on the GPU: BatchNormalization in inference form (batchnorm.comp),
// InstanceNormalization (instancenorm.comp) and LRN (lrn.comp), on float32 tensors of rank 2 or
// more whose channel axis is the second. BatchNormalization in training mode (batch statistics,
// running-mean outputs) is declined with that reason and runs on the CPU.
#include "core/runtime/vulkan/ops.h"

#include "core/onnx/schema_defaults.h"

namespace graphlens::vk {
namespace {

/// X viewed as [outer, channels, inner] around axis 1.
struct ChannelView {
    int64_t outer = 1, channels = 1, inner = 1;
};

std::optional<ChannelView> channelView(const NodeShapes& s) {
    if (!s.floatInput(0) || !s.hasOutput(0) || s.outputTypes[0] != DType::Float) return std::nullopt;
    const auto& x = s.inputDims[0];
    if (x.size() < 2 || s.outputDims[0] != x || numel(x) == 0) return std::nullopt;
    ChannelView v;
    v.outer = x[0];
    v.channels = x[1];
    for (size_t i = 2; i < x.size(); ++i) v.inner *= x[i];
    return v;
}

/// True when inputs `first`..`last` are float vectors of one value per channel.
bool perChannel(const NodeShapes& s, size_t first, size_t last, int64_t channels) {
    for (size_t i = first; i <= last; ++i)
        if (!s.floatInput(i) || numel(s.inputDims[i]) != channels || s.inputDims[i].size() != 1) return false;
    return true;
}

std::optional<NodeProgram> batchNormalization(const NodeShapes& s) {
    const Attributes& a = s.attributes();
    if (s.opset >= 14 && a.getInt("training_mode", 0) != 0)
        return declineBecause("BatchNormalization in training mode (batch statistics, running-mean outputs) runs on the CPU");
    for (size_t i = 1; i < s.outputTypes.size(); ++i)
        if (s.hasOutput(i))
            return declineBecause("BatchNormalization's training outputs (mean, variance, saved statistics) are computed on the CPU");
    if (s.opset < 9 && a.getInt("spatial", 1) == 0)
        return declineBecause("BatchNormalization with spatial=0 (statistics per element, not per channel) runs on the CPU");
    const auto v = channelView(s);
    if (!v || !perChannel(s, 1, 4, v->channels)) return std::nullopt;
    const int64_t count = v->outer * v->channels * v->inner;
    Constants c;
    c.i(count).i(v->channels).i(v->inner).f(floatAttributeOrDefault(a, OpKey::of(s.node), s.opset, "epsilon"));
    Dispatch d{"batchnorm", c.take(),
               {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1), TensorRef::input(2), TensorRef::input(3),
                TensorRef::input(4)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:batchnorm", {d}, true};
}

std::optional<NodeProgram> instanceNormalization(const NodeShapes& s) {
    const auto v = channelView(s);
    if (!v || !perChannel(s, 1, 2, v->channels)) return std::nullopt;
    const int64_t rows = v->outer * v->channels;
    Constants c;
    c.i(rows).i(v->channels).i(v->inner).f(floatAttributeOrDefault(s.attributes(), OpKey::of(s.node), s.opset, "epsilon"));
    Dispatch d{"instancenorm", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1), TensorRef::input(2)},
               flatGroups(uint64_t(rows), 1)};
    return NodeProgram{"vulkan:instancenorm", {d}};
}

std::optional<NodeProgram> lrn(const NodeShapes& s) {
    const auto v = channelView(s);
    const Attributes& a = s.attributes();
    const int64_t size = a.getInt("size", 0);
    if (!v || size <= 0 || size > (1 << 20)) return std::nullopt;
    const int64_t count = v->outer * v->channels * v->inner;
    Constants c;
    c.i(count).i(v->channels).i(v->inner).i(size);
    c.f(a.getFloat("alpha", 1e-4f)).f(a.getFloat("beta", 0.75f)).f(a.getFloat("bias", 1.0f));
    Dispatch d{"lrn", c.take(), {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:lrn", {d}};
}

} // namespace

void registerChannelNormOps(VulkanOpRegistry& registry) {
    registry.add("BatchNormalization", batchNormalization);
    registry.add("InstanceNormalization", instanceNormalization);
    registry.add("LRN", lrn);
}

} // namespace graphlens::vk
