// One edge of the canvas: the spline Graphviz routed from box to box, an arrow head at the
// consumer and the tensor shape beside it; the label is hidden when the view is zoomed out.
#pragma once

#include "viewer/visual_graph.h"

#include <QGraphicsItem>

namespace graphlens {

class EdgeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };

    /// An item for `edge` between the boxes `from` and `to` (laid out).
    EdgeItem(const VisualEdge& edge, VisualKey from, VisualKey to, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    ValueId value() const { return value_; }
    VisualKey from() const { return from_; }
    VisualKey to() const { return to_; }
    QString label() const { return label_; }
    const QPainterPath& path() const { return path_; }

    bool highlighted() const { return highlighted_; }
    void setHighlighted(bool on);

    /// Whether the shape label is drawn at `levelOfDetail`.
    static bool showsLabel(qreal levelOfDetail) { return levelOfDetail >= 0.6; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QPolygonF arrowHead() const;

    ValueId value_;
    VisualKey from_;
    VisualKey to_;
    QString label_;
    QPainterPath path_;
    QRectF labelRect_;
    QPolygonF arrow_;  ///< computed once: the path's end angle is costly (its length is measured)
    QRectF bounds_;
    bool highlighted_ = false;
};

} // namespace graphlens
