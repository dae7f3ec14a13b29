// One side of the split canvas: a caption over a GraphView on a GraphScene that shows one graph,
// laid out by Graphviz in a worker thread so the window never waits. Name-scope groups collapse
// and expand on double-click; the layout of every collapse state of the shown graph is cached,
// so toggling back is instant; each toggle is announced by the group's path, so the other side
// of a split view can follow it. Diff marks and provenance highlights are kept apart, so clearing
// a highlight brings the diff color back.
#pragma once

#include "core/graph/graph.h"
#include "viewer/scene_style.h"
#include "viewer/scope_tree.h"

#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QLabel;

namespace graphlens {

class GraphMinimap;
class GraphScene;
class GraphView;
struct VisualGraph;

class GraphPane : public QWidget {
    Q_OBJECT
public:
    explicit GraphPane(QWidget* parent = nullptr);

    GraphScene* scene() const { return scene_; }
    GraphView* view() const { return view_; }
    /// The overview in the view's bottom-right corner (hidden while the view is too small for it).
    GraphMinimap* minimap() const { return minimap_; }
    void setCaption(const QString& text);

    /// Shows `graph` with `diffMark` on the nodes `marked`; big graphs start with their groups
    /// collapsed (automaticCollapse()). The layout is made in the background.
    void showGraph(std::shared_ptr<const Graph> graph, std::vector<NodeId> marked, NodeMark diffMark);
    /// The graph shown (or being laid out); nullptr before the first showGraph().
    const Graph* graph() const { return graph_.get(); }
    /// True while the layout last asked for is not in the scene yet.
    bool layoutPending() const { return shownGeneration_ != generation_; }

    /// Expands group `group` when it is collapsed and collapses it when it is expanded, and says
    /// so with groupToggled().
    void toggleGroup(GroupId group);
    /// Collapses or expands the group whose path is `path` ("/layer1/layer1.0") without emitting
    /// groupToggled(); nothing when the shown graph has no such group or its groups are not
    /// known yet (before its first layout).
    void setGroupCollapsed(const QString& path, bool collapsed);
    /// The name-scope groups of the shown graph; nullptr until its first layout is in.
    const ScopeTree* scopes() const { return scopes_.get(); }
    const CollapsedGroups& collapsedGroups() const { return collapsed_; }
    /// How many collapse states of the shown graph have a layout ready.
    size_t cachedLayouts() const { return cache_.size(); }

    /// Marks `nodes` NodeMark::Highlighted, in place of the previous highlight.
    void setHighlighted(std::vector<NodeId> nodes);
    const std::vector<NodeId>& highlighted() const { return highlighted_; }

    /// Selects and centers `node`; groups hiding it are expanded first (laid out again in the
    /// background when that state is not cached, and focused when the layout is in). A node near
    /// the edge of the graph is centered too: the view scrolls past the edge until the next layout.
    void focusNode(NodeId node);
    /// Centers `node` as focusNode() does, without selecting it.
    void centerNode(NodeId node);
    /// True while the view moves to center a node: a split view's other side does not follow.
    bool centeringNode() const { return centering_; }

signals:
    /// A layout of the shown graph went into the scene.
    void graphShown();
    /// toggleGroup() collapsed (`collapsed`) or expanded the group whose path is `path`.
    void groupToggled(const QString& path, bool collapsed);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void placeMinimap();
    void requestLayout(const CollapsedGroups& collapsed);
    void present(const std::shared_ptr<const VisualGraph>& layout);
    void applyMarks();
    void reveal(NodeId node, bool select);

    QLabel* caption_ = nullptr;
    GraphScene* scene_ = nullptr;
    GraphView* view_ = nullptr;
    GraphMinimap* minimap_ = nullptr;
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const ScopeTree> scopes_;  ///< null until the first layout of graph_ is in
    CollapsedGroups collapsed_;
    std::map<CollapsedGroups, std::shared_ptr<const VisualGraph>> cache_;
    std::vector<NodeId> diffMarked_;
    NodeMark diffMark_ = NodeMark::Normal;
    std::vector<NodeId> highlighted_;
    NodeId pendingFocus_ = kNoId;
    bool pendingSelect_ = false;  ///< the pending focus selects its node
    bool centering_ = false;
    bool graphInScene_ = false;  ///< the scene shows a layout of graph_ (not of the graph before)
    int generation_ = 0;       ///< bumped for each layout asked for
    int shownGeneration_ = 0;  ///< the generation whose layout is in the scene
};

} // namespace graphlens
