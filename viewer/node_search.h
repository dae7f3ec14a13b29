// Finding nodes for the Search panel: by a piece of the name or of the op type, or by a regular
// expression matched against either (both case-insensitive), on one graph or on both sides of
// the split view.
#pragma once

#include "core/graph/graph.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace graphlens {

struct NodeSearch {
    std::vector<NodeId> nodes;  ///< matching nodes the canvas draws as boxes, in topological order
    QString error;              ///< why a regular expression is not valid; empty when it is
};

/// The nodes of `graph` whose name or op type contains `text` or, with `regex`, matches the
/// regular expression `text`. Constant nodes and other nodes drawn as parameters are left out.
/// Empty text finds nothing.
NodeSearch searchNodes(const Graph& graph, const QString& text, bool regex);

/// The side of the split view a search result is on; Both when the two sides show the same
/// graph (before any pass is applied).
enum class SearchSide : uint8_t { Before, After, Both };

/// "before", "after", "both".
QString sideName(SearchSide side);

struct SearchHit {
    SearchSide side = SearchSide::After;
    NodeId node = kNoId;
};

struct SplitSearch {
    std::vector<SearchHit> hits;  ///< the before side's matches, then the after side's
    size_t beforeCount = 0;       ///< hits on the before side (Both counts on each side)
    size_t afterCount = 0;
    QString error;
};

/// searchNodes() on both sides; when `before` and `after` are the same graph object, each match
/// is listed once, as Both.
SplitSearch searchBothSides(const Graph& before, const Graph& after, const QString& text, bool regex);

} // namespace graphlens
