// FLOP counts per node: the matrix products come from core's estimateNodeFlops (the figure
// `graphlens info` prints); everything else is a per-element cost from the tables below.
#include "profiler/flops.h"

#include "core/graph/model_summary.h"
#include "core/graph/op_key.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string_view>

namespace graphlens {
namespace {

struct PerElement {
    std::string_view op;
    int64_t flops;
};

// FLOPs per output element of default-domain element-wise, activation and normalization ops.
constexpr PerElement kPerOutputElement[] = {
    {"Add", 1}, {"Sub", 1}, {"Mul", 1}, {"Div", 1}, {"Pow", 1}, {"Mod", 1},
    {"Relu", 1}, {"LeakyRelu", 2}, {"PRelu", 2}, {"Elu", 3}, {"Selu", 4}, {"Celu", 4},
    {"ThresholdedRelu", 1}, {"Sigmoid", 3}, {"HardSigmoid", 3}, {"HardSwish", 4}, {"Mish", 5},
    {"Tanh", 1}, {"Softplus", 3}, {"Softsign", 3}, {"Gelu", 5},
    {"Exp", 1}, {"Log", 1}, {"Sqrt", 1}, {"Reciprocal", 1}, {"Neg", 1}, {"Abs", 1}, {"Erf", 1},
    {"Sin", 1}, {"Cos", 1}, {"Floor", 1}, {"Ceil", 1}, {"Round", 1}, {"Sign", 1}, {"Clip", 2},
    {"Where", 1}, {"Equal", 1}, {"Greater", 1}, {"Less", 1}, {"GreaterOrEqual", 1},
    {"LessOrEqual", 1}, {"Not", 1}, {"And", 1}, {"Or", 1}, {"Xor", 1},
    {"BatchNormalization", 2},     // inference form: x * k + b
    {"InstanceNormalization", 8},  // mean 1, variance 3, normalize 2, scale and shift 2
    {"LayerNormalization", 8},
    {"Softmax", 5}, {"LogSoftmax", 5},  // max, subtract, exp, sum, divide (log)
};

// The same for the com.microsoft ops the passes emit.
constexpr PerElement kMicrosoftPerOutputElement[] = {
    {"Gelu", 5}, {"BiasGelu", 6}, {"FastGelu", 9}, {"QuickGelu", 5},
    {"SkipLayerNormalization", 9},  // LayerNormalization's 8 and the residual sum
};

// Ops that only move, copy or reinterpret data.
constexpr std::string_view kDataMovement[] = {
    "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice",
    "Gather", "GatherElements", "GatherND", "Expand", "Tile", "Pad", "Identity", "Cast",
    "Shape", "Size", "Constant", "ConstantOfShape", "Dropout", "DepthToSpace", "SpaceToDepth",
};

// Ops that read every input element once (reductions, global pooling).
constexpr std::string_view kPerInputElement[] = {
    "GlobalAveragePool", "GlobalMaxPool", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp", "ArgMax", "ArgMin",
};

template <typename Table>
std::optional<int64_t> lookup(const Table& table, std::string_view op) {
    for (const PerElement& row : table)
        if (row.op == op) return row.flops;
    return std::nullopt;
}

bool contains(const auto& list, std::string_view op) {
    return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

std::optional<int64_t> elementsOf(const Graph& g, ValueId v) {
    if (v == kNoId) return std::nullopt;
    if (const Tensor* t = g.constantValue(v)) return t->numel();
    return g.value(v).shape.numel();
}

std::optional<int64_t> poolFlops(const Graph& g, const Node& n) {
    const auto out = elementsOf(g, n.output(0));
    const std::vector<int64_t> kernel = n.attributes.getInts("kernel_shape");
    if (!out || kernel.empty()) return std::nullopt;
    return *out * std::accumulate(kernel.begin(), kernel.end(), int64_t(1), std::multiplies<>());
}

/// A com.microsoft FusedConv/FusedGemm: the product, its activation and a residual input Z.
std::optional<int64_t> fusedFlops(const Graph& g, const Node& n) {
    auto product = estimateNodeFlops(g, n);
    const auto out = elementsOf(g, n.output(0));
    if (!product || !out) return std::nullopt;
    if (const std::string activation = n.attributes.getString("activation", ""); !activation.empty())
        *product += *out * lookup(kPerOutputElement, activation).value_or(1);
    if (n.opType == "FusedConv" && n.inputs().size() > 3 && n.input(3) != kNoId) *product += *out;
    return product;
}

/// com.microsoft FusedMatMul: A (optionally transposed) times B, scaled by alpha.
std::optional<int64_t> fusedMatMulFlops(const Graph& g, const Node& n) {
    const Value& a = g.value(n.input(0));
    const auto out = elementsOf(g, n.output(0));
    if (!out || !a.shape.rankKnown() || a.shape.rank() < 2) return std::nullopt;
    const Dim& k = a.shape[a.shape.rank() - (n.attributes.getInt("transA", 0) ? 2 : 1)];
    if (!k.isStatic()) return std::nullopt;
    return 2 * *out * k.size() + *out;
}

std::optional<int64_t> microsoftFlops(const Graph& g, const Node& n) {
    if (n.opType == "FusedConv" || n.opType == "FusedGemm") return fusedFlops(g, n);
    if (n.opType == "FusedMatMul") return fusedMatMulFlops(g, n);
    const auto perElement = lookup(kMicrosoftPerOutputElement, n.opType);
    const auto out = elementsOf(g, n.output(0));
    if (!perElement || !out) return std::nullopt;
    return *perElement * *out;
}

std::optional<int64_t> defaultDomainFlops(const Graph& g, const Node& n) {
    if (auto product = estimateNodeFlops(g, n)) return product;
    if (contains(kDataMovement, n.opType)) return 0;
    if (contains(kPerInputElement, n.opType)) return elementsOf(g, n.input(0));
    if (n.opType == "MaxPool" || n.opType == "AveragePool" || n.opType == "LpPool") return poolFlops(g, n);
    const auto out = elementsOf(g, n.output(0));
    if (!out) return std::nullopt;
    const auto inputs = int64_t(n.inputs().size());
    if (n.opType == "Sum" || n.opType == "Max" || n.opType == "Min") return *out * std::max<int64_t>(inputs - 1, 0);
    if (n.opType == "Mean") return *out * inputs;
    if (auto perElement = lookup(kPerOutputElement, n.opType)) return *perElement * *out;
    return std::nullopt;
}

} // namespace

std::optional<int64_t> nodeFlops(const Graph& graph, const Node& node) {
    if (node.outputs().empty()) return std::nullopt;
    if (node.domain == "com.microsoft") return node.inputs().empty() ? std::nullopt : microsoftFlops(graph, node);
    if (!isDefaultDomain(node.domain)) return std::nullopt;
    if (node.opType == "Constant") return 0;
    return node.inputs().empty() ? std::nullopt : defaultDomainFlops(graph, node);
}

int64_t graphFlops(const Graph& graph) {
    int64_t total = 0;
    for (NodeId id : graph.nodeIds()) total += nodeFlops(graph, graph.node(id)).value_or(0);
    return total;
}

} // namespace graphlens
