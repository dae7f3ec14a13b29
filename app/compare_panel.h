// The Before/After tab of the Profile dock: profiles a baseline (the model as loaded, or the step
// before the current one) and the current step in the background, folds the current step's time
// onto the original nodes through provenance (profiler/profile_compare.h), shows the summary
// (total speedup, arena change) and one row per group of original nodes (or, with "Per original
// node", one row per original node with its share of each side's time), and colors the
// baseline's nodes by each group's speedup on the window's before side, when that side shows the
// baseline; the panel says which graph the colors are for.
#pragma once

#include "core/graph/model.h"
#include "profiler/profile_compare.h"

#include <QString>

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <unordered_map>

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace graphlens {

class PassStepper;
class SpeedupLegend;

/// What the current step is compared with (the tab's combo box, in this order).
enum class CompareBaseline { Original, PreviousStep };

/// The models a comparison profiles, as the window has them.
struct CompareSides {
    std::shared_ptr<const Model> original;  ///< the model as loaded: provenance leads into it
    std::shared_ptr<const Model> before;    ///< the baseline
    std::shared_ptr<const Model> after;     ///< the current step
    QString beforeName;       ///< what the baseline is: "the original graph", "step 2"
    bool beforeShown = true;  ///< the window's before side shows the baseline: its nodes can take the colors
};

/// The sides comparing `stepper`'s current step with `baseline`, when the window's before side
/// shows snapshot `shownStep` (0: the original).
CompareSides compareSides(const PassStepper& stepper, CompareBaseline baseline, size_t shownStep);

/// The comparison's summary as the panel shows it: comparisonSummary(), one figure a line.
QString panelSummary(const ProfileComparison& comparison);

/// Comparison table columns.
enum CompareColumn { kSpeedupColumn, kBeforeMsColumn, kAfterMsColumn, kOriginalColumn, kNowColumn, kCompareColumns };

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setProfileOptions(ProfileOptions options) { options_ = options; }
    /// Profiles the sides' `before` and then `after` (both made from `original`) on the CPU in
    /// the profile thread; comparisonReady() or comparisonFailed() follows unless dropped first.
    void startCompare(CompareSides sides);
    /// What compareRequested() asks to compare the current step with (default: the original).
    CompareBaseline baseline() const;
    void setBaseline(CompareBaseline baseline);
    /// The sides changed: forgets the comparison (and any still running) and the before fills.
    void dropComparison();
    bool running() const { return running_; }
    const ProfileComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }

    /// Speedup colors of the baseline's nodes (speedupColor of their group); empty when the
    /// overlay is off, there is no comparison or the window's before side does not show the
    /// baseline.
    const std::unordered_map<NodeId, QColor>& beforeFills() const { return fills_; }
    void setSpeedupOverlay(bool on);
    bool speedupOverlay() const;
    /// One table row per original node (its folded before and after ms; the group's speedup and
    /// what it became on the group's first row, as `graphlens profile --compare` prints them)
    /// instead of one per group.
    void setPerNodeRows(bool on);
    bool perNodeRows() const;
    /// The group a table row of the current comparison belongs to (rows are groups, or original
    /// nodes in group order).
    size_t groupOfRow(int row) const;

    QPushButton* compareButton() const { return button_; }
    QLabel* summaryLabel() const { return summary_; }
    /// Says which graph the speedup colors are for, and whether the before side shows them.
    QLabel* colorsLabel() const { return colors_; }
    QComboBox* baselineBox() const { return baseline_; }
    SpeedupLegend* legend() const { return legend_; }
    QTableWidget* table() const { return table_; }
    /// Whether the controls sit in a column beside the table (a wide, short area) rather than
    /// above it.
    bool controlsBeside() const;

signals:
    /// The button was pressed: the window answers with startCompare().
    void compareRequested();
    void comparisonReady();
    void comparisonFailed(const QString& reason);
    void beforeFillsChanged();
    /// A row was clicked: focus `node` (a before-side node) on the canvas.
    void nodeActivated(graphlens::NodeId node);
    /// A row was clicked while the before side does not show the baseline: focus `node` (an
    /// after-side node of the row's group) instead.
    void afterNodeActivated(graphlens::NodeId node);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void finish(int generation, std::shared_ptr<std::optional<ProfileComparison>> result, const QString& error);
    void fillTable();
    void updateFills();
    void updateColorsText();
    void activateRow(int row);

    QBoxLayout* layout_ = nullptr;
    QWidget* controls_ = nullptr;
    QPushButton* button_ = nullptr;
    QLabel* summary_ = nullptr;
    QComboBox* baseline_ = nullptr;
    QCheckBox* overlay_ = nullptr;
    QCheckBox* perNode_ = nullptr;
    SpeedupLegend* legend_ = nullptr;
    QLabel* colors_ = nullptr;
    QTableWidget* table_ = nullptr;
    ProfileOptions options_{2, 10};
    std::optional<ProfileComparison> comparison_;
    QString beforeName_;       ///< of the comparison shown
    bool beforeShown_ = true;  ///< of the comparison shown
    std::unordered_map<NodeId, QColor> fills_;
    int generation_ = 0;
    bool running_ = false;
};

} // namespace graphlens
