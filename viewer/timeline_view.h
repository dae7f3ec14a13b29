// The timeline of one profiled run: each executed node a bar in execution order, x the time from
// the start of the run on a time axis in ms, one row per thread or queue (as in the Chrome
// trace), bars in the color of their op family with the node's name on those wide enough for
// it. The wheel and +/- zoom the time axis about the pointer, a drag or the scroll bar pans,
// 0 fits the run again. Hovering a bar names its node, op and time; clicking selects it.
#pragma once

#include "profiler/run_timeline.h"

#include <QGraphicsRectItem>
#include <QGraphicsView>

#include <vector>

class QGraphicsSimpleTextItem;

namespace graphlens {

/// One bar; it keeps its index into the view's bars, not a pointer into the profile.
class TimelineBarItem : public QGraphicsRectItem {
public:
    enum { Type = UserType + 20 };
    TimelineBarItem(const QRectF& rect, size_t index) : QGraphicsRectItem(rect), index_(index) {}
    int type() const override { return Type; }
    size_t index() const { return index_; }

private:
    size_t index_;
};

class TimelineView : public QGraphicsView {
    Q_OBJECT
public:
    /// A labelled tick of the time axis.
    struct AxisTick {
        double ms;
        qreal x;        ///< scene x
        QString label;  ///< "1.5 ms"
    };

    explicit TimelineView(QWidget* parent = nullptr);

    /// Shows `bars` (one run); `runLabel` names the run in the axis caption.
    void setBars(std::vector<TimelineBar> bars, const QString& runLabel = {});
    void clear();
    const std::vector<TimelineBar>& bars() const { return bars_; }
    /// The bar items in the order of bars().
    const std::vector<TimelineBarItem*>& barItems() const { return items_; }
    /// The name drawn on bar `index` (elided to fit); empty when the bar is too narrow for one.
    QString barLabel(size_t index) const;
    /// The time axis' ticks, left to right.
    const std::vector<AxisTick>& axisTicks() const { return ticks_; }
    /// The run's span: from its first start to its last end, in ms.
    double spanMs() const;
    /// Outlines the bar of `node` and scrolls it into view (kNoId: none).
    void selectNode(NodeId node);
    NodeId selectedNode() const { return selected_; }
    /// Horizontal zoom over the fitted width (1: the run fills the view), keeping the time at
    /// the view's center where it is.
    void setZoom(double zoom);
    /// The same, keeping the time under viewport x `anchorX` under it.
    void zoomAbout(double zoom, int anchorX);
    double zoom() const { return zoom_; }
    /// The time in ms at viewport x `x`.
    double msAt(int x) const;

signals:
    /// A bar was clicked.
    void nodeClicked(graphlens::NodeId node);

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    void rebuild();
    void addAxis(qreal width, qreal bottom);
    void addBarLabel(TimelineBarItem& item, const TimelineBar& bar);

    std::vector<TimelineBar> bars_;
    std::vector<TimelineBarItem*> items_;
    std::vector<QGraphicsSimpleTextItem*> labels_;  ///< parallel to items_; nullptr where none
    std::vector<AxisTick> ticks_;
    QString runLabel_;
    NodeId selected_ = kNoId;
    double zoom_ = 1;
    double pxPerMs_ = 1;
    int builtWidth_ = -1;
};

} // namespace graphlens
