// The per-node values `graphlens render --heatmap` paints: median time from a profile (an ONNX
// Runtime profile, `graphlens profile --json` output, or a session run on the spot) or the bytes
// each node writes.
#pragma once

#include "core/graph/model.h"

#include <QCommandLineParser>

#include <string>
#include <unordered_map>

namespace graphlens::cli {

/// --heatmap, --profile, --scale, --runs and the run options.
void addHeatmapOptions(QCommandLineParser& parser);

/// Empty when the heatmap options fit together, else the sentence saying what is wrong.
std::string heatmapProblem(const QCommandLineParser& parser);

/// Values by node of `model` (passes applied) for --heatmap time (ms) or memory (bytes), the
/// options checked by heatmapProblem. Throws std::runtime_error with one sentence (unreadable
/// profile, failed run).
std::unordered_map<NodeId, double> heatmapValues(const Model& model, const QCommandLineParser& parser);

} // namespace graphlens::cli
