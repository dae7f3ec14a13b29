// The Rewrite log dock: every rewrite and decline of the steps up to the current one, grouped by
// step (the pass, its counts, then its lines), the current step's group expanded and marked. A
// filter line keeps the lines containing its text (or all of a pass whose id contains it), and a
// toggle hides the declines. Activating a line asks the window to show its nodes on both sides.
#pragma once

#include "app/pass_stepper.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace graphlens {

class RewriteLogPanel : public QWidget {
    Q_OBJECT
public:
    /// What a line of a step's group is.
    enum class Entry { Rewrite, Decline, Verification };

    explicit RewriteLogPanel(QWidget* parent = nullptr);

    /// Lists steps 1..stepper.step(); the current step's group is expanded, and with
    /// `highlightCurrent` (the panes compare it with the step before) its row is highlighted.
    void showSteps(const PassStepper& stepper, bool highlightCurrent);

    QTreeWidget* tree() const { return tree_; }
    QLineEdit* filter() const { return filter_; }
    QCheckBox* hideDeclines() const { return hideDeclines_; }
    /// The group row of step `step` (1-based); nullptr when the log does not list it.
    QTreeWidgetItem* stepRow(size_t step) const;
    /// How many lines of `kind` the log holds, shown or filtered out.
    int entryCount(Entry kind) const;
    /// How many rewrite and decline lines the filter and the declines toggle leave shown.
    int shownEntryCount() const;

    /// The step (1-based), kind and index (into the step's rewrites or declines) of a line.
    static size_t stepOf(const QTreeWidgetItem* item);
    static Entry entryOf(const QTreeWidgetItem* item);
    static size_t indexOf(const QTreeWidgetItem* item);
    static bool isEntry(const QTreeWidgetItem* item);

signals:
    /// A line was clicked or activated: line `index` of `kind` of step `step`.
    void entryActivated(size_t step, graphlens::RewriteLogPanel::Entry kind, size_t index);

private:
    void addStep(const PassStepper& stepper, size_t step, bool current, bool highlight);
    void applyFilter();
    void activate(QTreeWidgetItem* item);

    QLineEdit* filter_ = nullptr;
    QCheckBox* hideDeclines_ = nullptr;
    QLabel* counts_ = nullptr;
    QTreeWidget* tree_ = nullptr;
    size_t currentStep_ = 0;
};

} // namespace graphlens
