// ModelOverview: the model as a tree of sections, filled from the IR and its summary.
#include "viewer/model_overview.h"

#include <QHeaderView>

namespace graphlens {
namespace {

QString typeText(const Value& v) {
    return QString::fromStdString(std::string(dtypeName(v.dtype)) + " " + v.shape.toString());
}

} // namespace

ModelOverview::ModelOverview(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(2);
    setHeaderLabels({tr("Item"), tr("Details")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setUniformRowHeights(true);
    connect(this, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) {
        if (item == nodesItem_) addPendingNodeRows();
    });
}

QTreeWidgetItem* ModelOverview::addSection(const QString& title, const QString& detail) {
    auto* item = new QTreeWidgetItem(this, {title, detail});
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    return item;
}

void ModelOverview::addPendingNodeRows() {
    if (!nodesItem_ || pendingNodeRows_.empty()) return;
    QList<QTreeWidgetItem*> rows;
    rows.reserve(qsizetype(pendingNodeRows_.size()));
    for (const auto& [name, op] : pendingNodeRows_)
        rows.append(new QTreeWidgetItem({QString::fromStdString(name), QString::fromStdString(op)}));
    pendingNodeRows_.clear();
    nodesItem_->addChildren(rows);
}

void ModelOverview::showModel(const Model& model) { showModel(model, summarize(model)); }

void ModelOverview::showModel(const Model& model, const ModelSummary& summary) {
    clear();
    nodesItem_ = flopsItem_ = nullptr;
    const Graph& g = model.graph;
    auto* inputs = addSection(tr("Inputs"), QString::number(g.inputs().size()));
    for (ValueId v : g.inputs())
        if (!g.value(v).initializer)
            new QTreeWidgetItem(inputs, {QString::fromStdString(g.value(v).name), typeText(g.value(v))});
    auto* outputs = addSection(tr("Outputs"), QString::number(g.outputs().size()));
    for (ValueId v : g.outputs())
        new QTreeWidgetItem(outputs, {QString::fromStdString(g.value(v).name), typeText(g.value(v))});
    auto* ops = addSection(tr("Operators"), tr("%1 types").arg(summary.ops.size()));
    for (const auto& [op, count] : summary.ops)
        new QTreeWidgetItem(ops, {QString::fromStdString(op), QString::number(count)});
    addSection(tr("Parameters"), tr("%L1 (%L2 bytes)").arg(summary.parameters).arg(summary.parameterBytes));
    flopsItem_ = addSection(tr("FLOPs"), QString());
    showFlops(summary);
    nodesItem_ = addSection(tr("Nodes"), QString::number(summary.nodes));
    pendingNodeRows_.clear();
    for (NodeId id : g.topologicalOrder()) {
        const Node& n = g.node(id);
        pendingNodeRows_.emplace_back(n.name.empty() ? n.opType : n.name, n.opType);
    }
    // A big graph's rows are made when the section is first opened: 60,000 items take 0.4 s.
    if (pendingNodeRows_.size() <= kEagerNodeRows) addPendingNodeRows();
    else nodesItem_->setChildIndicatorPolicy(QTreeWidgetItem::ShowIndicator);
    if (!model.warnings.empty()) {
        auto* warnings = addSection(tr("Warnings"), QString::number(model.warnings.size()));
        for (const std::string& w : model.warnings)
            new QTreeWidgetItem(warnings, {QString(), QString::fromStdString(w)});
    }
    for (int i = 0; i < topLevelItemCount() - 1; ++i)
        if (topLevelItem(i)->childCount() <= 12) topLevelItem(i)->setExpanded(true);
}

void ModelOverview::showFlops(const ModelSummary& summary) {
    if (!flopsItem_) return;
    QString flops = summary.flopsComplete ? QString("%L1").arg(summary.flops) : tr("counting...");
    if (summary.flopsComplete && !summary.unitDims.empty())
        flops += QStringLiteral(" (%1)").arg(QString::fromStdString(unitDimsNote(summary.unitDims)));
    flopsItem_->setText(1, flops);
}

int ModelOverview::nodeRowCount() const {
    return nodesItem_ ? nodesItem_->childCount() + int(pendingNodeRows_.size()) : 0;
}

} // namespace graphlens
