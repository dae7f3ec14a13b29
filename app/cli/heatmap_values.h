// The per-node values `graphlens render --heatmap` paints: median time from a profile (an ONNX
// Runtime profile, `graphlens profile --json` output, or a session run on the spot) or the bytes
// each node writes; and the painting itself, which `graphlens compare --heatmap` shares for the
// relative error per node.
#pragma once

#include "core/graph/model.h"
#include "profiler/heat_scale.h"

#include <QCommandLineParser>

#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens {
class GraphScene;
}

namespace graphlens::cli {

/// --heatmap, --profile, --scale, --runs and the run options.
void addHeatmapOptions(QCommandLineParser& parser);

/// Empty when the heatmap options fit together, else the sentence saying what is wrong.
std::string heatmapProblem(const QCommandLineParser& parser);

/// A heatmap's values by node, and the nodes that have none of their own because the backend ran
/// them inside another node's kernel (fusedAway() in node_profile.h; time heatmaps only).
struct NodeHeat {
    std::unordered_map<NodeId, double> values;
    std::vector<NodeId> fused;
};

/// Values by node of `model` (passes applied) for --heatmap time (ms) or memory (bytes), the
/// options checked by heatmapProblem. Throws std::runtime_error with one sentence (unreadable
/// profile, failed run).
NodeHeat heatmapValues(const Model& model, const QCommandLineParser& parser);

/// Fills each node of `scene` with its value's color on `scale`, the fused ones grey
/// (kFusedNodeColor, said so in the legend), and puts a legend (`title`, ticks in `unit` with SI
/// prefixes; plain numbers when `unit` is empty) above the graph. `legendFactor` converts values to
/// the legend's unit (ms -> s: 1e-3).
void paintNodeHeat(GraphScene& scene, const NodeHeat& heat, const HeatScale& scale, const QString& title,
                   const QString& unit, double legendFactor = 1);

} // namespace graphlens::cli
