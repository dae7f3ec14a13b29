// EdgeItem: the path is in scene coordinates (the item stays at the origin), so the layout's
// splines are drawn as they are.
#include "viewer/edge_item.h"

#include "viewer/graph_scene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace graphlens {
namespace {

constexpr qreal kArrowLength = 9;
constexpr qreal kArrowHalfWidth = 4;

} // namespace

EdgeItem::EdgeItem(const VisualEdge& edge, VisualKey from, VisualKey to, QGraphicsItem* parent)
    : QGraphicsItem(parent), value_(edge.value), from_(from), to_(to), label_(edge.label), path_(edge.path),
      labelRect_(label_.isEmpty() ? QRectF() : edge.labelRect), arrow_(arrowHead()) {
    const QRectF r = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-3, -3, 3, 3);
    bounds_ = labelRect_.isEmpty() ? r : r.united(labelRect_.adjusted(-2, -2, 2, 2));
    setZValue(-1);
    setAcceptedMouseButtons(Qt::NoButton);
}

void EdgeItem::setHighlighted(bool on) {
    if (highlighted_ == on) return;
    highlighted_ = on;
    update();
}

QPolygonF EdgeItem::arrowHead() const {
    if (path_.isEmpty()) return {};
    const QPointF tip = path_.currentPosition();
    const qreal angle = qDegreesToRadians(path_.angleAtPercent(1));
    const QPointF back(-std::cos(angle), std::sin(angle));  // Qt's angles run counter-clockwise
    const QPointF side(-back.y(), back.x());
    const QPointF base = tip + back * kArrowLength;
    return QPolygonF({tip, base + side * kArrowHalfWidth, base - side * kArrowHalfWidth});
}

QRectF EdgeItem::boundingRect() const { return bounds_; }

QPainterPath EdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    return stroker.createStroke(path_);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const SceneStyle& style = GraphScene::styleFor(scene());
    const QColor color = highlighted_ ? style.markColor(NodeMark::Highlighted) : style.edge;
    painter->setPen(QPen(color, highlighted_ ? 2.5 : 1.2));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(arrow_);
    if (labelRect_.isEmpty() || !showsLabel(option->levelOfDetailFromTransform(painter->worldTransform())))
        return;
    painter->setFont(style.labelFont);
    painter->setPen(style.edgeLabel);
    const QFontMetricsF metrics(style.labelFont);
    painter->drawText(QPointF(labelRect_.left(), labelRect_.top() + metrics.ascent()), label_);
}

} // namespace graphlens
