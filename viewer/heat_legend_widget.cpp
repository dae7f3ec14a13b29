// HeatLegendWidget: a HeatLegendItem painted straight onto the widget, with the ends of the scale
// written under it.
#include "viewer/heat_legend_widget.h"

#include "viewer/heat_legend_item.h"

#include <QPainter>

#include <algorithm>

namespace graphlens {

HeatLegendWidget::HeatLegendWidget(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void HeatLegendWidget::setScale(HeatScale scale, QString title, QString unit) {
    scale_ = scale;
    title_ = std::move(title);
    unit_ = std::move(unit);
    setToolTip(tr("%1 to %2").arg(lowLabel(), highLabel()));
    update();
}

void HeatLegendWidget::clear() {
    scale_.reset();
    setToolTip({});
    update();
}

QString HeatLegendWidget::lowLabel() const { return scale_ ? siLabel(scale_->low(), unit_) : QString(); }
QString HeatLegendWidget::highLabel() const { return scale_ ? siLabel(scale_->high(), unit_) : QString(); }

/// The ramp as long as the widget allows, from 120 px up to the canvas legend's.
qreal HeatLegendWidget::barWidth() const {
    return std::clamp<qreal>(width() - HeatLegendItem::kLabelOverhang, 120, HeatLegendItem::kDefaultBarWidth);
}

QSize HeatLegendWidget::minimumSizeHint() const { return {int(120 + HeatLegendItem::kLabelOverhang), sizeHint().height()}; }

QSize HeatLegendWidget::sizeHint() const {
    const QRectF bounds = HeatLegendItem(HeatScale(0, 1, HeatScaleKind::Linear), {}, {}, font(), {}).boundingRect();
    return QSize(int(bounds.width()), int(bounds.height() + fontMetrics().height() + 4));
}

void HeatLegendWidget::paintEvent(QPaintEvent*) {
    if (!scale_) return;
    QPainter painter(this);
    const QColor text = palette().color(QPalette::WindowText);
    HeatLegendItem item(*scale_, title_, unit_, font(), text, barWidth());
    const QRectF bounds = item.boundingRect();
    painter.translate(-bounds.left(), 0);
    item.paint(&painter, nullptr, nullptr);
    painter.resetTransform();
    painter.setPen(text);
    const QRectF ends(0, bounds.height(), width(), fontMetrics().height());
    painter.drawText(ends, Qt::AlignLeft, tr("min %1").arg(lowLabel()));
    painter.drawText(ends, Qt::AlignRight, tr("max %1").arg(highLabel()));
}

} // namespace graphlens
