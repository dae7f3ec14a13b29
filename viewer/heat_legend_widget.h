// A heatmap legend as a widget, for panels beside the canvas: it paints a HeatLegendItem (the ramp,
// its ticks and a title) and keeps the scale so the panel and tests can read its range.
#pragma once

#include "profiler/heat_scale.h"

#include <QWidget>

#include <optional>

namespace graphlens {

class HeatLegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit HeatLegendWidget(QWidget* parent = nullptr);

    /// Shows `scale`, its ticks labelled in `unit` under `title`.
    void setScale(HeatScale scale, QString title, QString unit);
    /// Shows nothing (no heatmap).
    void clear();
    /// The scale shown; empty when no heatmap is.
    const std::optional<HeatScale>& scale() const { return scale_; }
    /// The labels of the scale's ends ("1.2 ms"); empty when no heatmap is shown.
    QString lowLabel() const;
    QString highLabel() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    /// The ramp's length: the widget's width less room for the end labels, 120 to 320 px.
    qreal barWidth() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::optional<HeatScale> scale_;
    QString title_;
    QString unit_;
};

} // namespace graphlens
