// Matching the small sub-graphs that exporters write for one textbook formula (GELU, LayerNorm,
// HardSwish, SiLU): constants compared with a tolerance, "x * c" and "x / c" with the constant on
// either side, the one reader of a value, and the product x * f * s in every order exporters use.
// A step that fails says why when the sub-graph looked like a match, so the pass can decline.
#pragma once

#include "core/graph/graph.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

/// Exporters round constants like sqrt(2) to float: equal within 1e-4 relative.
bool nearlyEqual(double value, double expected, double relTolerance = 1e-4);

/// A binary node (Add, Mul, Div, Pow, ...) with a one-element float constant on one side.
struct ScalarOperand {
    ValueId other = kNoId;  ///< the operand that is not the constant
    double constant = 0;
    bool constantFirst = false;  ///< the constant is input 0 (c * x, or c / x)
};
std::optional<ScalarOperand> scalarOperand(const Graph& graph, const Node& node);

/// `node` computes x * c: a Mul by a scalar constant on either side, or a Div x / (1/c).
struct Scaled {
    ValueId x = kNoId;
    double factor = 1;
};
std::optional<Scaled> scaledBy(const Graph& graph, const Node& node);

/// `node` is a default-domain `op`.
bool isOp(const Node& node, std::string_view op);

using NodePredicate = std::function<bool(const Node&)>;

/// The node reading `value` that `wanted` accepts, when no other node reads `value` and it is no
/// graph output. Otherwise nullptr; then `why` says so when such a node exists but `value` is
/// read elsewhere too (the sub-graph matched but cannot be fused), and stays empty when no
/// reader is wanted (not a match at all).
const Node* onlyReader(const Graph& graph, ValueId value, const NodePredicate& wanted, std::string& why);

/// The other input of a binary `node` that reads `value` as one of its two inputs.
ValueId otherInput(const Node& node, ValueId value);

/// The nodes computing x * factor * s, starting from the reader of `factor`, in the arrangements
/// exporters write: (factor * x) * s, (factor * s) * x and factor * (x * s), each Mul in either
/// operand order and each "* s" also as "/ (1/s)". With s = 1 only factor * x. The last node
/// produces the product. nullopt when no such product follows (`why` set when one nearly does:
/// a constant that does not match, or an intermediate read elsewhere).
std::optional<std::vector<NodeId>> matchScaledProduct(const Graph& graph, ValueId factor, ValueId x, double s,
                                                      std::string& why);

/// `nodes` preceded by the Constant nodes that feed them and nothing else, so that a fusion
/// removes them too.
std::vector<NodeId> withConstantFeeders(const Graph& graph, std::vector<NodeId> nodes);

/// True when every node reading `value` is in `nodes` and it is no graph output.
bool onlyReadBy(const Graph& graph, ValueId value, const std::vector<NodeId>& nodes);

/// An output of `nodes` other than the last node's that something outside `nodes` reads (or
/// that is a graph output): fusing them would take that value away. kNoId when there is none.
ValueId escapingValue(const Graph& graph, const std::vector<NodeId>& nodes);

/// A number for a sentence: "0.5", "1.41421".
std::string formatNumber(double value);

} // namespace graphlens
