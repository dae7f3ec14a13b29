// The Before/After tab of the Profile dock: profiles the window's before and after sides in the
// background, folds the after side's time onto the original nodes through provenance
// (profiler/profile_compare.h), shows the summary (total speedup, arena change) and one row per
// group of original nodes, and colors the before side by each group's speedup.
#pragma once

#include "core/graph/model.h"
#include "profiler/profile_compare.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <unordered_map>

class QCheckBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace graphlens {

/// Comparison table columns.
enum CompareColumn { kSpeedupColumn, kBeforeMsColumn, kAfterMsColumn, kOriginalColumn, kNowColumn, kCompareColumns };

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setProfileOptions(ProfileOptions options) { options_ = options; }
    /// Profiles `before` and then `after` (both made from `original`) on the CPU in the profile
    /// thread; comparisonReady() or comparisonFailed() follows unless dropped first.
    void startCompare(std::shared_ptr<const Model> original, std::shared_ptr<const Model> before,
                      std::shared_ptr<const Model> after);
    /// The sides changed: forgets the comparison (and any still running) and the before fills.
    void dropComparison();
    bool running() const { return running_; }
    const ProfileComparison* comparison() const { return comparison_ ? &*comparison_ : nullptr; }

    /// Speedup colors of the before side's nodes (speedupColor of their group); empty when the
    /// overlay is off or there is no comparison.
    const std::unordered_map<NodeId, QColor>& beforeFills() const { return fills_; }
    void setSpeedupOverlay(bool on);
    bool speedupOverlay() const;

    QPushButton* compareButton() const { return button_; }
    QLabel* summaryLabel() const { return summary_; }
    QTableWidget* table() const { return table_; }

signals:
    /// The button was pressed: the window answers with startCompare().
    void compareRequested();
    void comparisonReady();
    void comparisonFailed(const QString& reason);
    void beforeFillsChanged();
    /// A row was clicked: focus `node` (a before-side node) on the canvas.
    void nodeActivated(graphlens::NodeId node);

private:
    void finish(int generation, std::shared_ptr<std::optional<ProfileComparison>> result, const QString& error);
    void fillTable();
    void updateFills();
    void activateRow(int row);

    QPushButton* button_ = nullptr;
    QLabel* summary_ = nullptr;
    QCheckBox* overlay_ = nullptr;
    QTableWidget* table_ = nullptr;
    ProfileOptions options_{2, 10};
    std::optional<ProfileComparison> comparison_;
    std::unordered_map<NodeId, QColor> fills_;
    int generation_ = 0;
    bool running_ = false;
};

} // namespace graphlens
