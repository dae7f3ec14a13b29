// Two tensors' statistics side by side for the inspector of a compared node: a grid of min, max,
// mean, std and NaN/Inf count with one column per side, and both histograms under it.
#pragma once

#include "viewer/weight_stats.h"

#include <QString>
#include <QWidget>

#include <optional>

class QGridLayout;

namespace graphlens {

/// The statistic rows, top to bottom.
enum PairStatRow { kPairMinRow, kPairMaxRow, kPairMeanRow, kPairStdRow, kPairNonFiniteRow, kPairStatRows };

class TensorPairView : public QWidget {
    Q_OBJECT
public:
    TensorPairView(const std::optional<WeightStats>& a, const std::optional<WeightStats>& b, const QString& titleA,
                   const QString& titleB, QWidget* parent = nullptr);

    /// The text shown for statistic `row` of side A (`side` 0) or B (1); "–" when unknown.
    QString cellText(PairStatRow row, int side) const;

private:
    QGridLayout* grid_ = nullptr;
};

} // namespace graphlens
