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
    return index < node.inputs.size() && node.inputs[index] != kNoId;
}
/// Why the output of `producer` cannot be merged into the one node reading it: "the output of
/// Conv 'c' is a graph output", "... is read by 2 nodes" or "a sub-graph reads ..."; empty when
/// exactly one node reads it.
std::string whyOutputIsShared(const Graph& graph, const Node& producer);
/// "Conv 'conv1'" (or "Conv #12" for an unnamed node), for sentences in rewrites.
std::string describe(const Node& node);
/// "'name'" for a value.
std::string quoted(const Graph& graph, ValueId value);
/// Every element of a constant equals `x` (float, double, half and integer types).
bool allElementsEqual(const Tensor& tensor, double x);
/// The Constant nodes producing any of `values` whose outputs nothing reads any more: what a
/// rewrite that stopped reading them leaves behind.
std::vector<NodeId> deadConstantNodes(const Graph& graph, const std::vector<ValueId>& values);
/// Names of values that sub-graphs (If/Loop/Scan bodies, at any depth) read from enclosing
/// scopes. Such reads are by name and are not uses, so a pass must not remove or rename them.
std::unordered_set<std::string> namesReadBySubgraphs(const Graph& graph);

} // namespace graphlens
