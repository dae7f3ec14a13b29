// Finding nodes for the Search panel: by a piece of the name or of the op type, or by a regular
// expression matched against either (both case-insensitive).
#pragma once

#include "core/graph/graph.h"

#include <QString>

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

} // namespace graphlens
