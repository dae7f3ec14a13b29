// searchNodes: one predicate built from the query, applied to the drawn nodes in order;
// searchBothSides runs it on each side of the split view.
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

QString sideName(SearchSide side) {
    switch (side) {
    case SearchSide::Before: return QObject::tr("before");
    case SearchSide::After: return QObject::tr("after");
    case SearchSide::Both: return QObject::tr("both");
    }
    return {};
}

SplitSearch searchBothSides(const Graph& before, const Graph& after, const QString& text, bool regex) {
    SplitSearch split;
    const bool same = &before == &after;
    const NodeSearch first = searchNodes(before, text, regex);
    split.error = first.error;
    for (NodeId id : first.nodes) split.hits.push_back({same ? SearchSide::Both : SearchSide::Before, id});
    split.beforeCount = first.nodes.size();
    if (same) {
        split.afterCount = split.beforeCount;
        return split;
    }
    const NodeSearch second = searchNodes(after, text, regex);
    for (NodeId id : second.nodes) split.hits.push_back({SearchSide::After, id});
    split.afterCount = second.nodes.size();
    return split;
}

} // namespace graphlens
