// Export of a per-node overlay (time, memory, ...) as Model Explorer node data, the JSON its
// "node data" panel loads: {GRAPH_ID: {"results": {NODE_ID: {"value": N}}, "gradient": [...]}}.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace graphlens {

/// `values` keyed by node name (Model Explorer's ONNX adapters use node names as node ids) under
/// graph `graphId`, with a gradient from the heat ramp's coolest to its hottest color.
std::string modelExplorerNodeData(const std::vector<std::pair<std::string, double>>& values,
                                  const std::string& graphId = "main_graph");

} // namespace graphlens
