// A small bar chart of a weight histogram (WeightStats::histogram), painted with QPainter, with
// the range's ends written under it.
#pragma once

#include "viewer/weight_stats.h"

#include <QWidget>

namespace graphlens {

class HistogramWidget : public QWidget {
    Q_OBJECT
public:
    explicit HistogramWidget(const WeightStats& stats, QWidget* parent = nullptr);

    const std::vector<int64_t>& bins() const { return stats_.histogram; }
    QSize sizeHint() const override { return {220, 64}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    WeightStats stats_;
};

} // namespace graphlens
