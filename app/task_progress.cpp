// TaskProgress: follows the runner's signals; the bar's text is the task's own sentence.
#include "app/task_progress.h"

#include "app/task_runner.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QToolButton>

namespace graphlens {

TaskProgress::TaskProgress(TaskRunner* runner, QWidget* parent) : QWidget(parent), runner_(runner) {
    bar_ = new QProgressBar(this);
    bar_->setMinimumWidth(320);
    bar_->setTextVisible(true);
    cancel_ = new QToolButton(this);
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Stop after the current step (Esc)"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(bar_);
    layout->addWidget(cancel_);
    hide();
    connect(runner, &TaskRunner::started, this, &TaskProgress::showStarted);
    connect(runner, &TaskRunner::progress, this, &TaskProgress::showProgress);
    connect(runner, &TaskRunner::finished, this, &QWidget::hide);
    connect(cancel_, &QToolButton::clicked, this, &TaskProgress::cancel);
}

void TaskProgress::showStarted(const QString& title) {
    cancel_->setEnabled(true);
    showProgress(0, 0, title);
    show();
}

void TaskProgress::showProgress(int done, int total, const QString& text) {
    if (runner_->cancelRequested()) return;  // "Cancelling..." stays up
    bar_->setRange(0, total);  // 0..0: a busy bar
    bar_->setValue(done);
    bar_->setFormat(text);
    bar_->setToolTip(text);
}

void TaskProgress::cancel() {
    if (!runner_->running()) return;
    runner_->cancel();
    cancel_->setEnabled(false);
    bar_->setFormat(tr("Cancelling…"));
}

} // namespace graphlens
