// GroupFrameItem: a translucent rounded rectangle (nested frames get darker), behind nodes and edges.
#include "viewer/group_frame_item.h"

#include "viewer/graph_scene.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace graphlens {

GroupFrameItem::GroupFrameItem(const VisualGroupFrame& frame, QGraphicsItem* parent)
    : QGraphicsItem(parent), frame_(frame) {
    setZValue(-10 + frame.depth);  // inner frames over outer ones, all under the edges
    setToolTip(frame.title);
}

QRectF GroupFrameItem::boundingRect() const { return frame_.rect.adjusted(-1, -1, 1, 1); }

void GroupFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const SceneStyle& style = GraphScene::styleFor(scene());
    painter->setPen(QPen(style.frameBorder, 1, Qt::DashLine));
    painter->setBrush(style.frameFill);
    painter->drawRoundedRect(frame_.rect, 6, 6);
    if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.3) return;
    painter->setFont(style.labelFont);
    painter->setPen(style.mutedText);
    const QRectF title = frame_.rect.adjusted(6, 2, -6, 0);
    painter->drawText(title, Qt::AlignLeft | Qt::AlignTop | Qt::TextSingleLine, frame_.title);
}

} // namespace graphlens
