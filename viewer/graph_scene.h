// The canvas scene: one NodeItem per box, one EdgeItem per edge and a frame per expanded group
// of a laid-out VisualGraph; finds items by core id, marks nodes (diff and provenance states)
// and reports the selected node or collapsed group.
#pragma once

#include "viewer/scene_style.h"
#include "viewer/visual_graph.h"

#include <QGraphicsScene>

#include <optional>
#include <unordered_map>
#include <vector>

namespace graphlens {

class EdgeItem;
class GroupFrameItem;
class NodeItem;

class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    /// Replaces the items with those of `graph`, which must be laid out (layoutVisualGraph()).
    /// Marks of nodes that are still shown are kept; the selection is cleared.
    void showGraph(VisualGraph graph);
    const VisualGraph& visualGraph() const { return graph_; }

    /// Colors and fonts; setColorScheme() derives them from a palette (light or dark).
    const SceneStyle& style() const { return style_; }
    void setColorScheme(const QPalette& palette);
    /// The style of `scene` when it is a GraphScene, else the one of the application palette.
    static const SceneStyle& styleFor(const QGraphicsScene* scene);
    /// Metrics of this scene's fonts: build and lay out graphs with it so the text fits the boxes.
    TextMeasure textMeasure() const { return style_.textMeasure(); }

    /// The box showing `node`: its own, or that of the collapsed group hiding it; nullptr when
    /// the node is not drawn.
    NodeItem* itemForNode(NodeId node) const;
    NodeItem* itemForKey(VisualKey key) const;
    GroupFrameItem* frameForGroup(GroupId group) const;
    /// In VisualGraph order.
    const std::vector<NodeItem*>& nodeItems() const { return nodeItems_; }
    const std::vector<EdgeItem*>& edgeItems() const { return edgeItems_; }

    void setNodeMark(NodeId node, NodeMark mark);
    void setNodeMarks(const std::vector<NodeId>& nodes, NodeMark mark);
    NodeMark nodeMark(NodeId node) const;
    /// Every box back to NodeMark::Normal.
    void clearMarks();

    /// Fills replacing the family color of operator boxes (a heatmap); others keep theirs.
    void setNodeFills(std::unordered_map<NodeId, QColor> fills);
    std::optional<QColor> nodeFill(NodeId node) const;

    /// Selects the box showing `node` (kNoId clears the selection).
    void selectNode(NodeId node);
    /// Called by a NodeItem whose selection changed; the box selected last is the selected one.
    void noteSelectionOf(VisualKey key, bool selected);

    /// The selected operator node (of several selected boxes, the one selected last); kNoId
    /// when nothing, or a terminal or group box, is selected.
    NodeId selectedNode() const { return selectedNode_; }
    /// The selected collapsed group box (chosen like selectedNode()); kNoId when none is.
    GroupId selectedGroup() const { return selectedGroup_; }
    /// The key of the selected box; kind Node with id kNoId when nothing is selected.
    VisualKey selectedKey() const { return selectedKey_; }

signals:
    /// The selected operator node changed; kNoId when none is selected now.
    void selectedNodeChanged(graphlens::NodeId node);
    /// The selected collapsed group changed; kNoId when none is selected now. Comes after
    /// selectedNodeChanged() when both change.
    void selectedGroupChanged(graphlens::GroupId group);
    /// A collapsed group box or an expanded group's frame was double-clicked: toggle it.
    void groupActivated(graphlens::GroupId group);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    void updateSelection();
    void applyMark(NodeId node, NodeMark mark);

    VisualGraph graph_;
    SceneStyle style_;
    std::vector<NodeItem*> nodeItems_;
    std::vector<EdgeItem*> edgeItems_;
    std::unordered_map<GroupId, GroupFrameItem*> frames_;
    std::unordered_map<NodeId, NodeMark> marks_;
    std::unordered_map<NodeId, QColor> fills_;
    NodeId selectedNode_ = kNoId;
    GroupId selectedGroup_ = kNoId;
    VisualKey selectedKey_;
    std::optional<VisualKey> lastSelected_;
};

} // namespace graphlens
