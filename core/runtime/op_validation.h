// Checks every node's attributes (and input ranks and sizes where the graph knows them) against
// what shape inference, the kernels and the passes assume, before any of them looks at the node:
// a zero stride or group reaches a division in ONNX's shape inference (SIGFPE), a bad perm or
// axis indexes out of bounds. Called by the loader (so `info`, `run`, `optimize` and the window
// all refuse such a model with the same sentence) and by the CPU backend's compile (graphs built
// in code, concrete input shapes).
#pragma once

#include "core/graph/graph.h"
#include "core/runtime/errors.h"

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace graphlens {


/// Throws ValidationError for the first node (in node order, sub-graphs included) whose
/// attributes or known input ranks/sizes are out of the range its op allows. `opset` is the
/// default domain's version (some attributes became inputs over the versions).
void validateGraph(const Graph& graph, int64_t opset);

/// The bytes `node`'s outputs will take, from their inferred static shapes or, for the ops that
/// make a large tensor from a small one (ConstantOfShape, Expand, Tile, Range), from the constant
/// inputs; UINT64_MAX when the size overflows 64 bits; nullopt when it cannot be told. Folding
/// asks before evaluating, so a huge constant is declined instead of allocated.
std::optional<uint64_t> predictedOutputBytes(const Graph& graph, const Node& node);

} // namespace graphlens
