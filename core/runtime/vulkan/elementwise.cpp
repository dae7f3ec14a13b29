// Element-wise ops on the GPU: unary activations and math (unary.comp: every unary kind of
// core/graph/activations.def) and binary ops with numpy broadcasting (binary.comp, dims merged
// and strides zeroed where broadcast),
// com.microsoft BiasGelu and biased FastGelu as an Add with the activation in the same dispatch.
#include "core/runtime/vulkan/ops.h"

#include "core/graph/activation_kinds.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

NodeProgram unaryProgram(const NodeShapes& s, ActivationId kind, float alpha, float beta) {
    const int64_t count = numel(s.outputDims[0]);
    Dispatch d{"unary", Constants().i(int(kind)).i(count).f(alpha).f(beta).take(),
               {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(count), 64)};
    return {"vulkan:unary", {d}, true};
}

bool floatUnary(const NodeShapes& s) {
    return s.floatInput(0) && s.outputTypes.at(0) == DType::Float && s.inputDims[0] == s.outputDims[0];
}

/// Every unary op of the activation table (activations.def) but Clip: activate() with the
/// node's numbers, the table's defaults where it leaves them out.
std::optional<NodeProgram> unary(const NodeShapes& s) {
    const ActivationKind* kind = activationKindOfOp(s.node.domain, s.node.opType);
    if (!kind || !floatUnary(s)) return std::nullopt;
    if ((kind->id == ActivationId::FastGelu || kind->id == ActivationId::Gelu) && s.hasInput(1)) return std::nullopt;  // bias input
    const ActivationParams p = activationParams(*kind, s.attributes());
    return unaryProgram(s, kind->id, p[0], p[1]);
}

/// A scalar float constant of input `i`, `fallback` when the input is omitted, nullopt when it is
/// not a constant.
std::optional<float> scalarInput(const NodeShapes& s, size_t i, float fallback) {
    if (!s.hasInput(i)) return fallback;
    if (!s.constants[i] || s.constants[i]->numel() != 1 || s.inputTypes[i] != DType::Float) return std::nullopt;
    return s.constants[i]->span<float>()[0];
}

std::optional<NodeProgram> clip(const NodeShapes& s) {
    if (!floatUnary(s)) return std::nullopt;
    const ActivationParams bounds = activationParams(activationKind(ActivationId::Clip), s.attributes());
    if (s.opset < 11) return unaryProgram(s, ActivationId::Clip, bounds[0], bounds[1]);
    const auto lo = scalarInput(s, 1, bounds[0]), hi = scalarInput(s, 2, bounds[1]);
    if (!lo || !hi) return std::nullopt;  // bounds computed at run time: the CPU runs it
    return unaryProgram(s, ActivationId::Clip, *lo, *hi);
}

/// Output dims and per-operand strides (0 where broadcast), merged where contiguous, padded to 6.
struct BroadcastWalk {
    std::vector<int64_t> dims;
    std::vector<int64_t> a, b;
};

std::optional<BroadcastWalk> broadcastWalk(const std::vector<int64_t>& out, const std::vector<int64_t>& da,
                                           const std::vector<int64_t>& db) {
    auto stridesFor = [&](const std::vector<int64_t>& d) {
        std::vector<int64_t> s(out.size(), 0);
        const std::vector<int64_t> own = stridesOf(d);
        const size_t shift = out.size() - d.size();
        for (size_t i = 0; i < d.size(); ++i) s[shift + i] = d[i] == 1 ? 0 : own[i];
        return s;
    };
    const std::vector<int64_t> sa = stridesFor(da), sb = stridesFor(db);
    BroadcastWalk w;
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == 1) continue;
        if (!w.dims.empty() && w.a.back() == sa[i] * out[i] && w.b.back() == sb[i] * out[i]) {
            w.dims.back() *= out[i];
            w.a.back() = sa[i];
            w.b.back() = sb[i];
            continue;
        }
        w.dims.push_back(out[i]);
        w.a.push_back(sa[i]);
        w.b.push_back(sb[i]);
    }
    if (w.dims.size() > 6) return std::nullopt;
    while (w.dims.size() < 6) {
        w.dims.insert(w.dims.begin(), 1);
        w.a.insert(w.a.begin(), 0);
        w.b.insert(w.b.begin(), 0);
    }
    return w;
}

int binaryCode(const std::string& op) {
    static const char* const names[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "PRelu"};
    for (int i = 0; i < 8; ++i)
        if (op == names[i]) return i;
    return -1;
}

/// binary.comp: `code` of combine(), then activation `act`.
std::optional<NodeProgram> binaryProgram(const NodeShapes& s, int code, ActivationId act) {
    if (s.inputDims.size() != 2 || !s.floatInput(0) || !s.floatInput(1) || s.outputTypes.at(0) != DType::Float)
        return std::nullopt;
    const auto walk = broadcastWalk(s.outputDims[0], s.inputDims[0], s.inputDims[1]);
    if (!walk) return std::nullopt;
    const int64_t count = numel(s.outputDims[0]);
    Constants c;
    c.i(code).i(count);
    for (int64_t d : walk->dims) c.i(d);
    for (int64_t v : walk->a) c.i(v);
    for (int64_t v : walk->b) c.i(v);
    c.i(int(act)).f(0).f(0);
    Dispatch d{"binary", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:binary", {d}, s.inputDims[0] == s.outputDims[0]};
}

std::optional<NodeProgram> binary(const NodeShapes& s) {
    const std::string& op = s.node.opType;
    if ((op == "Max" || op == "Min") && s.inputDims.size() == 1 && floatUnary(s))
        return unaryProgram(s, ActivationId::Identity, 0, 0);
    return binaryProgram(s, binaryCode(op), ActivationId::Identity);
}

/// com.microsoft BiasGelu (Gelu(X + B)) and FastGelu with a bias: an Add with the activation after.
std::optional<NodeProgram> biasGelu(const NodeShapes& s) {
    if (!s.hasInput(1)) return std::nullopt;
    const ActivationId gelu = s.node.opType == "FastGelu" ? ActivationId::FastGelu : ActivationId::Gelu;
    auto program = binaryProgram(s, binaryCode("Add"), gelu);
    if (program) program->kernel = "vulkan:binary-gelu";
    return program;
}

} // namespace

void registerElementwiseOps(VulkanOpRegistry& registry) {
    for (const ActivationKind& kind : kActivationKinds)
        if (kind.has(kActUnaryOp) && kind.id != ActivationId::Clip)
            registry.add(std::string(kind.name), unary, std::string(kind.domain));
    registry.add("Clip", clip);
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "PRelu"}) registry.add(op, binary);
    registry.add("BiasGelu", biasGelu, "com.microsoft");
    registry.add("FastGelu", biasGelu, "com.microsoft");
}

} // namespace graphlens::vk
