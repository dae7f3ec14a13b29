// GraphPane: layouts are made in a worker thread and handed back to the UI thread tagged with a
// generation; a result for a graph no longer shown is dropped, a result for an older collapse
// state of the shown graph is only cached.
#include "viewer/graph_pane.h"

#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"

#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QPointer>
#include <QThreadPool>
#include <QVBoxLayout>

namespace graphlens {
namespace {

/// What a layout job hands back.
struct LaidOut {
    std::shared_ptr<const ScopeTree> scopes;
    CollapsedGroups collapsed;
    std::shared_ptr<const VisualGraph> visual;
};

/// Runs in a worker thread: scope groups (when not known yet), the automatic collapse (when no
/// state is asked for), the boxes and the Graphviz layout. A graph Graphviz refuses is shown empty.
LaidOut layOut(const Graph& graph, std::shared_ptr<const ScopeTree> scopes, const std::optional<CollapsedGroups>& collapsed,
               const TextMeasure& measure) {
    LaidOut done;
    done.scopes = scopes ? std::move(scopes) : std::make_shared<const ScopeTree>(graph);
    done.collapsed = collapsed ? *collapsed : automaticCollapse(*done.scopes);
    VisualGraph visual;
    try {
        visual = buildVisualGraph(graph, *done.scopes, {done.collapsed, true, measure});
        layoutVisualGraph(visual, {}, measure);
    } catch (const std::exception&) {
        visual = VisualGraph();
    }
    done.visual = std::make_shared<const VisualGraph>(std::move(visual));
    return done;
}

/// The layout thread's last job and its result. Both sides show the same graph at step 0 and ask
/// for its layout one after the other; the second asks for exactly what the first made, so it
/// takes that rather than running Graphviz again. Only the layout thread touches it.
struct LastLayout {
    std::weak_ptr<const Graph> graph;
    std::optional<CollapsedGroups> wanted;
    bool scopesKnown = false;
    std::shared_ptr<const LaidOut> done;
};

std::shared_ptr<const LaidOut> layOutOnce(const std::shared_ptr<const Graph>& graph, std::shared_ptr<const ScopeTree> scopes,
                                          const std::optional<CollapsedGroups>& wanted, const TextMeasure& measure) {
    static LastLayout last;
    if (last.done && last.graph.lock() == graph && last.wanted == wanted && last.scopesKnown == bool(scopes)) return last.done;
    const bool scopesKnown = bool(scopes);
    auto done = std::make_shared<const LaidOut>(layOut(*graph, std::move(scopes), wanted, measure));
    last = {graph, wanted, scopesKnown, done};
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
    caption_ = new QLabel(this);
    view_ = new GraphView(this);  // made (and so deleted) before the scene: no view outlives it
    scene_ = new GraphScene(this);
    view_->setScene(scene_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(caption_);
    layout->addWidget(view_);
    minimap_ = new GraphMinimap(view_, view_);  // floats over the view's corner
    minimap_->setFixedSize(150, 110);
    minimap_->hide();
    view_->installEventFilter(this);
    view_->viewport()->installEventFilter(this);  // it shrinks when scroll bars appear
    connect(scene_, &GraphScene::groupActivated, this, &GraphPane::toggleGroup);
}

bool GraphPane::eventFilter(QObject* watched, QEvent* event) {
    if ((watched == view_ || watched == view_->viewport()) && event->type() == QEvent::Resize) placeMinimap();
    return QWidget::eventFilter(watched, event);
}

void GraphPane::placeMinimap() {
    constexpr int kMargin = 6;
    const QRect area = view_->viewport()->geometry();
    minimap_->move(area.right() - minimap_->width() - kMargin, area.bottom() - minimap_->height() - kMargin);
    // Only where it leaves most of the canvas free.
    minimap_->setVisible(graphInScene_ && area.width() >= 2 * minimap_->width() && area.height() >= 2 * minimap_->height());
}

void GraphPane::setCaption(const QString& text) { caption_->setText(text); }

void GraphPane::showGraph(std::shared_ptr<const Graph> graph, std::vector<NodeId> marked, NodeMark diffMark) {
    graph_ = std::move(graph);
    scopes_.reset();
    collapsed_.clear();
    cache_.clear();
    diffMarked_ = std::move(marked);
    diffMark_ = diffMark;
    highlighted_.clear();
    pendingFocus_ = kNoId;
    graphInScene_ = false;
    requestLayout({});
}

void GraphPane::requestLayout(const CollapsedGroups& collapsed) {
    const int generation = ++generation_;
    std::optional<CollapsedGroups> wanted;
    if (scopes_) {
        wanted = collapsed_ = collapsed;
        if (const auto hit = cache_.find(collapsed); hit != cache_.end()) {
            shownGeneration_ = generation;
            return present(hit->second);
        }
    }
    QPointer<GraphPane> self(this);
    const std::shared_ptr<const Graph> graph = graph_;
    layoutPool()->start([self, graph, scopes = scopes_, wanted, measure = scene_->textMeasure(), generation] {
        std::shared_ptr<const LaidOut> done = layOutOnce(graph, scopes, wanted, measure);
        QMetaObject::invokeMethod(qApp, [self, graph, done, generation] {
            if (!self || self->graph_ != graph) return;  // another graph is shown now
            if (!self->scopes_) self->scopes_ = done->scopes;
            self->cache_[done->collapsed] = done->visual;
            if (generation != self->generation_) return;  // a newer state was asked for meanwhile
            self->collapsed_ = done->collapsed;
            self->shownGeneration_ = generation;
            self->present(done->visual);
        }, Qt::QueuedConnection);
    });
}

void GraphPane::present(const std::shared_ptr<const VisualGraph>& layout) {
    const NodeId selected = graphInScene_ ? scene_->selectedNode() : kNoId;  // kept across a toggle
    scene_->showGraph(*layout);
    graphInScene_ = true;
    minimap_->refit();
    placeMinimap();
    applyMarks();
    emit graphShown();
    if (pendingFocus_ != kNoId) focusNode(pendingFocus_);
    else if (selected != kNoId) scene_->selectNode(selected);
}

void GraphPane::toggleGroup(GroupId group) {
    if (!scopes_) return;  // the groups are not known before the first layout
    CollapsedGroups next = collapsed_;
    const bool collapse = !next.erase(group);
    if (collapse) next.insert(group);
    requestLayout(next);
    emit groupToggled(QString::fromStdString(scopes_->group(group).path), collapse);
}

void GraphPane::setGroupCollapsed(const QString& path, bool collapsed) {
    if (!scopes_) return;
    const GroupId group = scopes_->findGroup(path.toStdString());
    if (group == kNoId || collapsed_.contains(group) == collapsed) return;
    CollapsedGroups next = collapsed_;
    if (collapsed) next.insert(group);
    else next.erase(group);
    requestLayout(next);
}

void GraphPane::setHighlighted(std::vector<NodeId> nodes) {
    highlighted_ = std::move(nodes);
    applyMarks();
}

void GraphPane::applyMarks() {
    scene_->clearMarks();
    scene_->setNodeMarks(diffMarked_, diffMark_);
    scene_->setNodeMarks(highlighted_, NodeMark::Highlighted);
}

void GraphPane::focusNode(NodeId node) {
    if (!graph_ || !graph_->hasNode(node)) return;
    pendingFocus_ = node;
    if (!scopes_ || layoutPending()) return;  // focused when the layout is in
    CollapsedGroups expanded = collapsed_;
    for (GroupId g = scopes_->groupOf(node); g != kNoId; g = scopes_->group(g).parent) expanded.erase(g);
    if (expanded != collapsed_) return requestLayout(expanded);
    pendingFocus_ = kNoId;
    scene_->selectNode(node);
    view_->centerOnNode(node);
}

} // namespace graphlens
