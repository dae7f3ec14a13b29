// The Inspector dock: the selected node's op, domain, name, attributes, inputs and outputs
// with types and shapes; statistics and a histogram for each constant input; and for a node a
// pass made, the rewrites and original nodes it came from, with a BatchNorm fold's numbers. For
// a collapsed group: its size, op types, parameters and FLOPs.
#pragma once

#include "core/passes/pass.h"
#include "viewer/group_summary.h"

#include <QTreeWidget>

#include <span>

namespace graphlens {

class NodeInspector : public QTreeWidget {
    Q_OBJECT
public:
    explicit NodeInspector(QWidget* parent = nullptr);

    /// Shows node `node` of `graph`; `graph` was made from `original` by the passes `applied`
    /// (oldest first), which say where a rewritten node came from.
    void showNode(const Graph& graph, NodeId node, const Graph& original, std::span<const PassResult* const> applied);
    /// Shows a name-scope group: sections "Group" (name, path, nodes, sub-groups, FLOPs),
    /// "Operators" (op type and count) and "Parameters" (tensors, elements, bytes).
    void showGroup(const GroupSummary& group);
    /// Shows nothing but a hint to select a node.
    void showNothing();

    /// The top-level row titled `title` ("Node", "Attributes", "Inputs", "Outputs", "Fused from";
    /// "Group", "Operators", "Parameters").
    QTreeWidgetItem* section(const QString& title) const;

private:
    QTreeWidgetItem* addSection(const QString& title);
    void addValueRows(QTreeWidgetItem* section, const Graph& graph, const Node& node, bool inputs);
    void addWeightStats(QTreeWidgetItem* row, const Tensor& tensor);
    void addOrigin(const Graph& original, std::span<const PassResult* const> applied, const Node& node);
};

} // namespace graphlens
