// GraphPane: layouts are made in a worker thread and handed back to the UI thread tagged with a
// generation; a result for a graph no longer shown is dropped, a result for an older collapse
// state of the shown graph is only cached. The first layout of a graph gets the start view or
// the view the graph before it had.
#include "viewer/graph_pane.h"

#include "viewer/elided_label.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/group_frame_item.h"
#include "viewer/node_item.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QScopeGuard>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>

namespace graphlens {
namespace {

/// What a layout job hands back.
struct LaidOut {
    std::shared_ptr<const ScopeTree> scopes;
    CollapsedGroups collapsed;
    std::shared_ptr<const VisualGraph> visual;
    qint64 milliseconds = 0;
};

/// The automatic collapse of `scopes`, except for the groups whose path is in `kept` (what the
/// graph shown before had of them).
CollapsedGroups initialCollapse(const ScopeTree& scopes, const std::map<std::string, bool>& kept) {
    CollapsedGroups collapsed = automaticCollapse(scopes);
    if (kept.empty()) return collapsed;
    for (const ScopeGroup& g : scopes.groups()) {
        const auto it = kept.find(g.path);
        if (it == kept.end()) continue;
        if (it->second) collapsed.insert(g.id);
        else collapsed.erase(g.id);
    }
    return collapsed;
}

/// Runs in a worker thread: scope groups (when not known yet), the initial collapse (when no
/// state is asked for), the boxes and the Graphviz layout. A graph Graphviz refuses is shown empty.
LaidOut layOut(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, const std::optional<CollapsedGroups>& collapsed,
               const std::map<std::string, bool>& kept, const TextMeasure& measure) {
    QElapsedTimer timer;
    timer.start();
    LaidOut done;
    done.scopes = scopes ? std::move(scopes) : std::make_shared<const ScopeTree>(graph);
    done.collapsed = collapsed ? *collapsed : initialCollapse(*done.scopes, kept);
    VisualGraph visual;
    try {
        visual = buildVisualGraph(graph, *done.scopes, {done.collapsed, true, measure});
        layoutVisualGraph(visual, {}, measure);
    } catch (const std::exception&) {
        visual = VisualGraph();
    }
    done.visual = std::make_shared<const VisualGraph>(std::move(visual));
    done.milliseconds = timer.elapsed();
    return done;
}

/// The layout thread's last job and its result. Both sides show the same graph at step 0 and ask
/// for its layout one after the other; the second asks for exactly what the first made, so it
/// takes that rather than running Graphviz again. Only the layout thread touches it.
struct LastLayout {
    std::weak_ptr<const Graph> graph;
    std::optional<CollapsedGroups> wanted;
    std::map<std::string, bool> kept;  ///< the collapse state kept from the graph shown before
    bool scopesKnown = false;
    std::shared_ptr<const LaidOut> done;
};

std::shared_ptr<const LaidOut> layOutOnce(const std::shared_ptr<const Graph>& graph, std::shared_ptr<const ScopeTree> scopes,
                                          const std::optional<CollapsedGroups>& wanted,
                                          const std::map<std::string, bool>& kept, const TextMeasure& measure) {
    static LastLayout last;
    if (last.done && last.graph.lock() == graph && last.wanted == wanted && last.kept == kept &&
        last.scopesKnown == bool(scopes))
        return last.done;
    const bool scopesKnown = bool(scopes);
    auto done = std::make_shared<const LaidOut>(layOut(*graph, std::move(scopes), wanted, kept, measure));
    last = {graph, wanted, kept, scopesKnown, done};
    return done;
}

/// The layout jobs' own thread: Graphviz calls are serialized anyway, and Qt's raster painter
/// splits big fills over the global pool and waits for them, so long layouts there would stall
/// the UI thread's painting.
QThreadPool* layoutPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool(qApp);
        p->setMaxThreadCount(1);
        return p;
    }();
    return pool;
}

} // namespace

GraphPane::GraphPane(QWidget* parent) : QWidget(parent) {
    caption_ = new ElidedLabel(this);  // a longer caption never widens the pane
    view_ = new GraphView(this);  // made (and so deleted) before the scene: no view outlives it
    scene_ = new GraphScene(this);
    view_->setScene(scene_);
    // The overview sits in its own framed column, so it never covers the graph.
    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setFixedWidth(kMinimapWidth);
    minimapFrame_ = frame;
    minimap_ = new GraphMinimap(view_, frame);
    auto* frameLayout = new QVBoxLayout(frame);
    frameLayout->setContentsMargins(1, 1, 1, 1);
    frameLayout->addWidget(minimap_);
    auto* canvas = new QHBoxLayout;
    canvas->setContentsMargins(0, 0, 0, 0);
    canvas->setSpacing(2);
    canvas->addWidget(view_, 1);
    canvas->addWidget(frame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption_);
    layout->addLayout(canvas, 1);
    minimapFrame_->hide();
    view_->viewport()->installEventFilter(this);
    connect(scene_, &GraphScene::groupActivated, this, &GraphPane::toggleGroup);
}

bool GraphPane::eventFilter(QObject* watched, QEvent* event) {
    // A start view made while the view was hidden (or not sized yet) is made again once it shows.
    if (watched == view_->viewport() && event->type() == QEvent::Resize && startViewWhenShown_ && view_->isVisible()) {
        startViewWhenShown_ = false;
        QMetaObject::invokeMethod(this, [this] { view_->showStart(); }, Qt::QueuedConnection);
    }
    return QWidget::eventFilter(watched, event);
}

void GraphPane::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    placeMinimap();
}

void GraphPane::placeMinimap() {
    // Only where the graph keeps most of the pane's width.
    const bool room = width() >= 3 * kMinimapWidth;
    minimapFrame_->setVisible(minimapEnabled_ && graphInScene_ && room);
}

void GraphPane::setMinimapEnabled(bool on) {
    minimapEnabled_ = on;
    placeMinimap();
}

void GraphPane::setCaption(const QString& text) { caption_->setText(text); }

void GraphPane::startOver() { startOver_ = true; }

void GraphPane::showGraph(std::shared_ptr<const Graph> graph, std::vector<NodeId> marked, NodeMark diffMark) {
    if (std::exchange(startOver_, false)) {
        keptView_.reset();
        keptAnchors_.clear();
        keptCollapse_.clear();
    } else if (graphInScene_ && scopes_) {  // the graph shown now hands its state on
        keepView();
        keptCollapse_.clear();
        for (const ScopeGroup& g : scopes_->groups()) keptCollapse_[g.path] = collapsed_.contains(g.id);
    }
    graph_ = std::move(graph);
    extraMarked_.clear();
    scopes_.reset();
    collapsed_.clear();
    cache_.clear();
    diffMarked_ = std::move(marked);
    diffMark_ = diffMark;
    highlighted_.clear();
    pendingFocus_ = kNoId;
    pendingReveal_.clear();
    graphInScene_ = false;
    firstLayoutOfGraph_ = true;
    requestLayout({});
}

void GraphPane::requestLayout(const CollapsedGroups& collapsed) {
    const int generation = ++generation_;
    std::optional<CollapsedGroups> wanted;
    if (scopes_) {
        wanted = collapsed_ = collapsed;
        if (const auto hit = cache_.find(collapsed); hit != cache_.end()) {
            shownGeneration_ = generation;
            lastLayoutMs_ = 0;
            return present(hit->second);
        }
    }
    QPointer<GraphPane> self(this);
    const std::shared_ptr<const Graph> graph = graph_;
    layoutPool()->start([self, graph, scopes = scopes_, wanted, kept = keptCollapse_, measure = scene_->textMeasure(), generation] {
        std::shared_ptr<const LaidOut> done = layOutOnce(graph, scopes, wanted, kept, measure);
        QMetaObject::invokeMethod(qApp, [self, graph, done, generation] {
            if (!self || self->graph_ != graph) return;  // another graph is shown now
            if (!self->scopes_) self->scopes_ = done->scopes;
            self->cache_[done->collapsed] = done->visual;
            if (generation != self->generation_) return;  // a newer state was asked for meanwhile
            self->collapsed_ = done->collapsed;
            self->shownGeneration_ = generation;
            self->lastLayoutMs_ = done->milliseconds;
            self->present(done->visual);
        }, Qt::QueuedConnection);
    });
}

void GraphPane::present(const std::shared_ptr<const VisualGraph>& layout) {
    const NodeId selected = graphInScene_ ? scene_->selectedNode() : kNoId;  // kept across a toggle
    scene_->showGraph(*layout);
    view_->setSceneRect(QRectF());  // the scene's own, whatever centering widened before
    graphInScene_ = true;
    minimap_->refit();
    placeMinimap();
    applyMarks();
    if (std::exchange(firstLayoutOfGraph_, false)) showFirstView();
    emit graphShown();
    if (pendingFocus_ != kNoId) reveal(pendingFocus_, pendingSelect_);
    else if (selected != kNoId) scene_->selectNode(selected);
    if (!pendingReveal_.isEmpty()) revealGroup(pendingReveal_);
}

void GraphPane::keepView() {
    constexpr size_t kAnchors = 12;
    keptView_ = view_->viewState();
    std::vector<std::pair<qreal, ViewAnchor>> near;
    for (const VisualNode& n : scene_->visualGraph().nodes) {
        if (n.name.isEmpty()) continue;
        const QPointF offset = n.rect.center() - keptView_->center;
        near.push_back({offset.manhattanLength(), {n.key.kind, n.name, offset}});
    }
    const size_t count = std::min(near.size(), kAnchors);
    std::partial_sort(near.begin(), near.begin() + qsizetype(count), near.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
    keptAnchors_.clear();
    for (size_t i = 0; i < count; ++i) keptAnchors_.push_back(near[i].second);
}

void GraphPane::showFirstView() {
    // The pane's own view of a new layout: the linked pane must not take it for a pan.
    centering_ = true;
    const auto done = qScopeGuard([this] { centering_ = false; });
    if (keptView_) {
        // The same boxes in the same place where the new graph still has one of them (a step
        // moves boxes: fused ones go, the rest shift), else the same scene point.
        GraphView::ViewState state = *keptView_;
        for (const ViewAnchor& anchor : keptAnchors_) {
            const auto& nodes = scene_->visualGraph().nodes;
            const auto same = std::find_if(nodes.begin(), nodes.end(),
                                           [&](const VisualNode& n) { return n.key.kind == anchor.kind && n.name == anchor.name; });
            if (same == nodes.end()) continue;
            state.center = same->rect.center() - anchor.offset;
            break;
        }
        return view_->setViewState(state);
    }
    view_->showStart();
    startViewWhenShown_ = !view_->isVisible();
}

CollapsedGroups GraphPane::expandGroup(CollapsedGroups collapsed, GroupId group) const {
    for (GroupId g = group; g != kNoId; g = scopes_->group(g).parent) {
        const bool wasCollapsed = collapsed.erase(g) > 0 || scopes_->collapsedAncestorOfGroup(g, collapsed) != kNoId;
        const ScopeGroup& opened = scopes_->group(g);
        if (wasCollapsed && opened.totalNodes > kOpenSubgroupsUpTo)
            for (GroupId child : opened.children) collapsed.insert(child);
    }
    // The path down to `group` stays open.
    for (GroupId g = group; g != kNoId; g = scopes_->group(g).parent) collapsed.erase(g);
    return collapsed;
}

void GraphPane::revealGroup(const QString& path) {
    pendingReveal_ = path;
    if (!scopes_ || layoutPending()) return;  // revealed when the layout is in
    const GroupId group = scopes_->findGroup(path.toStdString());
    if (group == kNoId) return pendingReveal_.clear();
    const CollapsedGroups expanded = expandGroup(collapsed_, group);
    if (expanded != collapsed_) return requestLayout(expanded);
    pendingReveal_.clear();
    if (const GroupFrameItem* frame = scene_->frameForGroup(group)) view_->showTopOf(frame->boundingRect());
}

void GraphPane::toggleGroup(GroupId group) {
    if (!scopes_) return;  // the groups are not known before the first layout
    const bool collapse = !collapsed_.contains(group);
    CollapsedGroups next = collapsed_;
    if (collapse) next.insert(group);
    else next = expandGroup(std::move(next), group);
    requestLayout(next);
    emit groupToggled(QString::fromStdString(scopes_->group(group).path), collapse);
}

void GraphPane::setGroupCollapsed(const QString& path, bool collapsed) {
    if (!scopes_) return;
    const GroupId group = scopes_->findGroup(path.toStdString());
    if (group == kNoId || collapsed_.contains(group) == collapsed) return;
    CollapsedGroups next = collapsed_;
    if (collapsed) next.insert(group);
    else next = expandGroup(std::move(next), group);
    requestLayout(next);
}

void GraphPane::setExtraMarks(std::vector<NodeId> nodes, NodeMark mark) {
    extraMarked_ = std::move(nodes);
    extraMark_ = mark;
    applyMarks();
}

void GraphPane::setHighlighted(std::vector<NodeId> nodes) {
    highlighted_ = std::move(nodes);
    applyMarks();
}

void GraphPane::applyMarks() {
    scene_->clearMarks();
    scene_->setNodeMarks(diffMarked_, diffMark_);
    scene_->setNodeMarks(extraMarked_, extraMark_);
    scene_->setNodeMarks(highlighted_, NodeMark::Highlighted);
}

void GraphPane::focusNode(NodeId node) { reveal(node, true); }
void GraphPane::centerNode(NodeId node) { reveal(node, false); }

void GraphPane::reveal(NodeId node, bool select) {
    if (!graph_ || !graph_->hasNode(node)) return;
    pendingFocus_ = node;
    pendingSelect_ = select;
    if (!scopes_ || layoutPending()) return;  // focused when the layout is in
    CollapsedGroups expanded = collapsed_;
    for (GroupId g = scopes_->groupOf(node); g != kNoId; g = scopes_->group(g).parent) expanded.erase(g);
    if (expanded != collapsed_) return requestLayout(expanded);
    pendingFocus_ = kNoId;
    if (select) scene_->selectNode(node);
    centering_ = true;
    view_->centerOnNode(node);  // zooms in to readable size if needed
    // A node near an edge of the graph is centered too: the view may scroll past the edge as
    // far as that needs, until the next layout.
    if (const NodeItem* item = scene_->itemForNode(node)) {
        const QPointF center = item->sceneBoundingRect().center();
        const QSizeF half = QSizeF(view_->viewport()->size()) / (2 * view_->zoom());
        view_->setSceneRect(view_->sceneRect().united(QRectF(center - QPointF(half.width(), half.height()), 2 * half)));
        view_->centerOn(center);
    }
    centering_ = false;
}

} // namespace graphlens
