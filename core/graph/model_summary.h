// What `graphlens info` reports about a model: counts, op histogram, parameters, FLOPs.
#pragma once

#include "core/graph/model.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

/// Floating-point operations of one node (a multiply-add counts 2), for Conv, ConvTranspose,
/// Gemm and MatMul (and com.microsoft FusedConv, FusedGemm); nullopt for other ops or when shapes
/// are not known. Symbolic dims count as 1.
std::optional<int64_t> estimateNodeFlops(const Graph& graph, const Node& node);

struct ModelSummary {
    size_t nodes = 0;
    std::map<std::string, int> ops;  ///< op type ("domain:Op" outside the default domain) -> count
    int64_t parameters = 0;          ///< elements of initializers and Constant tensors
    int64_t parameterBytes = 0;
    int64_t flops = 0;               ///< sum of estimateNodeFlops over the nodes that have one
    size_t nodesWithFlops = 0;
    /// The symbolic input dims the FLOPs take as 1 ({"batch", "sequence"}); empty when the
    /// inputs are static. The counts come from shapes inferred again with those sizes, so a
    /// graph before and after the passes count alike.
    std::vector<std::string> unitDims;
    size_t initializers = 0;
    /// False when the count was asked on the shapes as loaded (FlopShapes::AsLoaded) and some
    /// node needed static shapes to be counted: `flops` is then short.
    bool flopsComplete = true;
};

/// Which shapes summarize() counts FLOPs on.
enum class FlopShapes {
    Static,    ///< symbolic dims as 1, shape computations folded (a shape inference per layer)
    AsLoaded,  ///< the shapes the graph has: instant, short when those are not static
};

/// `cancelled` (FlopShapes::Static only) may cut the shape folding short: see graphWithStaticShapes().
ModelSummary summarize(const Model& model, FlopShapes shapes = FlopShapes::Static, const std::function<bool()>& cancelled = {});

/// "with batch, sequence = 1" for `unitDims` {"batch", "sequence"}: what a FLOP count assumed.
/// Empty when `unitDims` is.
std::string unitDimsNote(const std::vector<std::string>& unitDims);

} // namespace graphlens
