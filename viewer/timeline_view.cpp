// TimelineView: the scene is rebuilt when the bars or the width change, so a run always fills
// the view at zoom 1 (scene x = ms * pixels per ms); bar items carry their tooltip.
#include "viewer/timeline_view.h"

#include "profiler/heat_scale.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_item.h"

#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <set>

namespace graphlens {
namespace {

constexpr qreal kRowHeight = 22;
constexpr qreal kBarHeight = 16;
constexpr qreal kLabelWidth = 64;   ///< track names left of the rows
constexpr qreal kCaptionHeight = 16;  ///< the run's caption, above the ticks
constexpr qreal kAxisHeight = kCaptionHeight + 20;  ///< caption and time ticks above the rows
constexpr qreal kMinBarWidth = 2;   ///< so a node that takes no measurable time stays visible

QString barToolTip(const TimelineBar& bar) {
    return QStringLiteral("%1\n%2 · %3 ms (starts at %4 ms)")
        .arg(QString::fromStdString(bar.name), QString::fromStdString(bar.op))
        .arg(bar.durationMs, 0, 'f', 4)
        .arg(bar.startMs, 0, 'f', 4);
}

/// The fill of `op` ("domain:Op" or "Op"): the canvas color of its family.
QColor familyColor(const SceneStyle& style, const std::string& op) {
    const size_t colon = op.find(':');
    const OpFamily family = colon == std::string::npos ? opFamily(op) : opFamily(op.substr(colon + 1), op.substr(0, colon));
    return style.familyFill[size_t(family)];
}

} // namespace

TimelineView::TimelineView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setRenderHint(QPainter::Antialiasing, false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setMinimumHeight(int(kAxisHeight + 2 * kRowHeight));
    setToolTip(tr("Ctrl + wheel zooms the time axis"));
}

void TimelineView::setBars(std::vector<TimelineBar> bars, const QString& runLabel) {
    bars_ = std::move(bars);
    runLabel_ = runLabel;
    selected_ = kNoId;
    zoom_ = 1;
    rebuild();
}

void TimelineView::clear() { setBars({}); }

double TimelineView::spanMs() const {
    double end = 0;
    for (const TimelineBar& b : bars_) end = std::max(end, b.startMs + b.durationMs);
    return end;
}

void TimelineView::setZoom(double zoom) {
    zoom_ = std::clamp(zoom, 1.0, 1000.0);
    rebuild();
}

void TimelineView::rebuild() {
    scene()->clear();
    items_.clear();
    builtWidth_ = viewport()->width();
    if (bars_.empty()) {
        scene()->setSceneRect(QRectF());
        return;
    }
    const SceneStyle style = SceneStyle::fromPalette(palette());
    const qreal width = std::max<qreal>(builtWidth_ - kLabelWidth - 8, 80) * zoom_;
    const double span = std::max(spanMs(), 1e-6);
    const double pxPerMs = width / span;
    std::set<int> tracks;
    for (const TimelineBar& b : bars_) tracks.insert(b.track);
    const std::vector<int> rows(tracks.begin(), tracks.end());
    for (size_t r = 0; r < rows.size(); ++r) {
        auto* label = scene()->addSimpleText(tr("thread %1").arg(rows[r]));
        label->setBrush(palette().color(QPalette::WindowText));
        label->setPos(2, kAxisHeight + qreal(r) * kRowHeight + 3);
    }
    for (size_t i = 0; i < bars_.size(); ++i) {
        const TimelineBar& b = bars_[i];
        const qreal row = qreal(std::lower_bound(rows.begin(), rows.end(), b.track) - rows.begin());
        const QRectF rect(kLabelWidth + b.startMs * pxPerMs, kAxisHeight + row * kRowHeight + (kRowHeight - kBarHeight) / 2,
                          std::max(kMinBarWidth, b.durationMs * pxPerMs), kBarHeight);
        auto* item = new TimelineBarItem(rect, i);
        item->setBrush(familyColor(style, b.op));
        item->setPen(QPen(b.node == selected_ ? style.selection : style.border, b.node == selected_ ? 2.5 : 0.5));
        item->setZValue(b.node == selected_ ? 1 : 0);
        item->setToolTip(barToolTip(b));
        scene()->addItem(item);
        items_.push_back(item);
    }
    addAxis(pxPerMs, width);
    scene()->setSceneRect(0, 0, kLabelWidth + width + 8, kAxisHeight + qreal(rows.size()) * kRowHeight + 4);
}

/// Ticks in ms along the top, and the run's caption.
void TimelineView::addAxis(double pxPerMs, qreal width) {
    const QColor text = palette().color(QPalette::WindowText);
    const QPen tickPen(palette().color(QPalette::Mid), 0);
    for (double t : HeatScale(0, spanMs(), HeatScaleKind::Linear).ticks(std::max(2, int(width / 90)))) {
        const qreal x = kLabelWidth + t * pxPerMs;
        scene()->addLine(x, kCaptionHeight, x, sceneRect().bottom(), tickPen)->setZValue(-1);
        auto* label = scene()->addSimpleText(siLabel(t / 1000, "s"));
        label->setBrush(text);
        label->setPos(x + 2, kCaptionHeight + 2);
    }
    if (!runLabel_.isEmpty()) {
        auto* caption = scene()->addSimpleText(runLabel_);
        caption->setBrush(text);
        caption->setPos(2, 0);
    }
}

void TimelineView::selectNode(NodeId node) {
    selected_ = node;
    const SceneStyle style = SceneStyle::fromPalette(palette());
    for (TimelineBarItem* item : items_) {
        const bool on = bars_[item->index()].node == node;
        item->setPen(QPen(on ? style.selection : style.border, on ? 2.5 : 0.5));
        item->setZValue(on ? 1 : 0);
        if (on) ensureVisible(item);
    }
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton)
        for (QGraphicsItem* item : items(event->position().toPoint()))
            if (item->type() == TimelineBarItem::Type) {
                const NodeId node = bars_[static_cast<TimelineBarItem*>(item)->index()].node;
                selectNode(node);
                emit nodeClicked(node);
                return;
            }
    QGraphicsView::mousePressEvent(event);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (viewport()->width() != builtWidth_) rebuild();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    if (!(event->modifiers() & Qt::ControlModifier)) return QGraphicsView::wheelEvent(event);
    setZoom(zoom_ * (event->angleDelta().y() > 0 ? 1.25 : 0.8));
    event->accept();
}

} // namespace graphlens
