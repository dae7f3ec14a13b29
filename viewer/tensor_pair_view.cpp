// TensorPairView: labels in a grid (statistic, A, B), then two HistogramWidgets in a row.
#include "viewer/tensor_pair_view.h"

#include "viewer/histogram_widget.h"

#include <QGridLayout>
#include <QLabel>

namespace graphlens {
namespace {

QString statText(const std::optional<WeightStats>& s, PairStatRow row) {
    if (!s) return QStringLiteral("–");
    switch (row) {
    case kPairMinRow: return QString::number(s->min, 'g', 5);
    case kPairMaxRow: return QString::number(s->max, 'g', 5);
    case kPairMeanRow: return QString::number(s->mean, 'g', 5);
    case kPairStdRow: return QString::number(s->std, 'g', 5);
    case kPairNonFiniteRow: return QString::number(s->nonFinite);
    default: return {};
    }
}

} // namespace

TensorPairView::TensorPairView(const std::optional<WeightStats>& a, const std::optional<WeightStats>& b, const QString& titleA,
                               const QString& titleB, QWidget* parent)
    : QWidget(parent) {
    grid_ = new QGridLayout(this);
    grid_->setContentsMargins(2, 2, 2, 2);
    grid_->setHorizontalSpacing(10);
    grid_->setVerticalSpacing(1);
    const auto bold = [this](const QString& text) {
        auto* label = new QLabel(text, this);
        QFont f = label->font();
        f.setBold(true);
        label->setFont(f);
        return label;
    };
    grid_->addWidget(bold(titleA), 0, 1);
    grid_->addWidget(bold(titleB), 0, 2);
    const QString names[kPairStatRows] = {tr("min"), tr("max"), tr("mean"), tr("std"), tr("NaN/Inf")};
    for (int row = 0; row < kPairStatRows; ++row) {
        grid_->addWidget(new QLabel(names[row], this), row + 1, 0);
        grid_->addWidget(new QLabel(statText(a, PairStatRow(row)), this), row + 1, 1);
        grid_->addWidget(new QLabel(statText(b, PairStatRow(row)), this), row + 1, 2);
    }
    int column = 1;
    for (const std::optional<WeightStats>& s : {a, b}) {
        if (s) grid_->addWidget(new HistogramWidget(*s, this), kPairStatRows + 1, column);
        ++column;
    }
    grid_->setColumnStretch(1, 1);
    grid_->setColumnStretch(2, 1);
}

QString TensorPairView::cellText(PairStatRow row, int side) const {
    auto* label = qobject_cast<QLabel*>(grid_->itemAtPosition(int(row) + 1, side + 1)->widget());
    return label ? label->text() : QString();
}

} // namespace graphlens
