// The status bar's view of a TaskRunner: a progress bar whose text says what runs ("Applying
// pass 3 of 17: fuse-conv-activation"; a busy bar when there are no steps) and a Cancel button.
// Hidden while nothing runs.
#pragma once

#include <QWidget>

class QProgressBar;
class QToolButton;

namespace graphlens {

class TaskRunner;

class TaskProgress : public QWidget {
    Q_OBJECT
public:
    explicit TaskProgress(TaskRunner* runner, QWidget* parent = nullptr);

    QProgressBar* bar() const { return bar_; }
    QToolButton* cancelButton() const { return cancel_; }
    /// Asks the runner to stop after the current step and says so (the Cancel button, Esc).
    void cancel();

private:
    void showStarted(const QString& title);
    void showProgress(int done, int total, const QString& text);

    TaskRunner* runner_;
    QProgressBar* bar_ = nullptr;
    QToolButton* cancel_ = nullptr;
};

} // namespace graphlens
