// ViewLink: each view's last state is remembered, so a change can be told apart as a zoom (the
// scale differs), a pan (only the center moved) or a new layout (the scene rectangle changed).
#include "viewer/view_link.h"

#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"


namespace graphlens {

ViewLink::ViewLink(GraphPane* a, GraphPane* b, QObject* parent) : QObject(parent), a_(a), b_(b) {
    seenA_ = look(a_);
    seenB_ = look(b_);
    connect(a_->view(), &GraphView::viewChanged, this, [this] { follow(a_, b_); });
    connect(b_->view(), &GraphView::viewChanged, this, [this] { follow(b_, a_); });
}

ViewLink::Seen ViewLink::look(const GraphPane* pane) {
    const GraphView* view = pane->view();
    return {view->viewState(), view->scene() ? view->scene()->sceneRect() : QRectF()};
}

void ViewLink::follow(GraphPane* from, GraphPane* to) {
    if (following_) return;
    if (from->layoutPending() || to->layoutPending()) {  // a new graph coming: each side makes its own view
        seen(from) = look(from);
        return;
    }
    const Seen before = seen(from);
    const Seen now = look(from);
    seen(from) = now;
    GraphView::ViewState next = to->view()->viewState();
    bool move = false;
    if (!qFuzzyCompare(now.state.zoom, before.state.zoom)) {
        next.zoom = now.state.zoom;  // around the other side's own center
        move = true;
    }
    // A pan, not a new layout nor a pane centering a node of its own.
    if (now.sceneRect == before.sceneRect && !from->centeringNode() && now.state.center != before.state.center) {
        next.center += now.state.center - before.state.center;
        move = true;
    }
    if (move) {
        following_ = true;
        to->view()->setViewState(next);
        following_ = false;
    }
    seen(to) = look(to);
}

namespace {

/// Where the other view's center goes along one axis: against the same edge when the source
/// view shows an edge of its scene (the top and left first: where a graph starts), else at the
/// same fraction.
qreal alignedCenter(qreal shownLo, qreal shownHi, qreal center, qreal lo, qreal hi, qreal targetLo, qreal targetHi, qreal half) {
    const bool showsLo = shownLo <= lo + 0.5, showsHi = shownHi >= hi - 0.5;
    if (showsLo) return targetLo + half;
    if (showsHi) return targetHi - half;
    return hi > lo ? targetLo + (center - lo) / (hi - lo) * (targetHi - targetLo) : (targetLo + targetHi) / 2;
}

} // namespace

void ViewLink::align(GraphPane* from, GraphPane* to) {
    const Seen source = look(from);
    const QRectF shown = from->view()->visibleSceneRect();
    const QRectF target = to->view()->scene() ? to->view()->scene()->sceneRect() : QRectF();
    const QSizeF half = QSizeF(to->view()->viewport()->size()) / (2 * source.state.zoom);
    const QRectF& s = source.sceneRect;
    const QPointF center(alignedCenter(shown.left(), shown.right(), source.state.center.x(), s.left(), s.right(), target.left(),
                                       target.right(), half.width()),
                         alignedCenter(shown.top(), shown.bottom(), source.state.center.y(), s.top(), s.bottom(), target.top(),
                                       target.bottom(), half.height()));
    following_ = true;
    to->view()->setViewState({source.state.zoom, center});
    following_ = false;
    seen(from) = source;
    seen(to) = look(to);
}

} // namespace graphlens
