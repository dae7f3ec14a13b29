// GraphView and GraphMinimap. Zooming goes through one function that clamps the scale and
// keeps the anchor point still; every change is announced by viewChanged().
#include "viewer/graph_view.h"

#include "viewer/graph_scene.h"
#include "viewer/node_item.h"

#include <QKeyEvent>
#include <QScrollBar>
#include <QWheelEvent>

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
}

GraphView::ViewState GraphView::viewState() const {
    return {zoom(), mapToScene(viewport()->rect().center())};
}

void GraphView::setViewState(const ViewState& state) {
    const qreal target = std::clamp(state.zoom, kMinZoom, kMaxZoom);
    if (!qFuzzyCompare(target, zoom())) setTransform(QTransform::fromScale(target, target));
    centerOn(state.center);
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

GraphMinimap::GraphMinimap(GraphView* view, QWidget* parent) : QGraphicsView(parent), view_(view) {
    setScene(view->scene());
    setInteractive(false);
    setRenderHints(QPainter::Antialiasing);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setFixedSize(220, 160);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(view, &GraphView::viewChanged, viewport(), qOverload<>(&QWidget::update));
}

void GraphMinimap::refit() {
    if (scene() != view_->scene()) setScene(view_->scene());
    if (scene()) fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    viewport()->update();
}

void GraphMinimap::drawForeground(QPainter* painter, const QRectF&) {
    const QColor frame = palette().color(QPalette::Highlight);
    painter->setPen(QPen(frame, 0));  // cosmetic: one pixel at any scale
    QColor fill = frame;
    fill.setAlpha(40);
    painter->setBrush(fill);
    painter->drawRect(view_->visibleSceneRect());
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) { view_->centerOn(mapToScene(event->position().toPoint())); }

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) view_->centerOn(mapToScene(event->position().toPoint()));
}

void GraphMinimap::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    refit();
}

void GraphMinimap::wheelEvent(QWheelEvent* event) { event->ignore(); }

} // namespace graphlens
