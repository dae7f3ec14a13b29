// The canvas view: wheel zoom around the cursor, pan by dragging the background, F to fit the
// graph, +/- to zoom; a graph opens at its start view (the inputs at a zoom where the op types
// read); its view state (zoom and center) can be read and set, so a split view keeps two views
// in step. GraphMinimap shows the whole scene with the visible part framed, beside the view.
#pragma once

#include "core/graph/graph.h"

#include <QGraphicsView>
#include <QPixmap>

namespace graphlens {

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    /// What a synchronized view copies: the scale and the scene point in the middle.
    struct ViewState {
        qreal zoom = 1;
        QPointF center;
    };
    ViewState viewState() const;
    void setViewState(const ViewState& state);

    qreal zoom() const { return transform().m11(); }
    /// Zooms by `factor` keeping the scene point under `viewPos` (a viewport position) in place.
    void zoomBy(qreal factor, QPointF viewPos);
    void zoomIn();
    void zoomOut();
    /// The whole scene in the window (never magnified beyond 100%).
    void fitToWindow();
    /// The start view of a graph (GraphScene): the whole graph when it fits the window at
    /// readableZoom() or more (fitted, never beyond 100%); else readableZoom() with the top of the
    /// graph at the top of the window, centered on the first graph input.
    void showStart();
    /// The zoom at which the op-type text of `scene`'s boxes is kStartTitlePixels tall on screen.
    static qreal readableZoom(const QGraphicsScene* scene);
    static constexpr qreal kStartTitlePixels = 12;
    /// Shows `rect` (an expanded group's frame): all of it when it fits at readableZoom() or
    /// more (at most 100%), else its top at readableZoom().
    void showTopOf(const QRectF& rect);
    /// Centers the box showing `node` (GraphScene), zooming in to readable size if needed.
    void centerOnNode(NodeId node);
    /// The part of the scene the viewport shows.
    QRectF visibleSceneRect() const;

    static constexpr qreal kMinZoom = 0.01;
    static constexpr qreal kMaxZoom = 8;

signals:
    /// Zoom or scroll position changed (also by the user).
    void viewChanged();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;
};

/// A small overview of the scene of `view`, framing the visible part; click or drag to move
/// there. It draws a picture of the scene made when the scene was laid out (and again a moment
/// after the scene changes), so moving the view never redraws thousands of boxes twice.
class GraphMinimap : public QWidget {
    Q_OBJECT
public:
    explicit GraphMinimap(GraphView* view, QWidget* parent = nullptr);

    /// The scene shown: the view's.
    QGraphicsScene* scene() const;
    /// Follows the view's scene and draws it again (call after the scene was replaced or laid out again).
    void refit();
    /// Where scene point `p` is in this widget, and back.
    QPointF mapFromScene(QPointF p) const;
    QPointF mapToScene(QPointF p) const;
    /// The part of the widget the scene picture covers.
    QRectF pictureRect() const { return picture_.isNull() ? QRectF() : QRectF(pictureAt_, QSizeF(picture_.size())); }

    QSize sizeHint() const override { return {120, 200}; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void render();
    void scheduleRender();

    GraphView* view_;
    QPixmap picture_;
    QPointF pictureAt_;  ///< top left of the picture in the widget
    QRectF source_;      ///< the scene rectangle the picture shows
    QPointF scale_{1, 1};  ///< widget pixels per scene unit, across and down
    bool renderScheduled_ = false;
    bool stale_ = false;  ///< the scene changed while hidden
    QMetaObject::Connection sceneChanged_;
};

} // namespace graphlens
