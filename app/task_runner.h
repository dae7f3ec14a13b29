// Long work of the window (opening a model, applying passes) on a worker thread of its own, one
// task at a time, so the UI thread never waits on it: the task reports progress and looks for a
// cancel request between its steps, and hands back a completion that runs on the UI thread.
// Destroying the runner cancels the task and waits for it, so no completion outlives the window.
#pragma once

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

namespace graphlens {

class TaskRunner : public QObject {
    Q_OBJECT
public:
    /// What the work sees in the worker thread.
    class Control {
    public:
        /// True once cancel() was asked for: stop at the next step boundary.
        bool cancelled() const { return cancelled_->load(); }
        /// Reports "step `done` of `total`: `text`" (total 0: no steps known) to the UI thread.
        void report(int done, int total, const QString& text) const;

    private:
        friend class TaskRunner;
        TaskRunner* runner_ = nullptr;
        std::shared_ptr<std::atomic<bool>> cancelled_;
        std::function<void(int done)> hook_;
    };
    /// Runs on the UI thread when the work is done (also when it was cancelled).
    using Completion = std::function<void()>;
    /// Runs in the worker thread; must not touch widgets or the window's state. A std::exception
    /// it throws becomes failed().
    using Work = std::function<Completion(const Control&)>;

    explicit TaskRunner(QObject* parent = nullptr);
    ~TaskRunner() override;

    /// Starts `work` titled `title` ("Opening model.onnx"); false when a task is running already.
    bool start(const QString& title, Work work);
    bool running() const { return running_; }
    /// Asks the running task to stop at its next step boundary; its completion still runs.
    void cancel();
    bool cancelRequested() const { return running_ && cancelled_->load(); }
    /// Runs in the worker thread at each report() of the tasks started from now on, before the
    /// task looks for a cancel request: tests hold a task there to cancel it at a known step.
    void setReportHook(std::function<void(int done)> hook) { reportHook_ = std::move(hook); }

signals:
    void started(const QString& title);
    void progress(int done, int total, const QString& text);
    /// The work threw; `message` says what happened.
    void failed(const QString& title, const QString& message);
    /// The task is over and a new one can start; its completion (or failed()) comes right after.
    void finished();

private:
    void complete(const Completion& completion);

    QThreadPool pool_;
    std::function<void(int done)> reportHook_;
    bool running_ = false;
    std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
};

} // namespace graphlens
