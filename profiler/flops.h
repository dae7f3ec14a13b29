// Floating-point operations per node from static shapes: what the profiler divides time by
// (GFLOP/s, arithmetic intensity) and what a status bar can sum for a whole graph.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <optional>

namespace graphlens {

/// FLOPs of one run of `node` (a multiply-add counts 2; a comparison, a transcendental function
/// or a division counts 1): Conv, ConvTranspose, Gemm, MatMul and their com.microsoft fused
/// forms (plus the fused activation and residual add), element-wise and activation ops, pooling,
/// reductions, normalizations and Softmax. Data movement ops (Reshape, Transpose, Gather, ...)
/// count 0. nullopt for other ops or when a shape the count needs is not static.
std::optional<int64_t> nodeFlops(const Graph& graph, const Node& node);

/// Sum of nodeFlops over the nodes that have a count.
int64_t graphFlops(const Graph& graph);

} // namespace graphlens
