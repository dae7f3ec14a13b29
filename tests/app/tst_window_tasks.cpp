// Long work of the main window off the UI thread (offscreen): opening returns before the model is
// loaded, the status bar shows what runs, opening and applying wait while work runs, Esc cancels
// Apply all between passes keeping the steps done and a load keeping the model shown, closing
// the window while work runs, verified steps with their error, the Passes dock skipping unchecked
// passes and its reset, and the stepper's pending passes.
#include "app/main_window.h"
#include "app/task_progress.h"
#include "app/task_runner.h"
#include "core/onnx/exporter.h"
#include "core/onnx/loader.h"
#include "core/runtime/resource_limits.h"
#include "viewer/graph_pane.h"
#include "viewer/model_overview.h"

#include <QAction>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QSemaphore>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

#include <sys/resource.h>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
const QString kOther = QStringLiteral(GRAPHLENS_SOURCE_DIR "/tests/fixtures/models/mobilenet_v3_block/model.onnx");

bool waitForLayout(const MainWindow& w) {
    return QTest::qWaitFor([&w] { return !w.layoutPending(); }, 20000);
}

/// Saves the sample model with its input's batch dimension replaced by `batch` as `name` in `dir`;
/// returns the file's path.
QString sampleWithBatch(const QTemporaryDir& dir, const QString& name, Dim batch) {
    Model m = loadModel(kSample.toStdString());
    Value& input = m.graph.value(m.graph.inputs().front());
    std::vector<Dim> dims = input.shape.dims();
    dims[0] = std::move(batch);
    input.shape = Shape(dims);
    const QString path = dir.filePath(name);
    saveModel(m, path.toStdString());
    return path;
}

bool openAndWait(MainWindow& w, const QString& path = kSample) {
    return w.openModel(path) && waitForLayout(w) && w.model();
}

/// Holds the window's next task in its worker thread when it reports step `step`, until
/// resume() (or the gate's end) lets it go on.
class TaskGate {
public:
    TaskGate(TaskRunner* runner, int step) {
        runner->setReportHook([this, step](int done) {
            lastReported_ = done;
            if (done != step || held_.exchange(true)) return;
            paused_.release();
            resume_.acquire();
        });
    }
    ~TaskGate() { resume(); }
    /// Waits (running the event loop) until the task is held.
    bool waitPaused() { return QTest::qWaitFor([this] { return paused_.available() > 0; }, 20000); }
    void resume() {
        if (!resumed_.exchange(true)) resume_.release();
    }
    int lastReported() const { return lastReported_; }

private:
    QSemaphore paused_;
    QSemaphore resume_;
    std::atomic<bool> held_ = false;
    std::atomic<bool> resumed_ = false;
    std::atomic<int> lastReported_ = -1;
};

QAction* action(const MainWindow& w, const char* name) { return w.findChild<QAction*>(name); }

QStringList stepPassIds(MainWindow& w) {
    QStringList ids;
    for (const PassResult* r : w.stepper().appliedResults()) ids << QString::fromStdString(r->passId);
    return ids;
}

} // namespace

class TestWindowTasks : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_window_tasks");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }

    void init() { QSettings().clear(); }

    void openingReturnsToTheEventLoopBeforeTheModelIsLoaded() {
        MainWindow w;
        TaskGate gate(w.tasks(), 0);  // the load is held in its worker before it parses
        QSignalSpy loaded(&w, &MainWindow::modelLoaded);
        QVERIFY(w.openModel(kSample));
        QVERIFY(w.model() == nullptr);
        QVERIFY(w.busy());
        QVERIFY(gate.waitPaused());
        // The UI thread goes on while the worker holds the load: timers fire, the bar shows it.
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(10);
        QTRY_VERIFY(ticks >= 5);
        QVERIFY(w.model() == nullptr);
        QVERIFY(!w.taskProgress()->isHidden());
        QCOMPARE(w.taskProgress()->bar()->format(), QString("Opening sample_cnn.onnx"));
        QCOMPARE(w.taskProgress()->bar()->maximum(), 0);  // a busy bar: no steps
        gate.resume();
        QVERIFY(loaded.wait(20000));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first().first().toString(), kSample);
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
        QVERIFY(!w.busy());
        QVERIFY(w.taskProgress()->isHidden());
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.afterPane()->graph()->nodeCount(), size_t(23));
    }

    void openingAndApplyingWaitWhileWorkRuns() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        for (const char* name : {"openAction", "applyNextAction", "applyAllAction"}) QVERIFY(action(w, name)->isEnabled());
        QVERIFY(!action(w, "cancelAction")->isEnabled());
        TaskGate gate(w.tasks(), 0);
        QSignalSpy applied(&w, &MainWindow::passesApplied);
        w.applyNextPass();
        QVERIFY(gate.waitPaused());
        for (const char* name : {"openAction", "applyNextAction", "applyAllAction"}) QVERIFY(!action(w, name)->isEnabled());
        QVERIFY(action(w, "cancelAction")->isEnabled());
        QVERIFY(!w.openModel(kOther));  // refused, not queued
        w.applyNextPass();
        w.applyAllPasses();
        w.stepBack();
        gate.resume();
        QVERIFY(applied.wait(20000));
        QVERIFY(waitForLayout(w));
        QCOMPARE(applied.count(), 1);
        QCOMPARE(applied.first().first().toInt(), 1);
        QCOMPARE(w.stepper().stepCount(), size_t(1));  // only the first Apply next ran
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        for (const char* name : {"openAction", "applyNextAction", "applyAllAction"}) QVERIFY(action(w, name)->isEnabled());
        QVERIFY(!action(w, "cancelAction")->isEnabled());
    }

    void escapeCancelsApplyAllBetweenPassesKeepingTheStepsDone() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QVERIFY(openAndWait(w));
        const std::vector<size_t> pending = w.stepper().pendingPasses();
        QVERIFY(pending.size() > 3);
        const QString total = QString::number(pending.size());
        TaskGate gate(w.tasks(), 2);  // held after two passes, before the third
        QSignalSpy applied(&w, &MainWindow::passesApplied);
        w.applyAllPasses();
        QVERIFY(gate.waitPaused());
        const QString third = QString::fromStdString(w.stepper().passIds()[pending[2]]);
        QTRY_COMPARE(w.taskProgress()->bar()->format(), QString("Applying pass 3 of %1: %2").arg(total, third));
        QCOMPARE(w.taskProgress()->bar()->value(), 2);
        QCOMPARE(w.taskProgress()->bar()->maximum(), int(pending.size()));
        QCOMPARE(w.stepper().step(), size_t(0));  // steps are committed when the run ends
        QTest::keyClick(&w, Qt::Key_Escape);
        QCOMPARE(w.taskProgress()->bar()->format(), QString("Cancelling…"));
        QVERIFY(!w.taskProgress()->cancelButton()->isEnabled());
        gate.resume();
        QVERIFY(applied.wait(20000));
        QCOMPARE(applied.first().first().toInt(), 2);
        QCOMPARE(gate.lastReported(), 2);  // the third pass never started
        const QStringList firstTwo{QString::fromStdString(w.stepper().passIds()[pending[0]]),
                                   QString::fromStdString(w.stepper().passIds()[pending[1]])};
        QCOMPARE(stepPassIds(w), firstTwo);
        QCOMPARE(w.stepper().step(), size_t(2));
        QCOMPARE(w.statusBar()->currentMessage(), QString("Cancelled: 2 of %1 passes applied.").arg(total));
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.afterPane()->graph()->nodeCount(), w.stepper().current().graph.nodeCount());
        // Apply all again goes on from there to the end of the pipeline.
        w.tasks()->setReportHook({});
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.stepper().stepCount(), pending.size());
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(7));
        QCOMPARE(stepPassIds(w).mid(0, 2), firstTwo);
    }

    void cancellingALoadKeepsTheModelShown() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        const QString title = w.windowTitle();
        TaskGate gate(w.tasks(), 0);
        QVERIFY(w.openModel(kOther));
        QVERIFY(gate.waitPaused());
        QCOMPARE(w.taskProgress()->bar()->format(), QString("Opening model.onnx"));
        w.taskProgress()->cancelButton()->click();
        gate.resume();
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.afterPane()->graph()->nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
        QCOMPARE(w.windowTitle(), title);
        QCOMPARE(w.recentFiles().paths(), QStringList({QFileInfo(kSample).absoluteFilePath()}));
        QCOMPARE(w.statusBar()->currentMessage(), QString("Opening cancelled."));
        // The next open is not affected by the cancel before it.
        w.tasks()->setReportHook({});
        QVERIFY(openAndWait(w, kOther));
        QVERIFY(w.model()->graph.nodeCount() != size_t(23));
    }

    void closingTheWindowWhileWorkRunsStopsIt() {
        auto* w = new MainWindow;
        w->show();
        QVERIFY(openAndWait(*w));
        auto gate = std::make_unique<TaskGate>(w->tasks(), 1);
        w->applyAllPasses();
        QVERIFY(gate->waitPaused());
        // Closing cancels; deleting waits for the pass under way, which goes on a moment later.
        std::thread release([&gate] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            gate->resume();
        });
        QPointer<MainWindow> guard(w);
        w->close();
        delete w;
        release.join();
        QCoreApplication::processEvents();  // completions posted for the closed window are gone
        QVERIFY(guard.isNull());
        QCOMPARE(gate->lastReported(), 1);  // cancelled: the next pass never started
        // Closing while a load runs.
        auto* loading = new MainWindow;
        QVERIFY(loading->openModel(kSample));
        QVERIFY(loading->busy());
        delete loading;
        QCoreApplication::processEvents();
    }

    void verifiedStepsShowTheirError() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        w.setVerifySteps(true);
        while (!w.stepper().currentResult() || w.stepper().currentResult()->passId != "fold-batchnorm") {
            QVERIFY(!w.stepper().pendingPasses().empty());
            w.applyNextPass();
            QVERIFY(waitForLayout(w));
        }
        const VerifyReport* report = w.stepper().currentVerification();
        QVERIFY(report);
        QVERIFY(report->passed);
        QCOMPARE(report->outputsCompared, size_t(1));
        QVERIFY(report->maxAbsError > 0);  // folding rounds differently
        QVERIFY(report->maxAbsError < 1e-4);
        const QString first = w.rewriteLog()->stepRow(w.stepper().step())->child(0)->text(0);
        QVERIFY2(first.startsWith(QString("verified: max abs error %1,").arg(report->maxAbsError, 0, 'g', 3)), qPrintable(first));
        // Without verification a step has no report.
        w.setVerifySteps(false);
        w.applyNextPass();
        QVERIFY(waitForLayout(w));
        QVERIFY(w.stepper().currentVerification() == nullptr);
        const QTreeWidgetItem* current = w.rewriteLog()->stepRow(w.stepper().step());
        for (int i = 0; i < current->childCount(); ++i) QVERIFY(!current->child(i)->text(0).contains("verified"));
    }

    /// A model whose input has a symbolic batch size verifies on a batch of one, and the status
    /// bar says so.
    void symbolicInputSizesVerifyWithOne() {
        QTemporaryDir dir;
        const QString path = sampleWithBatch(dir, "symbolic.onnx", Dim("batch"));

        MainWindow w;
        QVERIFY(openAndWait(w, path));
        w.setVerifySteps(true);
        w.applyNextPass();
        QVERIFY(waitForLayout(w));
        QVERIFY(QTest::qWaitFor([&w] { return w.stepper().currentVerification() != nullptr; }, 20000));
        QVERIFY(w.stepper().currentVerification()->passed);
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.contains("batch = 1"), qPrintable(message));
    }

    /// A model whose verification inputs fit the memory (a quarter of it) but whose plan does not
    /// (its activations are 16 times the input): the window refuses to verify before allocating
    /// the inputs, says why in the status bar (the plan's size against the memory), and the pass
    /// still applies.
    void verificationTooLargeForTheMemoryIsRefusedBeforeAllocating() {
        const uint64_t imageBytes = uint64_t(3 * 32 * 32 * sizeof(float));
        const uint64_t inputBytes = availableMemoryBytes() / 4;
        QTemporaryDir dir;
        const QString path = sampleWithBatch(dir, "huge_batch.onnx", Dim(int64_t(inputBytes / imageBytes)));

        MainWindow w;
        QVERIFY(openAndWait(w, path));
        w.setVerifySteps(true);
        const size_t before = w.stepper().step();
        w.applyNextPass();
        QVERIFY(waitForLayout(w));
        QVERIFY(QTest::qWaitFor([&w, before] { return w.stepper().step() == before + 1; }, 60000));
        const QString message = w.statusBar()->currentMessage();
        QVERIFY2(message.startsWith("The steps were not verified: the plan needs "), qPrintable(message));
        QVERIFY(w.model());
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        QVERIFY2(uint64_t(usage.ru_maxrss) * 1024 < inputBytes / 2,
                 qPrintable(QString("peak RSS %1 KB; the inputs would take %2 KB").arg(usage.ru_maxrss).arg(inputBytes / 1024)));
    }

    void passPanelSkipsUncheckedPassesAndResetEnablesThemAgain() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        QListWidget* list = w.passPanel()->passList();
        QCOMPARE(list->count(), int(w.stepper().passIds().size()));
        const QString skipped = list->item(0)->text();  // eliminate-noops
        list->item(0)->setCheckState(Qt::Unchecked);
        QVERIFY(!w.stepper().enabled(0));
        QSignalSpy applied(&w, &MainWindow::passesApplied);
        QSignalSpy changed(w.passPanel(), &PassPanel::stepChanged);
        w.applyAllPasses();
        QVERIFY(!w.passPanel()->isEnabled());  // while the passes run
        QVERIFY(applied.wait(60000));
        QVERIFY(waitForLayout(w));
        QVERIFY(w.passPanel()->isEnabled());
        QCOMPARE(changed.count(), 1);  // all the steps come in at once
        QCOMPARE(applied.at(0).at(0).toInt(), int(w.stepper().stepCount()));
        QVERIFY(!stepPassIds(w).contains(skipped));
        QVERIFY(w.stepper().pendingPasses().empty());
        QVERIFY(w.stepper().step() > 0);
        w.resetPasses();
        QCOMPARE(changed.count(), 2);
        QCOMPARE(w.stepper().step(), size_t(0));
        QCOMPARE(list->item(0)->checkState(), Qt::Checked);
        QVERIFY(w.stepper().enabled(0));
        QCOMPARE(w.stepper().pendingPasses().size(), w.stepper().passIds().size());
        QCOMPARE(w.stepper().current().graph.nodeCount(), w.model()->graph.nodeCount());
    }

    void stepperPendingPassesFollowTheEnabledOnesAndCommitDropsStepsAhead() {
        PassStepper stepper;
        stepper.reset(loadForWindow(kSample).model);
        const size_t passes = stepper.passIds().size();
        QCOMPARE(stepper.pendingPasses().size(), passes);
        stepper.setEnabled(1, false);
        std::vector<size_t> pending = stepper.pendingPasses();
        QCOMPARE(pending.size(), passes - 1);
        QCOMPARE(pending[0], size_t(0));
        QCOMPARE(pending[1], size_t(2));
        stepper.commit(runPassStep(stepper.passIds()[0], 0, stepper.current()));
        stepper.commit(runPassStep(stepper.passIds()[2], 2, stepper.current()));
        QCOMPARE(stepper.pendingPasses().front(), size_t(3));
        QVERIFY(stepper.stepBack());
        QCOMPARE(stepper.pendingPasses().front(), size_t(2));
        stepper.commit(runPassStep(stepper.passIds()[3], 3, stepper.current()));  // replaces the step ahead
        QCOMPARE(stepper.stepCount(), size_t(2));
        QCOMPARE(stepper.currentResult()->passId, stepper.passIds()[3]);
        QVERIFY(!stepper.stepForward());
    }

    /// What the split view compares: the original's nodes the passes so far removed or replaced
    /// against the nodes they made, or only the last pass's; a log line's original nodes.
    void compareStepMarksWhatTheStepsInBetweenChanged() {
        PassStepper stepper;
        stepper.reset(loadForWindow(kSample).model);
        for (size_t pass = 0; pass < stepper.passIds().size(); ++pass)
            stepper.commit(runPassStep(stepper.passIds()[pass], pass, stepper.current()));
        const Graph& original = stepper.original().graph;
        const Graph& current = stepper.current().graph;
        const StepComparison all = compareStep(stepper, CompareWith::Original);
        QCOMPARE(all.leftStep, size_t(0));
        size_t gone = 0, made = 0;
        for (NodeId n : original.nodeIds()) gone += !current.hasNode(n);
        for (NodeId n : current.nodeIds()) made += !original.hasNode(n);
        QCOMPARE(all.removed.size(), gone);  // 23 - 7 + the nodes replaced by new ones
        QCOMPARE(all.added.size(), made);
        QCOMPARE(original.nodeCount() - all.removed.size() + all.added.size(), current.nodeCount());
        QCOMPARE(all.leftCaption, QString("Original · 23 nodes"));
        const StepComparison last = compareStep(stepper, CompareWith::PreviousStep);
        QCOMPARE(last.leftStep, stepper.step() - 1);
        size_t lastRemoved = 0, lastAdded = 0;
        for (const Rewrite& w : stepper.currentResult()->rewrites) {
            lastRemoved += w.removed.size();
            lastAdded += w.added.size();
        }
        QCOMPARE(last.removed.size(), lastRemoved);
        QCOMPARE(last.added.size(), lastAdded);
        // fold-batchnorm's first rewrite: the stem's Conv and BatchNorm as loaded.
        size_t fold = 1;
        while (stepper.resultOf(fold).passId != "fold-batchnorm") ++fold;
        std::vector<NodeId> origins = rewriteOrigins(stepper, fold, 0);
        std::sort(origins.begin(), origins.end());
        origins.erase(std::unique(origins.begin(), origins.end()), origins.end());
        QStringList names;
        for (NodeId n : origins) names << QString::fromStdString(original.node(n).name);
        QCOMPARE(names, QStringList({"/stem/conv/Conv", "/stem/bn/BatchNormalization"}));
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestWindowTasks)
#include "tst_window_tasks.moc"
