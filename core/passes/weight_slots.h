// Which input of a node holds its weight and along which axis of that weight its output channels
// lie, for the passes that rewrite weights one tensor at a time (int8 quantization, pruning).
#pragma once

#include "core/graph/graph.h"

#include <optional>

namespace graphlens {

/// Conv, Gemm and MatMul (and ONNX Runtime's FusedConv, FusedGemm, FusedMatMul) read their
/// weight as input 1: Conv's W is [M, C/group, k...] (output channels on axis 0), MatMul's B is
/// [..., K, N] (axis rank-1, or rank-2 when FusedMatMul transposes it), Gemm's B is [K, N], or
/// [N, K] with transB. The output-channel axis of that weight (of rank `rank`), or nullopt for
/// other nodes and for a MatMul whose B is a vector.
std::optional<int64_t> outputChannelAxis(const Node& node, size_t rank);

} // namespace graphlens
