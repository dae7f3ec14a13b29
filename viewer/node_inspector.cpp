// NodeInspector: a two-column tree (property, value) rebuilt for each selected node; the
// histogram of a constant input is a HistogramWidget in its own row. Long values (a BatchNorm
// fold's math, rewrite sentences) wrap at the value column's width instead of being cut off.
#include "viewer/node_inspector.h"

#include "core/graph/dtype.h"
#include "viewer/histogram_widget.h"
#include "viewer/node_label.h"
#include "viewer/node_origin.h"
#include "viewer/quant_params.h"
#include "viewer/tensor_pair_view.h"
#include "viewer/visual_graph.h"
#include "viewer/weight_stats.h"

#include <QHeaderView>
#include <QStyledItemDelegate>

#include <algorithm>

namespace graphlens {
namespace {

QString number(double v) { return QString::number(v, 'g', 6); }

template <typename T>
QString listText(const std::vector<T>& values, const auto& text) {
    QStringList parts;
    for (const T& v : values) parts << text(v);
    return "[" + parts.join(", ") + "]";
}

QString typeText(DType dtype, const QString& shape) {
    const QString type = QString::fromUtf8(dtypeName(dtype).data());
    return shape.isEmpty() ? type : type + " " + shape;
}

QString tensorText(const Tensor& t) {
    return "tensor " + typeText(t.dtype(), shapeLabel(Shape::ofSizes(t.dims())));
}

/// The value of an attribute as one line: numbers, lists, strings; tensors by type and shape.
QString attributeValueText(const Attribute& a) {
    const auto str = [](const std::string& s) { return "\"" + QString::fromStdString(s) + "\""; };
    const auto num = [](auto v) { return number(double(v)); };
    switch (a.kind()) {
    case AttributeKind::Float: return number(a.get<float>());
    case AttributeKind::Int: return QString::number(a.get<int64_t>());
    case AttributeKind::String: return str(a.get<std::string>());
    case AttributeKind::Tensor: return tensorText(a.get<Tensor>());
    case AttributeKind::Floats: return listText(a.get<std::vector<float>>(), num);
    case AttributeKind::Ints: return listText(a.get<std::vector<int64_t>>(), num);
    case AttributeKind::Strings: return listText(a.get<std::vector<std::string>>(), str);
    case AttributeKind::Tensors: return listText(a.get<std::vector<Tensor>>(), tensorText);
    default: return QString::fromUtf8(attributeKindName(a.kind()).data()).toLower();
    }
}

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& key, const QString& value) {
    auto* row = new QTreeWidgetItem(parent, {key, value});
    row->setToolTip(1, value);
    return row;
}

/// "channel 0: k = 1.2 / sqrt(0.09 + 1e-05) = 3.9998, b = 0.1 - 0.5 * 3.9998 = -1.8999"
QString channelText(const ChannelFold& c, float eps) {
    const auto n = [](float v) { return QString::number(double(v), 'g', 5); };
    return QStringLiteral("k = %1 / sqrt(%2 + %3) = %4, b = %5 - %6 * %4 = %7")
        .arg(n(c.gamma), n(c.var), n(eps), n(c.k), n(c.beta), n(c.mean), n(c.b));
}

/// Rows as tall as their value wrapped at the value column's width (the tree's own size hints
/// measure the text on one line).
class WrappingDelegate : public QStyledItemDelegate {
public:
    explicit WrappingDelegate(QTreeView* tree) : QStyledItemDelegate(tree), tree_(tree) {}

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
        if (index.column() == 0) return QStyledItemDelegate::sizeHint(option, index);  // keys stay on one line
        QStyleOptionViewItem wrapped(option);
        wrapped.features |= QStyleOptionViewItem::WrapText;
        wrapped.rect = QRect(0, 0, std::max(40, tree_->columnWidth(index.column())), 1);
        return QStyledItemDelegate::sizeHint(wrapped, index);
    }

protected:
    /// Keys and values start on the first line of a wrapped row.
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->displayAlignment = Qt::AlignLeft | Qt::AlignTop;
    }

private:
    QTreeView* tree_;
};

} // namespace

NodeInspector::NodeInspector(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(2);
    setHeaderLabels({tr("Property"), tr("Value")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setUniformRowHeights(false);
    setWordWrap(true);
    setIndentation(14);
    setItemDelegate(new WrappingDelegate(this));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // values wrap instead
    // The value column's width decides the row heights: measure them again when it changes.
    connect(header(), &QHeaderView::sectionResized, this, [this](int section) {
        if (section == 1) scheduleDelayedItemsLayout();
    });
    showNothing();
}

QTreeWidgetItem* NodeInspector::addSection(const QString& title) {
    auto* item = new QTreeWidgetItem(this, {title});
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setFirstColumnSpanned(true);
    item->setExpanded(true);
    return item;
}

QTreeWidgetItem* NodeInspector::section(const QString& title) const {
    for (int i = 0; i < topLevelItemCount(); ++i)
        if (topLevelItem(i)->text(0) == title) return topLevelItem(i);
    return nullptr;
}

void NodeInspector::showNothing() {
    clear();
    addRow(invisibleRootItem(), tr("Select a node to inspect it."), QString());
}

void NodeInspector::showNode(const Graph& graph, NodeId id, const Graph& original,
                             std::span<const PassResult* const> applied) {
    clear();
    if (!graph.hasNode(id)) return showNothing();
    const Node& node = graph.node(id);
    QTreeWidgetItem* about = addSection(tr("Node"));
    addRow(about, tr("op"), QString::fromStdString(node.opType));
    addRow(about, tr("domain"), node.domain.empty() ? QStringLiteral("ai.onnx") : QString::fromStdString(node.domain));
    addRow(about, tr("name"), QString::fromStdString(node.name));
    if (!node.docString.empty()) addRow(about, tr("doc"), QString::fromStdString(node.docString));  // "tf_op: _FusedConv2D"
    if (!node.attributes.empty()) {
        QTreeWidgetItem* attributes = addSection(tr("Attributes"));
        for (const auto& [name, value] : node.attributes) addRow(attributes, QString::fromStdString(name), attributeValueText(value));
    }
    addValueRows(addSection(tr("Inputs")), graph, node, true);
    addValueRows(addSection(tr("Outputs")), graph, node, false);
    addOrigin(original, applied, node);
    addQuantization(graph, id);
    expandAll();
}

void NodeInspector::addQuantization(const Graph& graph, NodeId id) {
    const std::vector<QuantParams> params = quantParamsAround(graph, id);
    if (params.empty()) return;
    QTreeWidgetItem* section = addSection(tr("Quantization"));
    for (const QuantParams& q : params) {
        QTreeWidgetItem* parent = section;
        if (q.node != id)  // a Q/DQ node feeding this one
            parent = addRow(section, tr("input from"), QStringLiteral("%1 %2").arg(QString::fromStdString(q.op), QString::fromStdString(q.nodeName)));
        addRow(parent, tr("tensor"), QString::fromStdString(q.valueName));
        addRow(parent, tr("granularity"), q.channels == 1 ? tr("per-tensor") : tr("per-channel (%1 channels, axis %2)").arg(q.channels).arg(q.axis));
        addRow(parent, tr("scale"), QString::fromStdString(scaleText(q)));
        addRow(parent, tr("zero point"), QString::fromStdString(zeroPointText(q)));
    }
}

void NodeInspector::addComparison(const TensorComparison& c) {
    QTreeWidgetItem* section = addSection(tr("Comparison"));
    addRow(section, c.sideA, c.valueA);
    addRow(section, c.sideB, c.valueB);
    if (c.compared && c.note.isEmpty()) {
        addRow(section, tr("max abs error"), number(c.maxAbsError));
        addRow(section, tr("max rel error"), number(c.maxRelError));
        addRow(section, tr("cosine"), QString::number(c.cosine, 'f', 6));
    } else {
        addRow(section, tr("not compared"), c.note);
    }
    auto* row = new QTreeWidgetItem(section);
    row->setFirstColumnSpanned(true);
    auto* view = new TensorPairView(c.a, c.b, tr("A"), tr("B"));  // the rows above name the sides
    // Only the height: the row spans both columns, and a width here would widen the key column
    // (it fits its contents) until the values are pushed out of a narrow dock.
    row->setSizeHint(0, QSize(1, view->sizeHint().height()));
    setItemWidget(row, 0, view);
    section->setExpanded(true);
}

void NodeInspector::showGroup(const GroupSummary& group) {
    clear();
    QTreeWidgetItem* about = addSection(tr("Group"));
    addRow(about, tr("name"), QString::fromStdString(group.name));
    addRow(about, tr("path"), QString::fromStdString(group.path));
    addRow(about, tr("nodes"), QString::number(group.nodes));
    addRow(about, tr("sub-groups"), QString::number(group.subgroups));
    addRow(about, tr("FLOPs"), QStringLiteral("%L1").arg(group.flops));
    QTreeWidgetItem* ops = addSection(tr("Operators"));
    for (const auto& [op, count] : group.ops) addRow(ops, QString::fromStdString(op), QString::number(count));
    QTreeWidgetItem* parameters = addSection(tr("Parameters"));
    addRow(parameters, tr("tensors"), QString::number(group.parameterTensors));
    addRow(parameters, tr("elements"), QStringLiteral("%L1").arg(group.parameters));
    addRow(parameters, tr("bytes"), QStringLiteral("%L1").arg(group.parameterBytes));
    expandAll();
}

void NodeInspector::addValueRows(QTreeWidgetItem* section, const Graph& graph, const Node& node, bool inputs) {
    const std::vector<ValueId>& values = inputs ? node.inputs() : node.outputs();
    for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] == kNoId) continue;
        const Value& v = graph.value(values[i]);
        const QString role = inputs ? inputRoleName(node, int(i)) : QString::number(i);
        const Tensor* constant = inputs ? parameterTensor(graph, v.id) : nullptr;
        const QString type = constant ? typeText(constant->dtype(), shapeLabel(graphlens::Shape::ofSizes(constant->dims())))
                                      : typeText(v.dtype, shapeLabel(v.shape));
        QTreeWidgetItem* row = addRow(section, role, QString::fromStdString(v.name) + ": " + type);
        if (constant) addWeightStats(row, *constant);
    }
}

void NodeInspector::addWeightStats(QTreeWidgetItem* row, const Tensor& tensor) {
    const std::optional<WeightStats> stats = weightStats(tensor);
    if (!stats) return;
    addRow(row, tr("elements"), QString::number(stats->count));
    addRow(row, tr("min"), number(stats->min));
    addRow(row, tr("max"), number(stats->max));
    addRow(row, tr("mean"), number(stats->mean));
    addRow(row, tr("std"), number(stats->std));
    addRow(row, tr("sparsity"), tr("%1 % (%2 zeros)").arg(number(100 * stats->sparsity())).arg(stats->zeros));
    if (stats->nonFinite > 0) addRow(row, tr("not finite"), QString::number(stats->nonFinite));
    QTreeWidgetItem* histogram = addRow(row, tr("histogram"), QString());
    auto* chart = new HistogramWidget(*stats);
    histogram->setSizeHint(1, chart->sizeHint());
    setItemWidget(histogram, 1, chart);
}

void NodeInspector::addOrigin(const Graph& original, std::span<const PassResult* const> applied, const Node& node) {
    const NodeOrigin origin = nodeOrigin(original, applied, node);
    if (origin.rewrites.empty() && origin.sources.empty()) return;
    QTreeWidgetItem* fused = addSection(tr("Fused from"));
    for (const std::string& sentence : origin.rewrites) addRow(fused, tr("rewrite"), QString::fromStdString(sentence));
    for (const NodeRef& source : origin.sources)
        addRow(fused, tr("source"), QStringLiteral("%1 (%2)").arg(QString::fromStdString(source.name), QString::fromStdString(source.opType)));
    for (const BatchNormFold& fold : origin.batchNorms) {
        QTreeWidgetItem* bn = addRow(fused, tr("BatchNorm fold"),
                                     tr("%1: k = gamma / sqrt(var + eps), b = beta - mean * k; W' = W * k per output "
                                        "channel, bias' = bias * k + b (%2 channels)")
                                         .arg(QString::fromStdString(fold.batchNorm.name))
                                         .arg(fold.channels));
        for (size_t c = 0; c < fold.first.size(); ++c)
            addRow(bn, tr("channel %1").arg(c), channelText(fold.first[c], fold.epsilon));
    }
}

} // namespace graphlens
