// Graph questions shared by the passes.
#include "core/passes/graph_query.h"

#include <algorithm>

namespace graphlens {

const Node* producerOf(const Graph& graph, ValueId value) {
    if (value == kNoId) return nullptr;
    const NodeId p = graph.value(value).producer();
    return p == kNoId ? nullptr : &graph.node(p);
}

bool hasSingleUse(const Graph& graph, ValueId value) {
    return graph.value(value).uses().size() == 1 && !graph.isGraphOutput(value) &&
           !namesReadBySubgraphs(graph).count(graph.value(value).name);
}

NodeId soleConsumer(const Graph& graph, ValueId value) {
    return hasSingleUse(graph, value) ? graph.value(value).uses().front().node : kNoId;
}

const Tensor* constantInput(const Graph& graph, const Node& node, size_t index) {
    if (!hasInput(node, index)) return nullptr;
    return graph.constantValue(node.input(index));
}

std::optional<float> scalarInput(const Graph& graph, const Node& node, size_t index) {
    const Tensor* t = constantInput(graph, node, index);
    if (!t || t->numel() != 1 || t->dtype() != DType::Float) return std::nullopt;
    return t->span<float>()[0];
}

std::string whyOutputIsShared(const Graph& graph, const Node& producer) {
    const ValueId y = producer.output(0);
    const size_t readers = graph.value(y).uses().size();
    if (graph.isGraphOutput(y)) return "the output of " + describe(producer) + " is a graph output";
    if (readers != 1) return "the output of " + describe(producer) + " is read by " + std::to_string(readers) + " nodes";
    if (namesReadBySubgraphs(graph).count(graph.value(y).name))
        return "a sub-graph reads the output of " + describe(producer) + " by name";
    return {};
}

bool laterOutputIsRead(const Graph& graph, const Node& node) {
    for (size_t i = 1; i < node.outputs().size(); ++i)
        if (node.output(i) != kNoId && (!graph.value(node.output(i)).uses().empty() || graph.isGraphOutput(node.output(i))))
            return true;
    return false;
}

bool swapsLastTwoAxes(const Node& transpose, size_t rank) {
    std::vector<int64_t> perm = transpose.attributes.getInts("perm");
    if (perm.empty())
        for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
    if (rank < 2 || perm.size() != rank) return false;
    for (size_t i = 0; i + 2 < rank; ++i)
        if (perm[i] != int64_t(i)) return false;
    return perm[rank - 2] == int64_t(rank - 1) && perm[rank - 1] == int64_t(rank - 2);
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

namespace {

/// Adds the outer-scope names that the sub-graphs of `graph`'s nodes read (at any depth).
void collectSubgraphReads(const Graph& graph, std::unordered_set<std::string>& names) {
    const auto visit = [&](const Graph& sub) {
        for (ValueId v : sub.valueIds())
            if (sub.value(v).outerScope) names.insert(sub.value(v).name);
        collectSubgraphReads(sub, names);
    };
    for (NodeId id : graph.nodeIds()) {
        if (!graph.node(id).attributes.holdsGraphs()) continue;
        for (const auto& [name, attribute] : graph.node(id).attributes) {
            if (attribute.holds<GraphPtr>()) visit(*attribute.get<GraphPtr>());
            if (attribute.holds<std::vector<GraphPtr>>())
                for (const GraphPtr& sub : attribute.get<std::vector<GraphPtr>>()) visit(*sub);
        }
    }
}

} // namespace

std::unordered_set<std::string> namesReadBySubgraphs(const Graph& graph) {
    std::unordered_set<std::string> names;
    if (SubgraphMark::anyLive()) collectSubgraphReads(graph, names);
    return names;
}

std::vector<NodeId> deadConstantNodes(const Graph& graph, const std::vector<ValueId>& values) {
    std::vector<NodeId> dead;
    for (ValueId v : values) {
        if (v == kNoId || !graph.hasValue(v)) continue;
        const Node* p = producerOf(graph, v);
        if (!p || p->opType != "Constant" || std::find(dead.begin(), dead.end(), p->id) != dead.end()) continue;
        const bool unread = std::all_of(p->outputs().begin(), p->outputs().end(), [&](ValueId out) {
            return graph.value(out).uses().empty() && !graph.isGraphOutput(out);
        });
        if (unread) dead.push_back(p->id);
    }
    return dead;
}

} // namespace graphlens
