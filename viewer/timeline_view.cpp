// TimelineView: the scene is rebuilt when the bars, the zoom or the width change (scene x =
// ms * pixels per ms), so text stays unscaled at any zoom; bar items carry their tooltip and, when
// wide enough, their node's name as a child text item.
#include "viewer/timeline_view.h"

#include "profiler/heat_scale.h"
#include "viewer/graph_scene.h"
#include "viewer/scene_style.h"

#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <set>

namespace graphlens {
namespace {

constexpr qreal kLabelWidth = 64;     ///< track names left of the rows
constexpr qreal kCaptionHeight = 18;  ///< the run's caption, above the axis
constexpr qreal kAxisHeight = kCaptionHeight + 22;  ///< caption, tick labels and tick marks above the rows
constexpr qreal kMinBarWidth = 2;     ///< so a node that takes no measurable time stays visible
constexpr qreal kLabelPadding = 3;    ///< between a bar's edge and its name
constexpr qreal kMinLabelWidth = 24;  ///< room a name needs on a bar to be worth drawing
constexpr double kZoomStep = 1.25;
constexpr double kMaxZoom = 1000;

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

/// "0 ms", "2.5 ms", "0.004 ms".
QString msLabel(double ms) { return QString::number(ms, 'g', 6) + QStringLiteral(" ms"); }

} // namespace

TimelineView::TimelineView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setAlignment(Qt::AlignLeft | Qt::AlignTop);
    setRenderHint(QPainter::Antialiasing, false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumHeight(int(kAxisHeight + 2 * (fontMetrics().height() + 10)));
    setToolTip(tr("Wheel or +/- zooms the time axis about the pointer, drag or Shift+wheel pans, 0 fits the run"));
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

double TimelineView::msAt(int x) const { return (mapToScene(x, 0).x() - kLabelWidth) / pxPerMs_; }

void TimelineView::setZoom(double zoom) { zoomAbout(zoom, viewport()->width() / 2); }

void TimelineView::zoomAbout(double zoom, int anchorX) {
    const double ms = msAt(anchorX);
    zoom_ = std::clamp(zoom, 1.0, kMaxZoom);
    rebuild();
    horizontalScrollBar()->setValue(int(kLabelWidth + ms * pxPerMs_ - anchorX));
}

QString TimelineView::barLabel(size_t index) const {
    const QGraphicsSimpleTextItem* label = index < labels_.size() ? labels_[index] : nullptr;
    return label ? label->text() : QString();
}

void TimelineView::rebuild() {
    scene()->clear();
    items_.clear();
    labels_.clear();
    ticks_.clear();
    builtWidth_ = viewport()->width();
    if (bars_.empty()) {
        scene()->setSceneRect(QRectF());
        return;
    }
    const SceneStyle style = SceneStyle::fromPalette(palette());
    const qreal width = std::max<qreal>(builtWidth_ - kLabelWidth - 8, 80) * zoom_;
    pxPerMs_ = width / std::max(spanMs(), 1e-6);
    const qreal barHeight = fontMetrics().height() + 4;
    const qreal rowHeight = barHeight + 6;
    std::set<int> tracks;
    for (const TimelineBar& b : bars_) tracks.insert(b.track);
    const std::vector<int> rows(tracks.begin(), tracks.end());
    for (size_t r = 0; r < rows.size(); ++r) {
        auto* label = scene()->addSimpleText(tr("thread %1").arg(rows[r]), font());
        label->setBrush(palette().color(QPalette::WindowText));
        label->setPos(2, kAxisHeight + qreal(r) * rowHeight + (rowHeight - label->boundingRect().height()) / 2);
    }
    for (size_t i = 0; i < bars_.size(); ++i) {
        const TimelineBar& b = bars_[i];
        const qreal row = qreal(std::lower_bound(rows.begin(), rows.end(), b.track) - rows.begin());
        const QRectF rect(kLabelWidth + b.startMs * pxPerMs_, kAxisHeight + row * rowHeight + (rowHeight - barHeight) / 2,
                          std::max(kMinBarWidth, b.durationMs * pxPerMs_), barHeight);
        auto* item = new TimelineBarItem(rect, i);
        item->setBrush(familyColor(style, b.op));
        item->setPen(QPen(b.node == selected_ ? style.selection : style.border, b.node == selected_ ? 2.5 : 0.5));
        item->setZValue(b.node == selected_ ? 1 : 0);
        item->setToolTip(barToolTip(b));
        scene()->addItem(item);
        items_.push_back(item);
        addBarLabel(*item, b);
    }
    const qreal bottom = kAxisHeight + qreal(rows.size()) * rowHeight + 4;
    addAxis(width, bottom);
    scene()->setSceneRect(0, 0, kLabelWidth + width + 8, bottom);
}

/// The node's name on its bar, elided at the left (the end of a scoped name says most), when
/// the bar has room for a few characters of it.
void TimelineView::addBarLabel(TimelineBarItem& item, const TimelineBar& bar) {
    const qreal room = item.rect().width() - 2 * kLabelPadding;
    QString text;
    if (room >= kMinLabelWidth) text = fontMetrics().elidedText(QString::fromStdString(bar.name), Qt::ElideLeft, int(room));
    if (text.isEmpty() || text == QStringLiteral("…")) {
        labels_.push_back(nullptr);
        return;
    }
    auto* label = new QGraphicsSimpleTextItem(text, &item);
    label->setFont(font());
    label->setBrush(SceneStyle::fromPalette(palette()).text);
    label->setPos(item.rect().left() + kLabelPadding, item.rect().center().y() - label->boundingRect().height() / 2);
    label->setAcceptedMouseButtons(Qt::NoButton);  // a click on the name is a click on the bar
    labels_.push_back(label);
}

/// The run's caption, then the time axis: a tick and its time in ms every 90 px or more, with a
/// faint line down through the rows.
void TimelineView::addAxis(qreal width, qreal bottom) {
    const QColor text = palette().color(QPalette::WindowText);
    const QPen gridPen(palette().color(QPalette::Midlight), 0);
    const QPen axisPen(palette().color(QPalette::Mid), 0);
    const qreal axisY = kAxisHeight - 2;
    scene()->addLine(kLabelWidth, axisY, kLabelWidth + width, axisY, axisPen);
    for (double t : HeatScale(0, spanMs(), HeatScaleKind::Linear).ticks(std::max(2, int(width / 90)))) {
        const qreal x = kLabelWidth + t * pxPerMs_;
        scene()->addLine(x, axisY - 4, x, axisY, axisPen);
        scene()->addLine(x, axisY, x, bottom, gridPen)->setZValue(-1);
        const QString label = msLabel(t);
        auto* item = scene()->addSimpleText(label, font());
        item->setBrush(text);
        // Centered on its tick; the first one starts at it so it is not cut at the left.
        const qreal w = item->boundingRect().width();
        item->setPos(t == 0 ? x : x - w / 2, kCaptionHeight);
        ticks_.push_back({t, x, label});
    }
    const QString hint = tr("wheel or +/- zooms, drag pans");
    {
        auto* caption = scene()->addSimpleText(runLabel_.isEmpty() ? hint : runLabel_ + QStringLiteral(" · ") + hint, font());
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
    QGraphicsView::mousePressEvent(event);  // on empty space: a drag pans
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    const int center = viewport()->width() / 2;
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomAbout(zoom_ * kZoomStep, center); break;
    case Qt::Key_Minus: zoomAbout(zoom_ / kZoomStep, center); break;
    case Qt::Key_0: zoomAbout(1, center); break;
    default: return QGraphicsView::keyPressEvent(event);
    }
    event->accept();
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (viewport()->width() != builtWidth_) rebuild();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier || delta.y() == 0) {  // pan
        const int step = delta.y() != 0 ? delta.y() : delta.x();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - step);
    } else {
        zoomAbout(zoom_ * (delta.y() > 0 ? kZoomStep : 1 / kZoomStep), int(event->position().x()));
    }
    event->accept();
}

} // namespace graphlens
