// The Inspector dock: the selected node's op, domain, name, attributes, inputs and outputs
// with types and shapes; statistics and a histogram for each constant input; and for a node a
// pass made, the rewrites and original nodes it came from, with a BatchNorm fold's numbers. For
// a collapsed group: its size, op types, parameters and FLOPs.
#pragma once

#include "core/passes/pass.h"
#include "viewer/group_summary.h"
#include "viewer/weight_stats.h"

#include <QTreeWidget>

#include <optional>
#include <span>

namespace graphlens {

/// A compared node's two tensors as the "Comparison" section shows them.
struct TensorComparison {
    QString sideA, sideB;    ///< "A: resnet50.onnx", "B: CPU"
    QString valueA, valueB;  ///< the tensors' names
    std::optional<WeightStats> a, b;
    bool compared = false;
    QString note;  ///< why it was not compared, or why the numbers could not be measured
    double maxAbsError = 0, maxRelError = 0, cosine = 1;
};

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
    /// Adds the "Comparison" section under the node shown: both tensors' names, the errors (max
    /// abs, max rel, cosine) and their statistics and histograms side by side (a TensorPairView).
    void addComparison(const TensorComparison& comparison);
    /// Shows nothing but a hint to select a node.
    void showNothing();

    /// The top-level row titled `title` ("Node", "Attributes", "Inputs", "Outputs", "Fused from";
    /// "Group", "Operators", "Parameters").
    QTreeWidgetItem* section(const QString& title) const;

private:
    QTreeWidgetItem* addSection(const QString& title);
    void addValueRows(QTreeWidgetItem* section, const Graph& graph, const Node& node, bool inputs);
    void addWeightStats(QTreeWidgetItem* row, const Tensor& tensor);
    void addQuantization(const Graph& graph, NodeId node);
    void addOrigin(const Graph& original, std::span<const PassResult* const> applied, const Node& node);
};

} // namespace graphlens
