// GraphView and GraphMinimap. Zooming goes through one function that clamps the scale and
// keeps the anchor point still; every change is announced by viewChanged(). The minimap paints
// a picture of the scene it renders once per layout, and the view's rectangle over it.
#include "viewer/graph_view.h"

#include "viewer/graph_scene.h"
#include "viewer/node_item.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <utility>

#include <cmath>

namespace graphlens {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(NoAnchor);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    setOptimizationFlags(DontSavePainterState);
    setFocusPolicy(Qt::StrongFocus);
    // Panning is by dragging, the wheel and the minimap beside the view; scroll bars that come
    // and go with the graph's size would change the viewport and move every box on screen.
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

GraphView::ViewState GraphView::viewState() const {
    return {zoom(), mapToScene(viewport()->rect().center())};
}

void GraphView::setViewState(const ViewState& state) {
    const qreal target = std::clamp(state.zoom, kMinZoom, kMaxZoom);
    if (!qFuzzyCompare(target, zoom())) setTransform(QTransform::fromScale(target, target));
    centerOn(state.center);
    // A jump may come while the scene's own updates are pending (a new graph just put in):
    // scrolling the old pixels along with them leaves stale boxes, so all is drawn again.
    viewport()->update();
    emit viewChanged();
}

void GraphView::zoomBy(qreal factor, QPointF viewPos) {
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    if (qFuzzyCompare(target, zoom())) return;
    const QPointF anchor = mapToScene(viewPos.toPoint());
    setTransform(QTransform::fromScale(target, target));
    // Scroll so the anchor is under viewPos again.
    const QPointF moved = mapFromScene(anchor) - viewPos;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + int(std::lround(moved.x())));
    verticalScrollBar()->setValue(verticalScrollBar()->value() + int(std::lround(moved.y())));
    emit viewChanged();
}

void GraphView::zoomIn() { zoomBy(1.25, viewport()->rect().center()); }
void GraphView::zoomOut() { zoomBy(1 / 1.25, viewport()->rect().center()); }

void GraphView::fitToWindow() {
    if (!scene()) return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    if (zoom() > 1) setTransform(QTransform());
    centerOn(scene()->sceneRect().center());
    emit viewChanged();
}

qreal GraphView::readableZoom(const QGraphicsScene* scene) {
    const QFontMetricsF title(GraphScene::styleFor(scene).titleFont);
    return std::clamp(kStartTitlePixels / title.height(), kMinZoom, kMaxZoom);
}

void GraphView::showStart() {
    const auto* graphScene = qobject_cast<GraphScene*>(scene());
    if (!graphScene) return;
    const QRectF bounds = graphScene->sceneRect();
    const QSizeF port = viewport()->size();
    const qreal fit = bounds.isEmpty() ? 1 : std::min(port.width() / bounds.width(), port.height() / bounds.height());
    const qreal readable = readableZoom(graphScene);
    if (fit >= readable) {
        const qreal zoom = std::min<qreal>(fit, 1);
        setTransform(QTransform::fromScale(zoom, zoom));
        centerOn(bounds.center());
        emit viewChanged();
        return;
    }
    setTransform(QTransform::fromScale(readable, readable));
    // The first graph input (or the topmost box) at the top, horizontally in the middle.
    const VisualGraph& graph = graphScene->visualGraph();
    QRectF first;
    for (const VisualNode& n : graph.nodes)
        if (n.key.kind == VisualKey::Kind::Input) {
            first = n.rect;
            break;
        }
    if (first.isNull())
        for (const VisualNode& n : graph.nodes)
            if (first.isNull() || n.rect.top() < first.top()) first = n.rect;
    const qreal halfHeight = port.height() / (2 * readable);
    centerOn(QPointF(first.isNull() ? bounds.center().x() : first.center().x(), bounds.top() + halfHeight));
    emit viewChanged();
}

void GraphView::showTopOf(const QRectF& rect) {
    const QSizeF port = viewport()->size();
    const QRectF padded = rect.adjusted(-10, -10, 10, 10);
    const qreal fit = std::min(port.width() / padded.width(), port.height() / padded.height());
    const qreal z = std::max(readableZoom(scene()), std::min<qreal>(fit, 1));
    setTransform(QTransform::fromScale(z, z));
    const qreal halfHeight = port.height() / (2 * z);
    centerOn(QPointF(padded.center().x(), padded.height() * z <= port.height() ? padded.center().y() : padded.top() + halfHeight));
    emit viewChanged();
}

void GraphView::centerOnNode(NodeId node) {
    const auto* graphScene = qobject_cast<GraphScene*>(scene());
    const NodeItem* item = graphScene ? graphScene->itemForNode(node) : nullptr;
    if (!item) return;
    if (zoom() < 0.6) setTransform(QTransform::fromScale(0.8, 0.8));
    centerOn(item);
    emit viewChanged();
}

QRectF GraphView::visibleSceneRect() const { return mapToScene(viewport()->rect()).boundingRect(); }

void GraphView::wheelEvent(QWheelEvent* event) {
    const qreal steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return QGraphicsView::wheelEvent(event);
    zoomBy(std::pow(1.2, steps), event->position());
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_F: fitToWindow(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); return;
    case Qt::Key_Minus: zoomOut(); return;
    default: QGraphicsView::keyPressEvent(event);
    }
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewChanged();
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    emit viewChanged();
}

GraphMinimap::GraphMinimap(GraphView* view, QWidget* parent) : QWidget(parent), view_(view) {
    setToolTip(tr("Overview: click or drag to move the view"));
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_OpaquePaintEvent);
    connect(view, &GraphView::viewChanged, this, qOverload<>(&QWidget::update));
}

QGraphicsScene* GraphMinimap::scene() const { return view_->scene(); }

void GraphMinimap::refit() {
    disconnect(sceneChanged_);
    if (scene()) sceneChanged_ = connect(scene(), &QGraphicsScene::changed, this, &GraphMinimap::scheduleRender);
    render();
}

void GraphMinimap::scheduleRender() {
    if (std::exchange(renderScheduled_, true)) return;
    QTimer::singleShot(250, this, [this] {
        renderScheduled_ = false;
        render();
    });
}

void GraphMinimap::render() {
    constexpr int kMargin = 4;
    picture_ = QPixmap();
    stale_ = !isVisible();  // drawn when shown
    if (stale_) return;
    const QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (!scene() || area.isEmpty() || scene()->sceneRect().isEmpty()) return update();
    source_ = scene()->sceneRect();
    // A tall graph in a narrow column is stretched across (up to kMaxStretch times), so it
    // is more than a hairline.
    constexpr qreal kMaxStretch = 4;
    const qreal fit = std::min(area.width() / source_.width(), area.height() / source_.height());
    scale_ = {std::min(area.width() / source_.width(), fit * kMaxStretch), std::min(area.height() / source_.height(), fit * kMaxStretch)};
    const QSize size = QSizeF(source_.width() * scale_.x(), source_.height() * scale_.y()).toSize().expandedTo(QSize(1, 1));
    picture_ = QPixmap(size);
    picture_.fill(scene()->backgroundBrush().color());
    {
        QPainter painter(&picture_);
        painter.setRenderHint(QPainter::Antialiasing);
        scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source_, Qt::IgnoreAspectRatio);
    }
    pictureAt_ = QPointF(area.left() + (area.width() - size.width()) / 2, area.top());  // top aligned, like the graph
    update();
}

QPointF GraphMinimap::mapFromScene(QPointF p) const {
    const QPointF d = p - source_.topLeft();
    return pictureAt_ + QPointF(d.x() * scale_.x(), d.y() * scale_.y());
}

QPointF GraphMinimap::mapToScene(QPointF p) const {
    const QPointF d = p - pictureAt_;
    return source_.topLeft() + QPointF(d.x() / scale_.x(), d.y() / scale_.y());
}

void GraphMinimap::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    if (picture_.isNull()) return;
    painter.drawPixmap(pictureAt_, picture_);
    const QColor frame = palette().color(QPalette::Highlight);
    QColor fill = frame;
    fill.setAlpha(50);
    painter.setPen(QPen(frame, 1.5));
    painter.setBrush(fill);
    const QRectF visible = view_->visibleSceneRect().intersected(source_);
    QRectF shown(mapFromScene(visible.topLeft()), mapFromScene(visible.bottomRight()));
    // Never thinner than a few pixels, so a deep zoom still shows where it is.
    if (shown.width() < 6) shown.adjust(-(6 - shown.width()) / 2, 0, (6 - shown.width()) / 2, 0);
    if (shown.height() < 6) shown.adjust(0, -(6 - shown.height()) / 2, 0, (6 - shown.height()) / 2);
    painter.drawRect(shown);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) {
    if (!picture_.isNull()) view_->centerOn(mapToScene(event->position()));
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
    if ((event->buttons() & Qt::LeftButton) && !picture_.isNull()) view_->centerOn(mapToScene(event->position()));
}

void GraphMinimap::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) render();
}

void GraphMinimap::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    render();
}

} // namespace graphlens
