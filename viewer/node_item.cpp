// NodeItem: a rounded box in the family color; marks and selection draw an outline around it.
// Zoomed out, the op type alone is drawn scaled up to fill the box, so it reads longer.
#include "viewer/node_item.h"

#include "profiler/heat_scale.h"
#include "viewer/graph_scene.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace graphlens {
namespace {

constexpr qreal kRadius = 5;
constexpr qreal kOutline = 4;  ///< room around the box for mark and selection outlines

} // namespace

NodeItem::NodeItem(const VisualNode& node, QGraphicsItem* parent) : QGraphicsItem(parent), node_(node) {
    setPos(node.rect.center());
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(false);
    setToolTip(node.name.isEmpty() ? node.title : node.title + "\n" + node.name);
}

QRectF NodeItem::box() const {
    const QSizeF size = node_.rect.isEmpty() ? node_.size : node_.rect.size();
    return {QPointF(-size.width() / 2, -size.height() / 2), size};
}

QRectF NodeItem::boundingRect() const {
    return box().adjusted(-kOutline - 4, -kOutline - 4, kOutline + 8, kOutline + 8);  // + group stack
}

QPainterPath NodeItem::shape() const {
    QPainterPath path;
    path.addRoundedRect(box(), kRadius, kRadius);
    return path;
}

void NodeItem::setMark(NodeMark mark) {
    if (mark_ == mark) return;
    mark_ = mark;
    update();
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
    // The scene announces the selection before ItemSelectedHasChanged: tell it here.
    if (change == ItemSelectedChange)
        if (auto* graphScene = qobject_cast<GraphScene*>(scene())) graphScene->noteSelectionOf(key(), value.toBool());
    if (change == ItemSelectedHasChanged) setZValue(value.toBool() ? 1 : 0);
    return QGraphicsItem::itemChange(change, value);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const SceneStyle& style = GraphScene::styleFor(scene());
    const QRectF r = box();
    const bool terminal = node_.key.kind == VisualKey::Kind::Input || node_.key.kind == VisualKey::Kind::Output;
    const qreal radius = terminal ? r.height() / 2 : kRadius;
    QColor fill = heatFill().value_or(style.fillFor(node_));
    if (mark_ == NodeMark::Removed) fill.setAlphaF(0.45);

    if (mark_ == NodeMark::Highlighted) {  // a soft glow under the box
        painter->setPen(QPen(style.markColor(mark_), 2 * kOutline, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r, radius, radius);
    }
    if (node_.key.kind == VisualKey::Kind::Group) {  // a stack of boxes: several nodes in one
        painter->setPen(QPen(style.border, 1));
        painter->setBrush(fill.darker(112));
        painter->drawRoundedRect(r.translated(5, 5), radius, radius);
    }
    QPen pen(style.border, 1);
    if (mark_ == NodeMark::Removed) pen = QPen(style.markColor(mark_), 2.5, Qt::DashLine);
    if (mark_ == NodeMark::Added) pen = QPen(style.markColor(mark_), 3);
    if (mark_ == NodeMark::Changed) pen = QPen(style.markColor(mark_), 3, Qt::DotLine);
    if (node_.family == OpFamily::Fused && mark_ == NodeMark::Normal) pen.setWidthF(2);
    painter->setPen(pen);
    painter->setBrush(fill);
    painter->drawRoundedRect(r, radius, radius);

    if (isSelected()) {
        painter->setPen(QPen(style.selection, 3));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(r.adjusted(-3, -3, 3, 3), radius + 3, radius + 3);
    }
    const qreal lod = option->levelOfDetailFromTransform(painter->worldTransform());
    switch (textDetail(lod, r.height())) {
    case TextDetail::Full: paintText(painter, style); break;
    case TextDetail::TitleOnly: paintTitleOnly(painter, style, lod); break;
    case TextDetail::None: break;
    }
}

NodeItem::TextDetail NodeItem::textDetail(qreal levelOfDetail, qreal boxHeight) {
    if (showsText(levelOfDetail)) return TextDetail::Full;
    return boxHeight * levelOfDetail >= kTitleOnlyPixels - 0.5 ? TextDetail::TitleOnly : TextDetail::None;
}

void NodeItem::paintTitleOnly(QPainter* painter, const SceneStyle& style, qreal levelOfDetail) const {
    const QRectF r = box().adjusted(3, 2, -3, -2);
    const QFontMetricsF metrics(style.titleFont);
    const qreal textWidth = std::max<qreal>(metrics.horizontalAdvance(node_.title), 1);
    // As big as the box allows (its height, its width), but not beyond 14 px on screen.
    const qreal scale = std::min({r.height() * 0.8 / metrics.height(), r.width() / textWidth,
                                  14 / (metrics.height() * levelOfDetail)});
    if (scale <= 0) return;
    painter->save();
    painter->translate(r.center());
    painter->scale(scale, scale);
    painter->setFont(style.titleFont);
    painter->setPen(textColors().text);
    const QSizeF size(r.width() / scale, metrics.height());
    painter->drawText(QRectF(QPointF(-size.width() / 2, -size.height() / 2), size), Qt::AlignCenter, node_.title);
    painter->restore();
}

std::optional<QColor> NodeItem::heatFill() const {
    const auto* graphScene = qobject_cast<const GraphScene*>(scene());
    if (!graphScene || node_.key.kind != VisualKey::Kind::Node) return std::nullopt;
    return graphScene->nodeFill(node_.key.id);
}

NodeItem::TextColors NodeItem::textColors() const {
    const SceneStyle& style = GraphScene::styleFor(scene());
    const std::optional<QColor> fill = heatFill();
    if (!fill) return {style.text, style.mutedText};
    const QColor c = fill->toRgb();
    if (prefersDarkText(Rgb{uint8_t(c.red()), uint8_t(c.green()), uint8_t(c.blue())}))
        return {QColor(0x1a, 0x1a, 0x1a), QColor(0x4a, 0x4a, 0x4a)};
    return {QColor(0xff, 0xff, 0xff), QColor(0xe6, 0xe6, 0xe6)};
}

void NodeItem::paintText(QPainter* painter, const SceneStyle& style) const {
    const QRectF r = box();
    const TextColors colors = textColors();
    qreal y = r.top() + 6;
    auto line = [&](const QString& text, const QFont& font, const QColor& color) {
        const qreal height = QFontMetricsF(font).height();
        painter->setFont(font);
        painter->setPen(color);
        painter->drawText(QRectF(r.left() + 4, y, r.width() - 8, height), Qt::AlignCenter, text);
        y += height;
    };
    line(node_.title, style.titleFont, colors.text);
    for (const QString& text : {node_.subtitle, node_.domain})
        if (!text.isEmpty()) line(text, style.bodyFont, colors.muted);
    for (const QString& text : node_.details) line(text, style.bodyFont, colors.text);
    for (const QString& text : node_.parameters) line(text, style.bodyFont, colors.muted);
}

} // namespace graphlens
