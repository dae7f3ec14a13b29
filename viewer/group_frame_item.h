// The frame around an expanded name-scope group, titled with the group's name; double-clicking
// the title collapses the group (GraphScene::groupActivated).
#pragma once

#include "viewer/visual_graph.h"

#include <QGraphicsItem>

namespace graphlens {

class GroupFrameItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };

    explicit GroupFrameItem(const VisualGroupFrame& frame, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    GroupId groupId() const { return frame_.id; }
    QString title() const { return frame_.title; }
    int depth() const { return frame_.depth; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    VisualGroupFrame frame_;
};

} // namespace graphlens
