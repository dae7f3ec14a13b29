// The legend of the before/after speedup overlay: the diverging ramp of speedupColor() as a bar
// on a log axis from 1/4x (slower, red) through 1x (near white) to 4x (faster, green), beyond
// which the colors saturate, with a tick at each power of two and "slower" / "faster" at its ends.
// HeatLegendWidget does not fit: its ramp is the sequential heat ramp and its labels SI values.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace graphlens {

class SpeedupLegend : public QWidget {
    Q_OBJECT
public:
    struct Tick {
        double speedup;
        QString label;  ///< "0.5x"
    };

    explicit SpeedupLegend(QWidget* parent = nullptr);

    /// The powers of two from the slow end of the ramp to its fast end: 0.25x ... 4x.
    static std::vector<Tick> ticks();
    /// Where `speedup` sits along the bar: 0 at the slow end, 1 at the fast end, clamped.
    static double position(double speedup);
    /// The bar in widget coordinates.
    QRectF barRect() const;
    /// The color painted at widget x `x` along the bar.
    QColor colorAt(qreal x) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace graphlens
