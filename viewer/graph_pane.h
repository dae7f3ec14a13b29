// One side of the split canvas: a caption over a GraphView on a GraphScene that shows one graph,
// laid out by Graphviz in a worker thread so the window never waits, and an overview (minimap)
// in its own framed column beside the view. A new model opens at the view's start view with big
// graphs collapsed to their top-level groups; a later graph (the next step of the same model)
// keeps the zoom, the position and the groups' expansion. Name-scope groups collapse and expand
// on double-click; the layout of every collapse state of the shown graph is cached, so toggling
// back is instant; each toggle is announced by the group's path, so the other side of a split
// view can follow it. Diff marks and provenance highlights are kept apart, so clearing a
// highlight brings the diff color back.
#pragma once

#include "core/graph/graph.h"
#include "viewer/graph_view.h"
#include "viewer/scene_style.h"
#include "viewer/scope_tree.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QLabel;

namespace graphlens {

class GraphScene;
struct VisualGraph;

class GraphPane : public QWidget {
    Q_OBJECT
public:
    explicit GraphPane(QWidget* parent = nullptr);

    GraphScene* scene() const { return scene_; }
    GraphView* view() const { return view_; }
    /// The overview, in a framed column right of the view (hidden while it is switched off
    /// with setMinimapEnabled(), before a graph is shown, or while the pane is too narrow).
    GraphMinimap* minimap() const { return minimap_; }
    /// The frame around the minimap: what sits beside the view.
    QWidget* minimapFrame() const { return minimapFrame_; }
    void setMinimapEnabled(bool on);
    bool minimapEnabled() const { return minimapEnabled_; }
    void setCaption(const QString& text);

    /// Shows `graph` with `diffMark` on the nodes `marked`. The layout is made in the background.
    /// The first graph, and the first after startOver(), opens at the start view
    /// (GraphView::showStart()) with big graphs collapsed (automaticCollapse()); a later one keeps
    /// the view state and, group by group path, which groups are collapsed.
    void showGraph(std::shared_ptr<const Graph> graph, std::vector<NodeId> marked, NodeMark diffMark);
    /// The next showGraph() is of another model: it opens at the start view, collapsed anew.
    void startOver();
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
    std::shared_ptr<const ScopeTree> sharedScopes() const { return scopes_; }
    /// Expands the group whose path is `path` and the groups around it (its sub-groups start
    /// collapsed when it is big, see expandGroup()), then shows its frame (GraphView::showTopOf()),
    /// once laid out. Nothing for an unknown path.
    void revealGroup(const QString& path);
    /// How long the layout last put in the scene took to make (scope groups, boxes, Graphviz), in
    /// milliseconds; 0 for a cached one.
    qint64 lastLayoutMilliseconds() const { return lastLayoutMs_; }
    const CollapsedGroups& collapsedGroups() const { return collapsed_; }
    /// How many collapse states of the shown graph have a layout ready.
    size_t cachedLayouts() const { return cache_.size(); }

    /// Marks `nodes` with `mark` besides the diff marks of showGraph() (a comparison's changed
    /// nodes), until the next showGraph().
    void setExtraMarks(std::vector<NodeId> nodes, NodeMark mark);
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

    /// `collapsed` with `group` and the groups around it expanded; the sub-groups of a group
    /// of more than kOpenSubgroupsUpTo nodes are collapsed, so it opens as a few readable boxes.
    CollapsedGroups expandGroup(CollapsedGroups collapsed, GroupId group) const;
    static constexpr size_t kOpenSubgroupsUpTo = 150;
    static constexpr int kMinimapWidth = 110;

signals:
    /// A layout of the shown graph went into the scene.
    void graphShown();
    /// toggleGroup() collapsed (`collapsed`) or expanded the group whose path is `path`.
    void groupToggled(const QString& path, bool collapsed);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void placeMinimap();
    void showFirstView();
    void keepView();
    void requestLayout(const CollapsedGroups& collapsed);
    void present(const std::shared_ptr<const VisualGraph>& layout);
    void applyMarks();
    void reveal(NodeId node, bool select);

    QLabel* caption_ = nullptr;
    GraphScene* scene_ = nullptr;
    GraphView* view_ = nullptr;
    GraphMinimap* minimap_ = nullptr;
    QWidget* minimapFrame_ = nullptr;
    bool minimapEnabled_ = true;
    std::shared_ptr<const Graph> graph_;
    /// What a graph shown after another keeps of it: the view and, by group path, whether each
    /// group was collapsed. Unset for the start view.
    std::optional<GraphView::ViewState> keptView_;
    /// Boxes near the middle of the kept view, nearest first, and where each was from the
    /// middle: the next graph puts the first of them it still has at the same place.
    struct ViewAnchor {
        VisualKey::Kind kind;
        QString name;
        QPointF offset;  ///< box center minus view center, scene units
    };
    std::vector<ViewAnchor> keptAnchors_;
    std::map<std::string, bool> keptCollapse_;
    bool startOver_ = true;
    bool firstLayoutOfGraph_ = false;  ///< the next present() is the first of graph_
    bool startViewWhenShown_ = false;  ///< the start view was made while the view was hidden
    QString pendingReveal_;
    qint64 lastLayoutMs_ = 0;
    std::shared_ptr<const ScopeTree> scopes_;  ///< null until the first layout of graph_ is in
    CollapsedGroups collapsed_;
    std::map<CollapsedGroups, std::shared_ptr<const VisualGraph>> cache_;
    std::vector<NodeId> diffMarked_;
    NodeMark diffMark_ = NodeMark::Normal;
    std::vector<NodeId> extraMarked_;
    NodeMark extraMark_ = NodeMark::Normal;
    std::vector<NodeId> highlighted_;
    NodeId pendingFocus_ = kNoId;
    bool pendingSelect_ = false;  ///< the pending focus selects its node
    bool centering_ = false;
    bool graphInScene_ = false;  ///< the scene shows a layout of graph_ (not of the graph before)
    int generation_ = 0;       ///< bumped for each layout asked for
    int shownGeneration_ = 0;  ///< the generation whose layout is in the scene
};

} // namespace graphlens
