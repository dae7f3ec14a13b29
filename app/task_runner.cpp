// TaskRunner: one worker thread; everything that goes back to the UI thread is posted to the
// runner itself, which outlives the worker (its destructor waits), so posting is always safe.
#include "app/task_runner.h"

#include <exception>

namespace graphlens {

TaskRunner::TaskRunner(QObject* parent) : QObject(parent) { pool_.setMaxThreadCount(1); }

TaskRunner::~TaskRunner() {
    cancelled_->store(true);
    pool_.waitForDone();  // completions posted meanwhile are dropped with this object
}

void TaskRunner::Control::report(int done, int total, const QString& text) const {
    TaskRunner* runner = runner_;
    QMetaObject::invokeMethod(runner, [runner, done, total, text] { emit runner->progress(done, total, text); }, Qt::QueuedConnection);
    if (hook_) hook_(done);
}

bool TaskRunner::start(const QString& title, Work work) {
    if (running_) return false;
    running_ = true;
    cancelled_ = std::make_shared<std::atomic<bool>>(false);  // a late cancel of the task before stays there
    Control control;
    control.runner_ = this;
    control.cancelled_ = cancelled_;
    control.hook_ = reportHook_;
    emit started(title);
    pool_.start([this, title, work = std::move(work), control] {
        Completion completion;
        try {
            completion = work(control);
        } catch (const std::exception& e) {
            completion = [this, title, message = QString::fromUtf8(e.what())] { emit failed(title, message); };
        }
        QMetaObject::invokeMethod(this, [this, completion] { complete(completion); }, Qt::QueuedConnection);
    });
    return true;
}

void TaskRunner::complete(const Completion& completion) {
    running_ = false;
    emit finished();  // first: a completion may start the next task
    if (completion) completion();
}

void TaskRunner::cancel() {
    if (running_) cancelled_->store(true);
}

} // namespace graphlens
