// Every shape of a graph made static for figures that need numbers (FLOPs): symbolic input dims
// taken as given sizes (1 by default), ONNX shape inference, and, where it cannot see through a
// shape computation (a Reshape to Concat(Shape(x)[0], Shape(x)[2] / heads, ...)), the shapes of a
// copy whose shape computations fold-shapes turned into constants.
#pragma once

#include "core/graph/model.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace graphlens {

/// The symbolic (or unnamed dynamic) dims of `graph`'s inputs, each once, in input order:
/// {"batch", "sequence"}; an unnamed one reads "?".
std::vector<std::string> symbolicInputDims(const Graph& graph);

/// The sizes of the inputs of `graph` that have a symbolic or unknown dim, with those dims 1.
std::map<std::string, std::vector<int64_t>> unitInputShapes(const Graph& graph);

/// `model`'s graph, node for node and value for value, with its input sizes set to `inputShapes`
/// and every shape inferred again, through shape computations too; a shape still unknown stays
/// as it was. Weights are shared, not copied. The graph as it is when shape inference fails.
/// Folding takes a shape inference per layer (seconds on a 66-layer transformer): `cancelled`,
/// when given, is asked between rounds, and a true answer stops with the shapes known so far.
Graph graphWithStaticShapes(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes,
                            const std::function<bool()>& cancelled = {});

} // namespace graphlens
