// The canvas view: wheel zoom around the cursor, pan by dragging the background, F to fit the
// graph, +/- to zoom; its view state (zoom and center) can be read and set, so a split view
// keeps two views in step. GraphMinimap shows the whole scene with the visible part framed.
#pragma once

#include "core/graph/graph.h"

#include <QGraphicsView>

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

/// A small overview of the scene of `view`, framing the visible part; click or drag to move there.
class GraphMinimap : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphMinimap(GraphView* view, QWidget* parent = nullptr);

    /// Follows the view's scene and fits it (call after the scene was replaced or laid out again).
    void refit();

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    GraphView* view_;
};

} // namespace graphlens
