// What File > Save optimized model and File > Export write: the current step's model as ONNX
// (fused operators kept for ONNX Runtime, or lowered to standard ONNX operators only, as
// `graphlens optimize --portable` does), and a pane's drawing as SVG or PNG. Every file is written
// under a temporary name and renamed into place, so a failed write leaves nothing behind.
#pragma once

#include "core/graph/model.h"

#include <QString>

namespace graphlens {

class GraphPane;

/// "<folder>/<stem>-optimized.onnx" beside `modelPath`.
QString suggestedModelPath(const QString& modelPath);

/// Writes `model` to `path`: fused operators ONNX Runtime cannot run are lowered first, and with
/// `standardOpsOnly` every operator outside the standard ONNX domain is. Safe on a worker
/// thread (it works on its own copy). Throws std::exception with one sentence.
void writeOptimizedModel(Model model, const QString& path, bool standardOpsOnly);

/// `path` with ".svg" or ".png" appended when it ends in neither: the one `filter` (a file
/// dialog's chosen filter) names, SVG when it names none.
QString withImageSuffix(const QString& path, const QString& filter);

/// Writes what `pane` shows, its view's visible part or (with `wholeGraph`) its whole graph, to
/// `path` as SVG (text stays text) or PNG by the extension. Throws std::exception with one sentence.
void exportPaneImage(GraphPane& pane, const QString& path, bool wholeGraph, const QString& title);

} // namespace graphlens
