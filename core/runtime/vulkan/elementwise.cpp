// Element-wise ops on the GPU: unary activations and math (unary.comp, a table of op codes) and
// binary ops with numpy broadcasting (binary.comp, dims merged and strides zeroed where broadcast),
// com.microsoft BiasGelu and biased FastGelu as an Add with the activation in the same dispatch.
#include "core/runtime/vulkan/ops.h"

#include <algorithm>
#include <limits>

namespace graphlens::vk {
namespace {

constexpr float kBig = std::numeric_limits<float>::max();

struct UnaryRow {
    const char* op;
    const char* domain;
    int code;  // see activate() in shaders/common.glsl
    const char* alphaName;
    float alpha;
    const char* betaName;
    float beta;
};

// op -> code of activate(), with the attributes that give alpha and beta.
constexpr UnaryRow kUnary[] = {
    {"Relu", "", 1, nullptr, 0, nullptr, 0},
    {"Sigmoid", "", 2, nullptr, 0, nullptr, 0},
    {"Tanh", "", 3, nullptr, 0, nullptr, 0},
    {"LeakyRelu", "", 4, "alpha", 0.01f, nullptr, 0},
    {"HardSigmoid", "", 6, "alpha", 0.2f, "beta", 0.5f},
    {"HardSwish", "", 7, nullptr, 0, nullptr, 0},
    {"Elu", "", 8, "alpha", 1.0f, nullptr, 0},
    {"QuickGelu", "com.microsoft", 9, "alpha", 1.702f, nullptr, 0},
    {"Exp", "", 10, nullptr, 0, nullptr, 0},
    {"Sqrt", "", 11, nullptr, 0, nullptr, 0},
    {"Erf", "", 12, nullptr, 0, nullptr, 0},
    {"Gelu", "com.microsoft", 13, nullptr, 0, nullptr, 0},
    {"Abs", "", 14, nullptr, 0, nullptr, 0},
    {"Neg", "", 15, nullptr, 0, nullptr, 0},
    {"Log", "", 16, nullptr, 0, nullptr, 0},
    {"Reciprocal", "", 17, nullptr, 0, nullptr, 0},
    {"Floor", "", 18, nullptr, 0, nullptr, 0},
    {"Ceil", "", 19, nullptr, 0, nullptr, 0},
    {"Softplus", "", 20, nullptr, 0, nullptr, 0},
    {"Selu", "", 21, "alpha", 1.67326319217681884765625f, "gamma", 1.05070102214813232421875f},
    {"Sign", "", 22, nullptr, 0, nullptr, 0},
    {"Softsign", "", 23, nullptr, 0, nullptr, 0},
    {"ThresholdedRelu", "", 24, "alpha", 1.0f, nullptr, 0},
    {"Celu", "", 25, "alpha", 1.0f, nullptr, 0},
    {"FastGelu", "com.microsoft", 26, nullptr, 0, nullptr, 0},
    {"Round", "", 27, nullptr, 0, nullptr, 0},
    {"Sin", "", 28, nullptr, 0, nullptr, 0},
    {"Cos", "", 29, nullptr, 0, nullptr, 0},
    {"Mish", "", 30, nullptr, 0, nullptr, 0},
    {"Identity", "", 0, nullptr, 0, nullptr, 0},
};

const UnaryRow* unaryRow(const Node& n) {
    for (const UnaryRow& row : kUnary)
        if (n.opType == row.op && (n.domain == row.domain || (n.domain == "ai.onnx" && !*row.domain))) return &row;
    return nullptr;
}

NodeProgram unaryProgram(const NodeShapes& s, int code, float alpha, float beta) {
    const int64_t count = numel(s.outputDims[0]);
    Dispatch d{"unary", Constants().i(code).i(count).f(alpha).f(beta).take(),
               {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(count), 64)};
    return {"vulkan:unary", {d}, true};
}

bool floatUnary(const NodeShapes& s) {
    return s.floatInput(0) && s.outputTypes.at(0) == DType::Float && s.inputDims[0] == s.outputDims[0];
}

std::optional<NodeProgram> unary(const NodeShapes& s) {
    const UnaryRow* row = unaryRow(s.node);
    if (!row || !floatUnary(s)) return std::nullopt;
    if ((s.node.opType == "FastGelu" || s.node.opType == "Gelu") && s.hasInput(1)) return std::nullopt;  // bias input
    const Attributes& a = s.attributes();
    const float alpha = row->alphaName ? a.getFloat(row->alphaName, row->alpha) : row->alpha;
    const float beta = row->betaName ? a.getFloat(row->betaName, row->beta) : row->beta;
    return unaryProgram(s, row->code, alpha, beta);
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
    if (s.opset < 11) {
        return unaryProgram(s, 5, s.attributes().getFloat("min", -kBig), s.attributes().getFloat("max", kBig));
    }
    const auto lo = scalarInput(s, 1, -kBig), hi = scalarInput(s, 2, kBig);
    if (!lo || !hi) return std::nullopt;  // bounds computed at run time: the CPU runs it
    return unaryProgram(s, 5, *lo, *hi);
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

/// binary.comp: `code` of combine(), then activation `act` (0: none).
std::optional<NodeProgram> binaryProgram(const NodeShapes& s, int code, int act) {
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
    c.i(act).f(0).f(0);
    Dispatch d{"binary", c.take(), {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1)},
               flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:binary", {d}, s.inputDims[0] == s.outputDims[0]};
}

std::optional<NodeProgram> binary(const NodeShapes& s) {
    const std::string& op = s.node.opType;
    if ((op == "Max" || op == "Min") && s.inputDims.size() == 1 && floatUnary(s)) return unaryProgram(s, 0, 0, 0);
    return binaryProgram(s, binaryCode(op), 0);
}

/// com.microsoft BiasGelu (Gelu(X + B)) and FastGelu with a bias: an Add with the activation after.
std::optional<NodeProgram> biasGelu(const NodeShapes& s) {
    if (!s.hasInput(1)) return std::nullopt;
    auto program = binaryProgram(s, binaryCode("Add"), s.node.opType == "FastGelu" ? 26 : 13);
    if (program) program->kernel = "vulkan:binary-gelu";
    return program;
}

} // namespace

void registerElementwiseOps(VulkanOpRegistry& registry) {
    for (const UnaryRow& row : kUnary) registry.add(row.op, unary, row.domain);
    registry.add("Clip", clip);
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "PRelu"}) registry.add(op, binary);
    registry.add("BiasGelu", biasGelu, "com.microsoft");
    registry.add("FastGelu", biasGelu, "com.microsoft");
}

} // namespace graphlens::vk
