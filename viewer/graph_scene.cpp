// GraphScene: items are made from the VisualGraph it keeps; ids map to items through the
// graph's indexes, so no item holds a pointer to another.
#include "viewer/graph_scene.h"

#include "viewer/edge_item.h"
#include "viewer/group_frame_item.h"
#include "viewer/node_item.h"

#include <QGraphicsSceneMouseEvent>
#include <QGuiApplication>

namespace graphlens {

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent), style_(SceneStyle::fromPalette(QGuiApplication::palette())) {
    setBackgroundBrush(style_.background);
    setItemIndexMethod(BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::updateSelection);
}

GraphScene::~GraphScene() {
    const QSignalBlocker blocker(this);  // items deleted with a selection are no change to report
    clear();
}

const SceneStyle& GraphScene::styleFor(const QGraphicsScene* scene) {
    if (const auto* graphScene = qobject_cast<const GraphScene*>(scene)) return graphScene->style_;
    static const SceneStyle fallback = SceneStyle::fromPalette(QGuiApplication::palette());
    return fallback;
}

void GraphScene::setColorScheme(const QPalette& palette) {
    style_ = SceneStyle::fromPalette(palette, style_.bodyFont);
    setBackgroundBrush(style_.background);
    update();
}

void GraphScene::showGraph(VisualGraph graph) {
    {
        const QSignalBlocker blocker(this);  // the old selection goes without a signal storm
        clear();
    }
    nodeItems_.clear();
    edgeItems_.clear();
    frames_.clear();
    lastSelected_.reset();
    graph_ = std::move(graph);
    for (const VisualGroupFrame& f : graph_.frames) {
        auto* item = new GroupFrameItem(f);
        addItem(item);
        frames_[f.id] = item;
    }
    for (const VisualNode& n : graph_.nodes) {
        auto* item = new NodeItem(n);
        addItem(item);
        nodeItems_.push_back(item);
    }
    for (const VisualEdge& e : graph_.edges) {
        auto* item = new EdgeItem(e, graph_.nodes[size_t(e.from)].key, graph_.nodes[size_t(e.to)].key);
        addItem(item);
        edgeItems_.push_back(item);
    }
    setSceneRect(graph_.bounds.adjusted(-20, -20, 20, 20));
    for (const auto& [node, mark] : std::unordered_map(marks_)) applyMark(node, mark);
    updateSelection();
}

NodeItem* GraphScene::itemForNode(NodeId node) const {
    const int index = graph_.indexShowing(node);
    return index < 0 ? nullptr : nodeItems_[size_t(index)];
}

NodeItem* GraphScene::itemForKey(VisualKey key) const {
    const int index = graph_.indexOf(key);
    return index < 0 ? nullptr : nodeItems_[size_t(index)];
}

GroupFrameItem* GraphScene::frameForGroup(GroupId group) const {
    const auto it = frames_.find(group);
    return it == frames_.end() ? nullptr : it->second;
}

void GraphScene::applyMark(NodeId node, NodeMark mark) {
    if (NodeItem* item = itemForNode(node)) item->setMark(mark);
}

void GraphScene::setNodeMark(NodeId node, NodeMark mark) {
    if (mark == NodeMark::Normal) marks_.erase(node);
    else marks_[node] = mark;
    applyMark(node, mark);
}

void GraphScene::setNodeMarks(const std::vector<NodeId>& nodes, NodeMark mark) {
    for (NodeId n : nodes) setNodeMark(n, mark);
}

NodeMark GraphScene::nodeMark(NodeId node) const {
    const auto it = marks_.find(node);
    return it == marks_.end() ? NodeMark::Normal : it->second;
}

void GraphScene::clearMarks() {
    marks_.clear();
    for (NodeItem* item : nodeItems_) item->setMark(NodeMark::Normal);
}

void GraphScene::setNodeFills(std::unordered_map<NodeId, QColor> fills) {
    fills_ = std::move(fills);
    update();
}

std::optional<QColor> GraphScene::nodeFill(NodeId node) const {
    const auto it = fills_.find(node);
    return it == fills_.end() ? std::nullopt : std::optional<QColor>(it->second);
}

void GraphScene::selectNode(NodeId node) {
    NodeItem* item = node == kNoId ? nullptr : itemForNode(node);
    if (item && item->isSelected() && selectedItems().size() == 1) return;
    {
        const QSignalBlocker blocker(this);
        clearSelection();
    }
    if (item) item->setSelected(true);
    else updateSelection();
}

void GraphScene::noteSelectionOf(VisualKey key, bool selected) {
    if (selected) lastSelected_ = key;
    else if (lastSelected_ == key) lastSelected_.reset();
}

void GraphScene::updateSelection() {
    VisualKey key;
    if (const NodeItem* last = lastSelected_ ? itemForKey(*lastSelected_) : nullptr; last && last->isSelected()) {
        key = last->key();
    } else {
        const auto first = std::find_if(nodeItems_.begin(), nodeItems_.end(), [](NodeItem* i) { return i->isSelected(); });
        if (first != nodeItems_.end()) key = (*first)->key();
    }
    selectedKey_ = key;
    const NodeId node = key.kind == VisualKey::Kind::Node ? key.id : kNoId;
    const GroupId group = key.kind == VisualKey::Kind::Group ? key.id : kNoId;
    const bool nodeChanged = node != selectedNode_;
    const bool groupChanged = group != selectedGroup_;
    selectedNode_ = node;
    selectedGroup_ = group;
    if (nodeChanged) emit selectedNodeChanged(node);
    if (groupChanged) emit selectedGroupChanged(group);
}

void GraphScene::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    for (QGraphicsItem* item : items(event->scenePos())) {
        if (item->type() == NodeItem::Type && static_cast<NodeItem*>(item)->groupId() != kNoId) {
            event->accept();
            emit groupActivated(static_cast<NodeItem*>(item)->groupId());
            return;
        }
        if (item->type() == NodeItem::Type) break;  // an operator: nothing to toggle
        if (item->type() == GroupFrameItem::Type) {
            event->accept();
            emit groupActivated(static_cast<GroupFrameItem*>(item)->groupId());
            return;
        }
    }
    QGraphicsScene::mouseDoubleClickEvent(event);
}

} // namespace graphlens
