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
    HeatLegendItem(HeatScale scale, QString title, QString unit, QFont font, QColor text);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    HeatScale scale_;
    QString title_;
    QString unit_;
    QFont font_;
    QColor text_;
};

/// "2.5 ms", "64 kB", "1.2 GB": `value` in `unit` with an SI prefix, three significant digits.
QString siLabel(double value, const QString& unit);

} // namespace graphlens
