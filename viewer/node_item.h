// One box of the canvas: an operator (op type in bold, name, key attributes, parameters), a
// graph input or output, or a collapsed group. It keeps the core ids and its text, never
// pointers into the graph; zoomed out it draws the op type alone, then only the box.
#pragma once

#include "viewer/scene_style.h"
#include "viewer/visual_graph.h"

#include <QGraphicsItem>

#include <optional>

namespace graphlens {

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };

    /// A box for `node` (laid out: its rect is where the item goes).
    explicit NodeItem(const VisualNode& node, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    VisualKey key() const { return node_.key; }
    /// The operator's id; kNoId for terminals and collapsed groups.
    NodeId nodeId() const { return node_.key.kind == VisualKey::Kind::Node ? node_.key.id : kNoId; }
    /// The group's id for a collapsed group box; kNoId otherwise.
    GroupId groupId() const { return node_.key.kind == VisualKey::Kind::Group ? node_.key.id : kNoId; }
    const VisualNode& visualNode() const { return node_; }

    NodeMark mark() const { return mark_; }
    void setMark(NodeMark mark);

    /// Text colors on the box: the scheme's, except on a heat fill, where dark text goes on light
    /// fills and light text on dark ones (whichever contrasts more with the fill).
    struct TextColors {
        QColor text;
        QColor muted;
    };
    TextColors textColors() const;

    /// How much text a box shows at a level of detail (the view's scale): every line while the
    /// body text is legible, then the op type alone, enlarged to fill the box, while the box is
    /// at least kTitleOnlyPixels tall on screen, then none.
    enum class TextDetail { None, TitleOnly, Full };
    static constexpr qreal kTitleOnlyPixels = 12;
    static TextDetail textDetail(qreal levelOfDetail, qreal boxHeight);
    /// Whether every line is drawn at `levelOfDetail`.
    static bool showsText(qreal levelOfDetail) { return levelOfDetail >= 0.4; }

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

private:
    QRectF box() const;
    void paintText(QPainter* painter, const SceneStyle& style) const;
    void paintTitleOnly(QPainter* painter, const SceneStyle& style, qreal levelOfDetail) const;
    std::optional<QColor> heatFill() const;

    VisualNode node_;
    NodeMark mark_ = NodeMark::Normal;
};

} // namespace graphlens
