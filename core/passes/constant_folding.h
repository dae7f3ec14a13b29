// Constant folding, shared by fold-constants and fold-shapes: a node whose inputs are all
// constants is evaluated once, now, by its reference kernel (fold-constants runs Transpose and
// Concat on their optimized CPU kernels, which move the same bytes), and its outputs become
// initializers under the same value names, so the runtime never computes it again.
#pragma once

#include "core/passes/rewriter.h"

#include <optional>
#include <string>

namespace graphlens {

/// True when `value` always holds the same tensor: an initializer that is no graph input (a
/// graph input's default can be overridden) or the output of a Constant node.
bool isConstant(const Graph& graph, ValueId value);
/// That tensor (a Constant node's value, value_float, value_ints, ... attribute); nullopt when
/// `value` is not a constant.
std::optional<Tensor> constantTensor(const Graph& graph, ValueId value);
/// True when every input of `node` that is given (not omitted) is a constant.
bool allInputsConstant(const Graph& graph, const Node& node);

/// True for operators that draw random numbers: each run gives a new sample.
bool drawsRandomNumbers(const Node& node);
/// True when the node carries a sub-graph (the bodies of If, Loop, Scan).
bool hasSubgraph(const Node& node);

/// The outputs of `node`, whose given inputs are all constants, computed by its reference kernel
/// now (an Identity shares its input's storage). Throws what the kernel throws.
std::vector<Tensor> evaluateOnConstants(const Graph& graph, const Node& node, int64_t opset);

/// Evaluates `node`, whose inputs are all constants, with its reference kernel and replaces it
/// by initializers holding its outputs (same value ids and names); Constant nodes it leaves
/// without consumers go too. Commits one rewrite of `kind` and returns true, or declines
/// (sub-graph, randomness, another domain, no reference kernel, a result over the size cap, a
/// kernel error) and returns false having changed nothing.
bool foldToConstants(NodeId node, Rewriter& rewriter, const PassContext& context, const std::string& kind);

} // namespace graphlens
