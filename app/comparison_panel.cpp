// ComparisonPanel: buttons on top, the Error overlay's switch and legend, the summary, and the
// table of compared nodes (sortable; the first divergence's row selected when a diff comes in).
#include "app/comparison_panel.h"

#include "viewer/heat_legend_widget.h"

#include <QBoxLayout>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>

#include <cmath>

namespace graphlens {
namespace {

/// A number shown with three significant digits that sorts by its value.
class ErrorItem : public QTableWidgetItem {
public:
    /// `value` NaN: not measured, `text` says why; sorts as `unmeasured`.
    ErrorItem(double value, const QString& text, double unmeasured)
        : QTableWidgetItem(std::isfinite(value) ? QString::number(value, 'g', 3) : text), value_(std::isfinite(value) ? value : unmeasured) {
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        const auto* e = dynamic_cast<const ErrorItem*>(&other);
        return e ? value_ < e->value_ : QTableWidgetItem::operator<(other);
    }

private:
    double value_;
};

/// Sorting down by error: pairs that could not be compared (a NaN on one side) first, as the
/// worst, and nodes the comparison did not measure last.
QTableWidgetItem* errorItem(double value, const QString& text, bool measured) {
    return new ErrorItem(value, text, measured ? INFINITY : -1.0);
}

QString idleText() {
    return ComparisonPanel::tr("Compare the model shown with another file, the current step on the CPU with a Vulkan "
                               "device, or the left side with the current step (float against quantized). Each "
                               "node's relative error is painted on the graph.");
}

} // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent) {
    file_ = new QPushButton(tr("Compare with file..."), this);
    file_->setToolTip(tr("File > Compare with...: B on the right, the split becomes A vs B"));
    backends_ = new QPushButton(tr("CPU vs Vulkan"), this);
    backends_->setToolTip(tr("The current step on the CPU (A) against the Vulkan device (B), tensor by tensor"));
    steps_ = new QPushButton(tr("Left vs current step"), this);
    steps_->setToolTip(tr("The left side's graph (A) against the current step (B): float against quantized after "
                          "quantize-int8-weights, or what the passes so far changed numerically"));
    quantized_ = new QPushButton(tr("Float vs int8"), this);
    quantized_->setToolTip(tr("The current step (A) against itself after quantize-int8-weights (B): the per-node "
                              "error int8 weights bring, with each DequantizeLinear's scales in the inspector"));
    overlay_ = new QCheckBox(tr("Error overlay"), this);
    overlay_->setChecked(true);
    overlay_->setToolTip(tr("Paint each compared node by its max relative error (log scale); grey: not compared"));
    legend_ = new HeatLegendWidget(this);
    legend_->setScale(errorScale(), tr("max relative error per node"), QString());
    summary_ = new QLabel(idleText(), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = new QTableWidget(0, kDiffColumns, this);
    table_->setHorizontalHeaderLabels({tr("Node (B)"), tr("Op"), tr("Max rel"), tr("Max abs"), tr("Cosine")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(kDiffNodeColumn, QHeaderView::Stretch);
    table_->horizontalHeader()->setSortIndicator(kDiffRelColumn, Qt::DescendingOrder);  // the worst first

    // One row for the buttons and the overlay with its legend: height is scarce below the graphs.
    auto* controls = new QHBoxLayout;
    for (QPushButton* b : {file_, backends_, steps_, quantized_}) controls->addWidget(b, 0, Qt::AlignTop);
    controls->addSpacing(16);
    controls->addWidget(overlay_, 0, Qt::AlignTop);
    controls->addWidget(legend_);
    controls->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    // The summary scrolls past a few lines, so a long one never takes the graphs' height.
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(summary_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMaximumHeight(7 * summary_->fontMetrics().lineSpacing());
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(scroll);
    layout->addWidget(table_, 1);

    connect(file_, &QPushButton::clicked, this, &ComparisonPanel::fileCompareRequested);
    connect(backends_, &QPushButton::clicked, this, &ComparisonPanel::backendCompareRequested);
    connect(steps_, &QPushButton::clicked, this, &ComparisonPanel::stepCompareRequested);
    connect(quantized_, &QPushButton::clicked, this, &ComparisonPanel::quantizedCompareRequested);
    connect(overlay_, &QCheckBox::toggled, this, &ComparisonPanel::errorOverlayChanged);
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (const QTableWidgetItem* item = table_->item(row, kDiffNodeColumn)) emit nodeActivated(NodeId(item->data(Qt::UserRole).toLongLong()));
    });
}

bool ComparisonPanel::errorOverlay() const { return overlay_->isChecked(); }
void ComparisonPanel::setErrorOverlay(bool on) { overlay_->setChecked(on); }

void ComparisonPanel::setDiff(std::shared_ptr<const ModelDiff> diff) {
    diff_ = std::move(diff);
    summary_->setText(diff_ ? diffSummary(*diff_) : idleText());
    fillTable();
}

void ComparisonPanel::showMessage(const QString& text) {
    diff_.reset();
    summary_->setText(text);
    fillTable();
}

void ComparisonPanel::fillTable() {
    table_->setSortingEnabled(false);
    table_->setRowCount(0);
    if (!diff_) return;
    const ComparisonReport& r = diff_->report;
    table_->setRowCount(int(r.nodes.size()));
    NodeId first = kNoId;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
        const NodeError& e = r.nodes[i];
        const int row = int(i);
        auto* name = new QTableWidgetItem(QString::fromStdString(e.nameB));
        name->setData(Qt::UserRole, qlonglong(r.matching.matches[e.match].b));
        name->setToolTip(e.nameA == e.nameB ? name->text() : tr("%1 (A: %2)").arg(name->text(), QString::fromStdString(e.nameA)));
        table_->setItem(row, kDiffNodeColumn, name);
        table_->setItem(row, kDiffOpColumn, new QTableWidgetItem(QString::fromStdString(e.op)));
        const QString missing = e.compared ? QString::fromStdString(e.error.problem) : QString::fromStdString(e.note);
        const bool numbers = e.compared && e.error.comparable();
        table_->setItem(row, kDiffRelColumn, errorItem(numbers ? e.error.maxRelError : NAN, missing, e.compared));
        table_->setItem(row, kDiffAbsColumn, errorItem(numbers ? e.error.maxAbsError : NAN, QString(), e.compared));
        table_->setItem(row, kDiffCosineColumn, errorItem(numbers ? e.error.cosine : NAN, QString(), e.compared));
        if (e.compared) table_->item(row, kDiffRelColumn)->setBackground(errorColor(numbers ? e.error.maxRelError : INFINITY));
        if (e.compared) {
            const QColor fill = errorColor(numbers ? e.error.maxRelError : INFINITY);
            table_->item(row, kDiffRelColumn)->setForeground(prefersDarkText({uint8_t(fill.red()), uint8_t(fill.green()), uint8_t(fill.blue())}) ? Qt::black : Qt::white);
        }
        if (r.firstDivergence == i) first = r.matching.matches[e.match].b;
    }
    table_->setSortingEnabled(true);  // by the header's indicator: max rel, the worst first
    for (int row = 0; row < table_->rowCount() && first != kNoId; ++row)
        if (NodeId(table_->item(row, kDiffNodeColumn)->data(Qt::UserRole).toLongLong()) == first) table_->selectRow(row);
}

} // namespace graphlens
