// The legend of a heatmap on the canvas: the color ramp as a bar, its ticks labelled with SI
// prefixes and a unit, and a title above it.
#pragma once

#include "profiler/heat_scale.h"

#include <QFont>
#include <QGraphicsItem>
#include <QString>

namespace graphlens {

class HeatLegendItem : public QGraphicsItem {
public:
    /// `unit` follows each tick label ("s", "B"); the item's origin is its top-left corner.
    /// `barWidth` is the ramp's length; the labels of its end ticks reach 40 px past it.
    HeatLegendItem(HeatScale scale, QString title, QString unit, QFont font, QColor text, qreal barWidth = kDefaultBarWidth);

    static constexpr qreal kDefaultBarWidth = 320;
    /// What the item is wider than its bar (the end ticks' labels).
    static constexpr qreal kLabelOverhang = 80;

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    HeatScale scale_;
    QString title_;
    QString unit_;
    QFont font_;
    QColor text_;
    qreal barWidth_;
};

/// "2.5 ms", "64 kB", "1.2 GB": `value` in `unit` with an SI prefix, three significant digits;
/// without a unit, the plain number ("0.001", "1e-05").
QString siLabel(double value, const QString& unit);

} // namespace graphlens
