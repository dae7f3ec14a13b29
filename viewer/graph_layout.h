// Places a VisualGraph with Graphviz (cgraph + gvc, engine dot, spline edges, top to bottom):
// box rectangles, edge splines from border to border, edge label positions, group frames.
// No widgets: it runs in a worker thread, and Graphviz calls are serialized inside.
#pragma once

#include "core/graph/graph.h"
#include "viewer/visual_graph.h"

#include <optional>
#include <stdexcept>

namespace graphlens {

/// Thrown when Graphviz cannot lay a graph out; the message is one sentence.
class LayoutError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct LayoutOptions {
    qreal rankSeparation = 30;  ///< scene units between ranks (room for the edge labels)
    qreal nodeSeparation = 16;  ///< scene units between boxes of one rank
    qreal frameMargin = 8;      ///< space between a group frame and what it holds
};

/// Sets `rect` of every box, `path` and `labelRect` of every edge, `rect` of every frame and
/// `bounds`, in scene coordinates (y grows downwards, the boxes start at 0,0; edge labels may
/// stick out to the right). `measure`
/// sizes the edge labels (fixedTextMeasure() when empty). Safe to call from any thread: the
/// Graphviz context is shared and its calls take one lock. Graphviz 2.43 keeps some network
/// simplex state between calls, so a graph with frames may come out a few units shifted when
/// laid out twice in one process (flat graphs come out the same). Throws LayoutError.
void layoutVisualGraph(VisualGraph& graph, const LayoutOptions& options = {}, const TextMeasure& measure = {});

/// Everything at once: scope groups, the automatic collapse for graphs of more than
/// `maxVisibleNodes` boxes unless `collapseDepth` says how many group levels to expand
/// (-1: all), the boxes and the layout.
struct GraphLayoutRequest {
    std::optional<int> collapseDepth = std::nullopt;
    size_t maxVisibleNodes = 1000;
    bool groupFrames = true;
    TextMeasure measure = {};
    LayoutOptions layout = {};
};
VisualGraph layoutGraph(const Graph& graph, const GraphLayoutRequest& request = {});

} // namespace graphlens
