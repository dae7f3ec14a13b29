// MemoryChart: painted directly; geometry comes from plotRect() so painting, hit tests and tests
// agree on where each column is.
#include "viewer/memory_chart.h"

#include "viewer/heat_legend_item.h"
#include "viewer/scene_style.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace graphlens {
namespace {

constexpr qreal kLeft = 56, kRight = 8, kBottom = 18;
constexpr qreal kCaptionMargin = 4;  ///< around the caption, which wraps to the width
/// The naive sum is drawn as a line when it is at most this many times the arena.
constexpr double kNaiveOnScale = 2.5;

QString bytesLabel(double bytes) { return siLabel(bytes, "B"); }

} // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void MemoryChart::setSteps(std::vector<MemoryStep> steps, uint64_t arenaBytes, uint64_t naiveBytes) {
    steps_ = std::move(steps);
    arena_ = arenaBytes;
    naive_ = naiveBytes;
    hovered_ = -1;
    selected_ = kNoId;
    update();
}

void MemoryChart::clear() { setSteps({}, 0, 0); }

uint64_t MemoryChart::peakBytes() const {
    uint64_t peak = 0;
    for (const MemoryStep& s : steps_) peak = std::max(peak, s.liveBytes);
    return peak;
}

bool MemoryChart::showsNaiveLine() const {
    return naive_ > 0 && double(naive_) <= kNaiveOnScale * double(std::max(arena_, peakBytes()));
}

double MemoryChart::topBytes() const {
    double top = double(std::max(arena_, peakBytes()));
    if (showsNaiveLine()) top = std::max(top, double(naive_));
    return top > 0 ? top * 1.08 : 1;
}

QString MemoryChart::caption() const {
    if (steps_.empty()) return {};
    QString naive = bytesLabel(double(naive_));
    if (!showsNaiveLine() && naive_ > 0) naive += tr(" (off the scale)");
    return tr("Planned arena %1 · naive sum %2 · lower bound %3 (most bytes live at one step) · %4 steps")
        .arg(bytesLabel(double(arena_)), naive, bytesLabel(double(peakBytes())))
        .arg(steps_.size());
}

QRectF MemoryChart::captionRect() const {
    const int textWidth = std::max(width() - 2 * int(kCaptionMargin), 40);
    const QRect bounds = fontMetrics().boundingRect(QRect(0, 0, textWidth, 10000), Qt::TextWordWrap, caption());
    return QRectF(kCaptionMargin, kCaptionMargin, textWidth, steps_.empty() ? 0 : bounds.height());
}

QRectF MemoryChart::plotRect() const {
    const qreal top = captionRect().bottom() + kCaptionMargin + fontMetrics().height() / 2.0;  // room for the top y label
    return QRectF(kLeft, top, std::max<qreal>(width() - kLeft - kRight, 10), std::max<qreal>(height() - top - kBottom, 10));
}

qreal MemoryChart::yOf(double bytes) const {
    const QRectF plot = plotRect();
    return plot.bottom() - plot.height() * bytes / topBytes();
}

QRectF MemoryChart::columnRect(int step) const {
    const QRectF plot = plotRect();
    const qreal w = plot.width() / qreal(std::max<size_t>(steps_.size(), 1));
    const qreal y = yOf(double(steps_.at(size_t(step)).liveBytes));
    return QRectF(plot.left() + step * w, y, w, plot.bottom() - y);
}

int MemoryChart::stepAt(qreal x) const {
    const QRectF plot = plotRect();
    if (steps_.empty() || x < plot.left() || x >= plot.right()) return -1;
    return std::min(int((x - plot.left()) / plot.width() * qreal(steps_.size())), int(steps_.size()) - 1);
}

void MemoryChart::selectNode(NodeId node) {
    selected_ = node;
    update();
}

int MemoryChart::selectedStep() const {
    if (selected_ == kNoId) return -1;
    const auto it = std::find_if(steps_.begin(), steps_.end(), [this](const MemoryStep& s) { return s.node == selected_; });
    return it == steps_.end() ? -1 : int(it - steps_.begin());
}

QString MemoryChart::toolTipFor(int step) const {
    if (step < 0 || step >= int(steps_.size())) return {};
    const MemoryStep& s = steps_[size_t(step)];
    return tr("step %1 of %2: %3 (%4)\nlive %5 of a %6 arena")
        .arg(step + 1)
        .arg(steps_.size())
        .arg(QString::fromStdString(s.name), QString::fromStdString(s.op), bytesLabel(double(s.liveBytes)),
             bytesLabel(double(arena_)));
}

void MemoryChart::paintReference(QPainter& painter, double bytes, const QPen& pen, const QString& label) const {
    const QRectF plot = plotRect();
    const qreal y = yOf(bytes);
    painter.setPen(pen);
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    // Above its line, or below it where the line runs close to the top of the plot.
    const qreal h = fontMetrics().height();
    const qreal top = y - h - 1 >= plot.top() ? y - h - 1 : y + 1;
    painter.drawText(QRectF(plot.left(), top, plot.width() - 4, h), Qt::AlignRight | Qt::AlignVCenter, label);
}

void MemoryChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QColor text = palette().color(QPalette::WindowText);
    const QRectF plot = plotRect();
    painter.setPen(text);
    if (steps_.empty()) {
        painter.drawText(rect(), Qt::AlignCenter, tr("No profile"));
        return;
    }
    painter.drawText(captionRect(), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, caption());
    painter.drawText(QRectF(0, plot.top() - 6, kLeft - 4, 12), Qt::AlignRight | Qt::AlignVCenter, bytesLabel(topBytes()));
    painter.drawText(QRectF(0, plot.bottom() - 6, kLeft - 4, 12), Qt::AlignRight | Qt::AlignVCenter, bytesLabel(0));
    painter.drawText(QRectF(plot.left(), plot.bottom(), plot.width(), kBottom), Qt::AlignCenter, tr("execution step"));
    painter.setPen(QPen(palette().color(QPalette::Mid), 0));
    painter.drawRect(plot);

    const QColor column = palette().color(QPalette::Highlight);
    const int selected = selectedStep();
    for (int i = 0; i < int(steps_.size()); ++i) {
        QColor fill = column;
        fill.setAlphaF(i == hovered_ || i == selected ? 0.95f : 0.55f);
        painter.fillRect(columnRect(i), fill);
    }
    if (selected >= 0) {  // outlined over the whole plot height, so a column of 0 bytes shows too
        const QRectF c = columnRect(selected);
        painter.setPen(QPen(SceneStyle::fromPalette(palette()).selection, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(c.left(), plot.top(), c.width(), plot.height()).adjusted(1, 1, -1, -1));
    }
    paintReference(painter, double(arena_), QPen(QColor(0xd7, 0x30, 0x27), 1.5), tr("arena %1").arg(bytesLabel(double(arena_))));
    if (showsNaiveLine())
        paintReference(painter, double(naive_), QPen(text, 1, Qt::DashLine), tr("naive sum %1").arg(bytesLabel(double(naive_))));
}

void MemoryChart::mouseMoveEvent(QMouseEvent* event) {
    const int step = stepAt(event->position().x());
    if (step != hovered_) {
        hovered_ = step;
        update();
    }
    if (step >= 0) QToolTip::showText(event->globalPosition().toPoint(), toolTipFor(step), this);
    else QToolTip::hideText();
}

void MemoryChart::mousePressEvent(QMouseEvent* event) {
    const int step = stepAt(event->position().x());
    if (event->button() != Qt::LeftButton || step < 0) return;
    selectNode(steps_[size_t(step)].node);
    emit nodeClicked(steps_[size_t(step)].node);
}

void MemoryChart::leaveEvent(QEvent*) {
    hovered_ = -1;
    update();
}

} // namespace graphlens
