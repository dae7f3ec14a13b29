// Graph questions shared by the passes.
#include "core/passes/graph_query.h"

namespace graphlens {

const Node* producerOf(const Graph& graph, ValueId value) {
    if (value == kNoId) return nullptr;
    const NodeId p = graph.value(value).producer;
    return p == kNoId ? nullptr : &graph.node(p);
}

bool hasSingleUse(const Graph& graph, ValueId value) {
    return graph.value(value).uses.size() == 1 && !graph.isGraphOutput(value);
}

NodeId soleConsumer(const Graph& graph, ValueId value) {
    return hasSingleUse(graph, value) ? graph.value(value).uses.front().node : kNoId;
}

const Tensor* constantInput(const Graph& graph, const Node& node, size_t index) {
    if (!hasInput(node, index)) return nullptr;
    return graph.constantValue(node.inputs[index]);
}

std::optional<float> scalarInput(const Graph& graph, const Node& node, size_t index) {
    const Tensor* t = constantInput(graph, node, index);
    if (!t || t->numel() != 1 || t->dtype() != DType::Float) return std::nullopt;
    return t->span<float>()[0];
}

std::string describe(const Node& node) {
    if (node.name.empty()) return node.opType + " #" + std::to_string(node.id);
    return node.opType + " '" + node.name + "'";
}

std::string quoted(const Graph& graph, ValueId value) {
    return "'" + graph.value(value).name + "'";
}

bool allElementsEqual(const Tensor& tensor, double x) {
    if (tensor.dtype() == DType::String || tensor.empty()) return false;
    for (double v : tensor.toDoubles())
        if (v != x) return false;
    return true;
}

} // namespace graphlens
