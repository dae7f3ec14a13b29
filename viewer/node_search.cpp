// searchNodes: one predicate built from the query, applied to the drawn nodes in order.
#include "viewer/node_search.h"

#include "viewer/node_label.h"
#include "viewer/visual_graph.h"

#include <QRegularExpression>

namespace graphlens {

NodeSearch searchNodes(const Graph& graph, const QString& text, bool regex) {
    NodeSearch search;
    if (text.isEmpty()) return search;
    const QRegularExpression pattern = regex ? QRegularExpression(text, QRegularExpression::CaseInsensitiveOption)
                                             : QRegularExpression();
    if (!pattern.isValid()) {
        search.error = QObject::tr("Invalid regular expression at position %1: %2")
                           .arg(pattern.patternErrorOffset())
                           .arg(pattern.errorString());
        return search;
    }
    const auto matches = [&](const QString& s) {
        return regex ? pattern.match(s).hasMatch() : s.contains(text, Qt::CaseInsensitive);
    };
    for (NodeId id : drawingOrder(graph)) {
        const Node& node = graph.node(id);
        if (isDrawnAsParameter(graph, node)) continue;
        if (matches(QString::fromStdString(node.name)) || matches(QString::fromStdString(node.opType)))
            search.nodes.push_back(id);
    }
    return search;
}

} // namespace graphlens
