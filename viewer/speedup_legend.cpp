// SpeedupLegend: painted from barRect(), so painting and tests agree on where each tick is.
#include "viewer/speedup_legend.h"

#include "profiler/heat_scale.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace graphlens {
namespace {

constexpr qreal kMargin = 16;     ///< room for the end ticks' labels
constexpr qreal kBarHeight = 12;

} // namespace

SpeedupLegend::SpeedupLegend(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Speedup of each group of original nodes: before ms / after ms"));
}

std::vector<SpeedupLegend::Tick> SpeedupLegend::ticks() {
    std::vector<Tick> out;
    for (double s = 1 / kSpeedupColorSpan; s <= kSpeedupColorSpan * 1.0001; s *= 2)
        out.push_back({s, QString::number(s, 'g', 3) + QStringLiteral("x")});
    return out;
}

double SpeedupLegend::position(double speedup) {
    if (!(speedup > 0)) return 0;
    const double span = std::log2(kSpeedupColorSpan);
    return std::clamp((std::log2(speedup) + span) / (2 * span), 0.0, 1.0);
}

QRectF SpeedupLegend::barRect() const {
    const qreal line = fontMetrics().height();
    return QRectF(kMargin, line + 2, std::max<qreal>(width() - 2 * kMargin, 10), kBarHeight);
}

QColor SpeedupLegend::colorAt(qreal x) const {
    const QRectF bar = barRect();
    const double t = std::clamp((x - bar.left()) / bar.width(), 0.0, 1.0);
    const double span = std::log2(kSpeedupColorSpan);
    const Rgb c = speedupColor(std::exp2((2 * t - 1) * span));
    return QColor(c.r, c.g, c.b);
}

QSize SpeedupLegend::sizeHint() const { return {280, int(2 * fontMetrics().height() + kBarHeight + 10)}; }
QSize SpeedupLegend::minimumSizeHint() const { return {140, sizeHint().height()}; }

void SpeedupLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QRectF bar = barRect();
    const QColor text = palette().color(QPalette::WindowText);
    const qreal line = fontMetrics().height();
    painter.setPen(text);
    painter.drawText(QRectF(bar.left(), 0, bar.width(), line), Qt::AlignLeft | Qt::AlignVCenter, tr("◀ slower"));
    painter.drawText(QRectF(bar.left(), 0, bar.width(), line), Qt::AlignRight | Qt::AlignVCenter, tr("faster ▶"));
    for (int x = int(bar.left()); x < int(bar.right()); ++x) painter.fillRect(QRectF(x, bar.top(), 1, bar.height()), colorAt(x + 0.5));
    painter.setPen(QPen(text, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar);
    for (const Tick& tick : ticks()) {
        const qreal x = bar.left() + position(tick.speedup) * bar.width();
        painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        const qreal w = fontMetrics().horizontalAdvance(tick.label);
        painter.drawText(QRectF(x - w / 2, bar.bottom() + 4, w, line), Qt::AlignCenter, tick.label);
    }
}

} // namespace graphlens
