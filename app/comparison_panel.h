// The Comparison dock: starts the window's comparisons (another file against the model shown,
// the current step on the CPU against a Vulkan device, the left side's snapshot against the
// current step, the current step against its quantize-int8-weights form), shows the summary of the
// one shown (matched, only A, only B, changed, first divergence, the outputs' errors), the Error
// overlay's switch and legend, and one row per compared node (B's name, op, max rel, max abs,
// cosine); a row focuses its node on the B side.
#pragma once

#include "app/model_diff.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace graphlens {

class HeatLegendWidget;

/// Comparison table columns.
enum DiffColumn { kDiffNodeColumn, kDiffOpColumn, kDiffRelColumn, kDiffAbsColumn, kDiffCosineColumn, kDiffColumns };

class ComparisonPanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonPanel(QWidget* parent = nullptr);

    /// Shows `diff` (nullptr: none).
    void setDiff(std::shared_ptr<const ModelDiff> diff);
    const ModelDiff* diff() const { return diff_.get(); }
    std::shared_ptr<const ModelDiff> sharedDiff() const { return diff_; }
    /// Shows a line of its own (a bisection that found nothing, a failure), keeping no diff.
    void showMessage(const QString& text);

    bool errorOverlay() const;
    void setErrorOverlay(bool on);

    QPushButton* fileButton() const { return file_; }
    QPushButton* backendsButton() const { return backends_; }
    QPushButton* stepsButton() const { return steps_; }
    QPushButton* quantizedButton() const { return quantized_; }
    QLabel* summaryLabel() const { return summary_; }
    HeatLegendWidget* legend() const { return legend_; }
    QTableWidget* table() const { return table_; }

signals:
    void fileCompareRequested();
    void backendCompareRequested();
    void stepCompareRequested();
    void quantizedCompareRequested();
    void errorOverlayChanged(bool on);
    /// A row was clicked: focus B node `node`.
    void nodeActivated(graphlens::NodeId node);

private:
    void fillTable();

    QPushButton* file_ = nullptr;
    QPushButton* backends_ = nullptr;
    QPushButton* steps_ = nullptr;
    QPushButton* quantized_ = nullptr;
    QCheckBox* overlay_ = nullptr;
    HeatLegendWidget* legend_ = nullptr;
    QLabel* summary_ = nullptr;
    QTableWidget* table_ = nullptr;
    std::shared_ptr<const ModelDiff> diff_;
};

} // namespace graphlens
