// HeatLegendItem: a bar of the ramp sampled along its width, tick marks and labels below it.
#include "viewer/heat_legend_item.h"

#include <QFontMetricsF>
#include <QPainter>

#include <cmath>
#include <utility>

namespace graphlens {
namespace {

constexpr qreal kBarWidth = 320;
constexpr qreal kBarHeight = 14;

QColor qColor(Rgb c) { return QColor(c.r, c.g, c.b); }

} // namespace

QString siLabel(double value, const QString& unit) {
    static const std::pair<double, const char*> kPrefixes[] = {
        {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}};
    if (value == 0) return "0 " + unit;
    std::pair<double, const char*> chosen{1e-9, "n"};
    for (const auto& prefix : kPrefixes)
        if (std::abs(value) >= prefix.first * 0.9995) {
            chosen = prefix;
            break;
        }
    return QString::number(value / chosen.first, 'g', 3) + " " + QString::fromUtf8(chosen.second) + unit;
}

HeatLegendItem::HeatLegendItem(HeatScale scale, QString title, QString unit, QFont font, QColor text)
    : scale_(scale), title_(std::move(title)), unit_(std::move(unit)), font_(std::move(font)), text_(std::move(text)) {}

QRectF HeatLegendItem::boundingRect() const {
    const qreal line = QFontMetricsF(font_).height();
    return QRectF(-40, 0, kBarWidth + 80, 2 * line + kBarHeight + 12);
}

void HeatLegendItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const QFontMetricsF metrics(font_);
    const qreal line = metrics.height();
    painter->setFont(font_);
    painter->setPen(text_);
    painter->drawText(QRectF(0, 0, kBarWidth, line), Qt::AlignLeft | Qt::AlignVCenter, title_);
    const qreal top = line + 4;
    for (int x = 0; x < int(kBarWidth); ++x)
        painter->fillRect(QRectF(x, top, 1.5, kBarHeight), qColor(heatColor((x + 0.5) / kBarWidth)));
    painter->setPen(QPen(text_, 1));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(QRectF(0, top, kBarWidth, kBarHeight));
    for (double tick : scale_.ticks()) {
        const qreal x = scale_.position(tick) * kBarWidth;
        painter->drawLine(QPointF(x, top + kBarHeight), QPointF(x, top + kBarHeight + 4));
        const QString label = siLabel(tick, unit_);
        const qreal w = metrics.horizontalAdvance(label);
        painter->drawText(QRectF(x - w / 2, top + kBarHeight + 6, w, line), Qt::AlignCenter, label);
    }
}

} // namespace graphlens
