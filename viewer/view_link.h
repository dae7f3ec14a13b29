// Keeps the views of a split canvas in step without sharing one scroll position: a zoom on one
// side zooms the other around its own center, a pan moves the other by the same scene distance,
// and a pane centering a node (GraphPane::focusNode, centerNode) moves only itself, so each side
// can be centered on its own counterpart of a selection. A new layout in a scene is no pan.
#pragma once

#include "viewer/graph_view.h"

#include <QObject>

namespace graphlens {

class GraphPane;

class ViewLink : public QObject {
    Q_OBJECT
public:
    ViewLink(GraphPane* a, GraphPane* b, QObject* parent = nullptr);

    /// Gives `to` the zoom of `from` and shows the same relative place of its own scene: the top
    /// when `from` shows the top of its graph, the bottom for the bottom, else the same fraction.
    void align(GraphPane* from, GraphPane* to);

private:
    struct Seen {
        GraphView::ViewState state;
        QRectF sceneRect;
    };
    void follow(GraphPane* from, GraphPane* to);
    Seen& seen(const GraphPane* pane) { return pane == a_ ? seenA_ : seenB_; }
    static Seen look(const GraphPane* pane);

    GraphPane* a_;
    GraphPane* b_;
    Seen seenA_, seenB_;
    bool following_ = false;
};

} // namespace graphlens
