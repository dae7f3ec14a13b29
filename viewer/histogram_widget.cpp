// HistogramWidget: bars scaled to the fullest bin; a bin with any value gets at least one pixel,
// so sparse tails stay visible.
#include "viewer/histogram_widget.h"

#include <QPainter>

#include <algorithm>

namespace graphlens {

HistogramWidget::HistogramWidget(const WeightStats& stats, QWidget* parent) : QWidget(parent), stats_(stats) {
    setMinimumSize(120, 48);
    setToolTip(tr("Histogram of %1 values in %2 bins from %3 to %4")
                   .arg(stats.count - stats.nonFinite)
                   .arg(stats.histogram.size())
                   .arg(stats.min, 0, 'g', 4)
                   .arg(stats.max, 0, 'g', 4));
}

void HistogramWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const int labelHeight = fontMetrics().height();
    const QRectF plot = QRectF(rect()).adjusted(1, 1, -1, -1 - labelHeight);
    painter.fillRect(plot, palette().color(QPalette::Base));
    const auto& bins = stats_.histogram;
    const int64_t fullest = bins.empty() ? 0 : *std::max_element(bins.begin(), bins.end());
    if (fullest > 0) {
        const qreal width = plot.width() / qreal(bins.size());
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette().color(QPalette::Highlight));
        for (size_t i = 0; i < bins.size(); ++i) {
            if (bins[i] == 0) continue;
            const qreal height = std::max(1.0, plot.height() * qreal(bins[i]) / qreal(fullest));
            painter.drawRect(QRectF(plot.left() + qreal(i) * width, plot.bottom() - height, std::max(1.0, width - 1), height));
        }
    }
    painter.setPen(palette().color(QPalette::Text));
    const QRectF labels(plot.left(), plot.bottom() + 1, plot.width(), labelHeight);
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QString::number(stats_.min, 'g', 3));
    painter.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QString::number(stats_.max, 'g', 3));
}

} // namespace graphlens
