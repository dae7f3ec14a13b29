// The memory chart of a profiled plan: arena bytes alive at each execution step as columns,
// against the planned arena size (a solid line) and the naive sum of every tensor (dashed, or
// said to be off the scale when it is far above), under a caption that wraps to the width and
// names the three figures: planned arena, naive sum and lower bound (the tallest column). Hovering a column names the step's node
// and its bytes; clicking it marks the column and asks for the node, and selectNode() marks the
// column of a node selected elsewhere (the canvas), as the timeline outlines its bar.
#pragma once

#include "profiler/profile_session.h"

#include <QWidget>

#include <vector>

namespace graphlens {

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);

    void setSteps(std::vector<MemoryStep> steps, uint64_t arenaBytes, uint64_t naiveBytes);
    void clear();
    const std::vector<MemoryStep>& steps() const { return steps_; }
    uint64_t arenaBytes() const { return arena_; }
    uint64_t naiveBytes() const { return naive_; }
    /// The most bytes alive at one step (the chart's tallest column).
    uint64_t peakBytes() const;
    /// The bytes at the top of the chart's y axis.
    double topBytes() const;
    /// Whether the naive sum's line is drawn (it is named in the caption instead when it would
    /// squash the columns).
    bool showsNaiveLine() const;

    /// The caption above the plot, wrapped to the width: "Planned arena 192 kB · naive sum 1 MB
    /// · lower bound 160 kB (most bytes live at one step) · 23 steps"; empty without steps.
    QString caption() const;
    /// Where the caption is drawn (its height grows as the width shrinks); the plot starts below.
    QRectF captionRect() const;
    /// Where step `step`'s column is drawn, in widget coordinates.
    QRectF columnRect(int step) const;
    /// The y of `bytes` in widget coordinates.
    qreal yOf(double bytes) const;
    /// The step under widget x `x`; -1 outside the columns.
    int stepAt(qreal x) const;
    /// "step 12 of 23: /stem/conv/Conv (Conv)\nlive 64 kB of a 192 kB arena".
    QString toolTipFor(int step) const;
    int hoveredStep() const { return hovered_; }
    /// Marks the column of `node` (a filled, outlined column; kNoId: none).
    void selectNode(NodeId node);
    NodeId selectedNode() const { return selected_; }
    /// The step of the marked column; -1 when none is marked or the node ran no step here.
    int selectedStep() const;

    QSize sizeHint() const override { return {320, 180}; }
    QSize minimumSizeHint() const override { return {160, 100}; }

signals:
    void nodeClicked(graphlens::NodeId node);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF plotRect() const;
    void paintReference(QPainter& painter, double bytes, const QPen& pen, const QString& label) const;

    std::vector<MemoryStep> steps_;
    uint64_t arena_ = 0;
    uint64_t naive_ = 0;
    int hovered_ = -1;
    NodeId selected_ = kNoId;
};

} // namespace graphlens
