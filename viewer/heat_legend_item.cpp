// HeatLegendItem: a bar of the ramp sampled along its width, tick marks and labels below it.
#include "viewer/heat_legend_item.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <utility>

namespace graphlens {
namespace {

constexpr qreal kBarHeight = 14;

QColor qColor(Rgb c) { return QColor(c.r, c.g, c.b); }

} // namespace

QString siLabel(double value, const QString& unit) {
    static const std::pair<double, const char*> kPrefixes[] = {
        {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}};
    if (unit.isEmpty()) return QString::number(value, 'g', 3);  // a ratio (relative error): 1e-05, 0.01
    if (value == 0) return "0 " + unit;
    std::pair<double, const char*> chosen{1e-9, "n"};
    for (const auto& prefix : kPrefixes)
        if (std::abs(value) >= prefix.first * 0.9995) {
            chosen = prefix;
            break;
        }
    return QString::number(value / chosen.first, 'g', 3) + " " + QString::fromUtf8(chosen.second) + unit;
}

HeatLegendItem::HeatLegendItem(HeatScale scale, QString title, QString unit, QFont font, QColor text, qreal barWidth)
    : scale_(scale), title_(std::move(title)), unit_(std::move(unit)), font_(std::move(font)), text_(std::move(text)),
      barWidth_(barWidth) {}

QRectF HeatLegendItem::boundingRect() const {
    const qreal line = QFontMetricsF(font_).height();
    return QRectF(-kLabelOverhang / 2, 0, barWidth_ + kLabelOverhang, 2 * line + kBarHeight + 12);
}

void HeatLegendItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const QFontMetricsF metrics(font_);
    const qreal line = metrics.height();
    painter->setFont(font_);
    painter->setPen(text_);
    painter->drawText(QRectF(0, 0, barWidth_, line), Qt::AlignLeft | Qt::AlignVCenter, title_);
    const qreal top = line + 4;
    for (int x = 0; x < int(barWidth_); ++x)
        painter->fillRect(QRectF(x, top, 1.5, kBarHeight), qColor(heatColor((x + 0.5) / barWidth_)));
    painter->setPen(QPen(text_, 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(QRectF(0, top, barWidth_, kBarHeight));
    for (double tick : scale_.ticks(std::clamp(int(barWidth_ / 50), 2, 6))) {  // a label every 50 px at most
        const qreal x = scale_.position(tick) * barWidth_;
        painter->drawLine(QPointF(x, top + kBarHeight), QPointF(x, top + kBarHeight + 4));
        const QString label = siLabel(tick, unit_);
        const qreal w = metrics.horizontalAdvance(label);
        painter->drawText(QRectF(x - w / 2, top + kBarHeight + 6, w, line), Qt::AlignCenter, label);
    }
}

} // namespace graphlens
