// Small questions patterns ask about the graph: who produces a value, who reads it, is it a
// constant, and how to name a node in a sentence.
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace graphlens {

/// The node producing `value`, or nullptr for graph inputs and initializers.
const Node* producerOf(const Graph& graph, ValueId value);
/// True when exactly one node input reads `value`, it is not a graph output and no sub-graph reads
/// it by name.
bool hasSingleUse(const Graph& graph, ValueId value);
/// The one node reading `value` (see hasSingleUse), or kNoId.
NodeId soleConsumer(const Graph& graph, ValueId value);
/// The constant tensor (initializer or Constant node) feeding input `index` of `node`.
const Tensor* constantInput(const Graph& graph, const Node& node, size_t index);
/// The value of a one-element float constant feeding input `index`.
std::optional<float> scalarInput(const Graph& graph, const Node& node, size_t index);
/// True when input `index` exists (not omitted).
inline bool hasInput(const Node& node, size_t index) {
    return index < node.inputs().size() && node.input(index) != kNoId;
}
/// Why the output of `producer` cannot be merged into the one node reading it: "the output of
/// Conv 'c' is a graph output", "... is read by 2 nodes" or "a sub-graph reads ..."; empty when
/// exactly one node reads it.
std::string whyOutputIsShared(const Graph& graph, const Node& producer);
/// True when an output of `node` after its first is read by a node or is a graph output
/// (LayerNormalization's mean and inverse standard deviation, for example).
bool laterOutputIsRead(const Graph& graph, const Node& node);
/// True when `transpose`, a Transpose of an input of rank `rank`, trades the last two axes and
/// keeps the others: perm [0, ..., r-3, r-1, r-2], or no perm at rank 2 (every axis reversed).
bool swapsLastTwoAxes(const Node& transpose, size_t rank);
/// "Conv 'conv1'" (or "Conv #12" for an unnamed node), for sentences in rewrites.
std::string describe(const Node& node);
/// "'name'" for a value.
std::string quoted(const Graph& graph, ValueId value);
/// Every element of a constant equals `x` (float, double, half and integer types).
bool allElementsEqual(const Tensor& tensor, double x);
/// The Constant nodes producing any of `values` whose outputs nothing reads any more: what a
/// rewrite that stopped reading them leaves behind.
std::vector<NodeId> deadConstantNodes(const Graph& graph, const std::vector<ValueId>& values);
/// An operand of a binary node that a rewrite can take in: the node producing it, which input of
/// the binary node it is, and the binary node's other input.
struct OperandProducer {
    const Node* producer = nullptr;
    size_t side = 0;
    ValueId other = kNoId;
};
/// Looks at both inputs of the two-input `node` in order (Add(conv, z) and Add(z, conv) alike):
/// the first whose producer `candidate(producer)` accepts and for which `whyNot(producer, other)`
/// is empty is returned; otherwise nullopt, with `why` set to the first reason given (empty when
/// no input had a candidate producer).
template <typename Candidate, typename WhyNot>
std::optional<OperandProducer> fusableOperand(const Graph& graph, const Node& node, Candidate candidate, WhyNot whyNot,
                                              std::string& why) {
    why.clear();
    if (node.inputs().size() != 2 || !hasInput(node, 0) || !hasInput(node, 1)) return std::nullopt;
    for (size_t side : {size_t(0), size_t(1)}) {
        const Node* producer = producerOf(graph, node.input(side));
        if (!producer || !candidate(*producer)) continue;
        const ValueId other = node.input(1 - side);
        const std::string reason = whyNot(*producer, other);
        if (reason.empty()) return OperandProducer{producer, side, other};
        if (why.empty()) why = reason;
    }
    return std::nullopt;
}
/// Names of values that sub-graphs (If/Loop/Scan bodies, at any depth) read from enclosing
/// scopes. Such reads are by name and are not uses, so a pass must not remove or rename them.
std::unordered_set<std::string> namesReadBySubgraphs(const Graph& graph);

} // namespace graphlens
