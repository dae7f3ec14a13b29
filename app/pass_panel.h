// The Passes dock: what the panes compare (the original or the previous step against the current
// one), the pipeline (a checkbox per pass, its explanation as tooltip; each applied pass with its
// rewrite count and node delta, the current step marked, passes that changed nothing dimmed), the
// Verify box and the step buttons, and the flow behind them. Apply next / Apply all run the passes on the
// window's TaskRunner (progress and Cancel in the status bar) and commit the steps when the
// worker is done; step back / forward and reset move through the PassStepper's snapshots. The
// window shows whatever step stepChanged() announces.
#pragma once

#include "app/pass_stepper.h"
#include "app/step_comparison.h"
#include "app/window_work.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QListWidget;
class QPushButton;

namespace graphlens {

class TaskRunner;

/// "verified: max abs error 2.4e-07, max rel error 1.1e-06 (1 outputs, 14 intermediates compared)".
QString verificationText(const VerifyReport& report);

class PassPanel : public QWidget {
    Q_OBJECT
public:
    /// Passes run on `tasks`, one task at a time with the window's other work.
    explicit PassPanel(TaskRunner* tasks, QWidget* parent = nullptr);

    PassStepper& stepper() { return stepper_; }
    const PassStepper& stepper() const { return stepper_; }
    /// Starts over on a newly loaded `original`: the whole pipeline enabled, step 0.
    void startOver(const Model& original);
    /// Whether applied passes are verified numerically (the Verify box).
    bool verifySteps() const;
    void setVerifySteps(bool on);
    QListWidget* passList() const { return passList_; }
    /// What the left pane shows against the current step (the "Compare with" box).
    CompareWith compareWith() const;
    void setCompareWith(CompareWith with);
    QComboBox* compareBox() const { return compareBox_; }
    /// Over the pipeline: asks the window to bisect the enabled passes (bisectRequested()).
    QPushButton* bisectButton() const { return bisect_; }
    /// "fold-batchnorm · 53 rewrites · −53 nodes" for an applied pipeline entry, its id otherwise.
    static QString passLabel(const PassStepper& stepper, size_t pass);

signals:
    /// The current step changed (a reset, a step back or forward, committed passes).
    void stepChanged();
    /// Passes are about to run: the after side will change.
    void applyStarted();
    /// Applying passes ended (done, cancelled or failed); `steps` of them were kept.
    void passesApplied(int steps);
    /// The "Compare with" choice changed.
    void compareWithChanged(graphlens::CompareWith with);
    /// The Bisect button was pressed.
    void bisectRequested();
    /// A line for the status bar, shown for `timeoutMs`.
    void statusMessage(const QString& text, int timeoutMs);

public slots:
    /// Apply next / Apply all: run in the background; passesApplied() tells when they are in.
    void applyNext();
    void applyAll();
    void stepBack();
    void stepForward();
    /// Back to step 0 of the loaded model, every pass enabled again.
    void reset();

private:
    bool idleWithModel() const;
    void moveGuarded(const std::function<void()>& move);
    void startApplying(size_t count);
    /// The worker is done: keeps the steps it made and says how it ended.
    void commitSteps(AppliedSteps applied);
    void fillPassList();
    /// The marks of the applied passes and of the current step.
    void markSteps();

    TaskRunner* tasks_ = nullptr;
    PassStepper stepper_;
    bool hasModel_ = false;
    QListWidget* passList_ = nullptr;
    QComboBox* compareBox_ = nullptr;
    QPushButton* bisect_ = nullptr;
    QCheckBox* verifyBox_ = nullptr;
};

} // namespace graphlens
