// A profiling session of sample_cnn on the CPU backend: one event per executed node per run,
// per-node statistics over exactly those runs, the plan's memory figures and its live-bytes
// timeline per step, the runs cut back out of the events, and a Chrome trace of 10 runs that
// parses with the fields Perfetto reads, with a live-bytes counter track.
#include "core/onnx/loader.h"
#include "profiler/chrome_trace.h"
#include "profiler/profile_session.h"
#include "profiler/run_timeline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace graphlens;

class TestProfileSession : public QObject {
    Q_OBJECT
    Model model_;
    std::unique_ptr<Plan> plan_;
    std::map<std::string, Tensor> feeds_;
    ProfileResult result_;

private slots:
    void initTestCase() {
        model_ = loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
        CompileOptions options;
        options.threads = 1;
        options.fuseKernels = false;  // a kernel per node; fused plans' profiles: tst_cpu_conv_fusion
        plan_ = makeCpuBackend()->compile(model_, options);
        feeds_["input"] = Tensor::allocate(DType::Float, {1, 3, 32, 32});
        result_ = profilePlan(*plan_, graphWithShapes(model_, {}), feeds_, {1, 10});
    }
    void everyExecutedNodeHasOneEventPerRun() {
        const size_t executed = plan_->nodes().size();
        QCOMPARE(executed, size_t(23));
        QCOMPARE(result_.runs, 10);
        QCOMPARE(result_.events.size(), executed * 10);
        QCOMPARE(result_.nodes.size(), executed);
        for (size_t i = 0; i < executed; ++i) {
            QCOMPARE(result_.nodes[i].node, plan_->nodes()[i].node);  // execution order
            QCOMPARE(result_.nodes[i].kernel, plan_->nodes()[i].kernel);
            QCOMPARE(result_.nodes[i].ms.count, size_t(10));
        }
    }
    void wholeRunsAndNodesAgree() {
        QCOMPARE(result_.runMs.count, size_t(10));
        QCOMPARE(result_.observedRunMs.count, size_t(10));
        QVERIFY(result_.runMs.median > 0);
        double shares = 0;
        for (const NodeProfile& p : result_.nodes) shares += p.share;
        QCOMPARE(shares, 1.0);
        QCOMPARE(result_.nodeMedianSumMs, sumOfMedians(result_.nodes));
        QCOMPARE(result_.overheadPercent,
                 observerOverheadPercent(result_.observedRunMs.median, result_.runMs.median));
        // Node times are inside the observed runs: their sum cannot pass the slowest run's.
        QVERIFY(result_.nodeMedianSumMs <= result_.observedRunMs.max);
    }
    void staticFiguresComeFromTheGraph() {
        const NodeProfile& stem = result_.nodes[0];
        QCOMPARE(stem.name, std::string("/stem/conv/Conv"));
        QCOMPARE(stem.outputShape, std::string("[1,16,32,32]"));
        QCOMPARE(stem.flops, std::optional<int64_t>(884736));
        QCOMPARE(stem.weightBytes, uint64_t(16 * 27 * 4));
        QCOMPARE(stem.outputBytes, uint64_t(16384 * 4));
        QCOMPARE(stem.bytesWritten, uint64_t(16384 * 4));
        QCOMPARE(stem.bytesRead, uint64_t(3 * 1024 * 4 + 16 * 27 * 4));
    }
    void memoryIsThePlans() {
        const MemoryPlan& plan = plan_->memoryPlan();
        QCOMPARE(result_.memory.arenaBytes, plan.arenaBytes);
        QCOMPARE(result_.memory.naiveBytes, plan.naiveBytes);
        QCOMPARE(result_.memory.lowerBoundBytes, plan.lowerBoundBytes);
        QCOMPARE(result_.memory.liveBytes, plan.liveBytes);
        QVERIFY(plan.arenaBytes > 0 && plan.arenaBytes <= plan.naiveBytes);
    }
    void memoryStepsFollowThePlan() {
        const MemoryPlan& plan = plan_->memoryPlan();
        QCOMPARE(result_.memorySteps.size(), plan_->nodes().size());
        QVERIFY(plan.liveBytes.size() <= result_.memorySteps.size());
        uint64_t peak = 0;
        for (size_t i = 0; i < result_.memorySteps.size(); ++i) {
            const MemoryStep& step = result_.memorySteps[i];
            QCOMPARE(step.node, plan_->nodes()[i].node);
            QCOMPARE(step.name, result_.nodes[i].name);
            QCOMPARE(step.op, result_.nodes[i].op);
            QCOMPARE(step.liveBytes, i < plan.liveBytes.size() ? plan.liveBytes[i] : uint64_t(0));
            QVERIFY(step.liveBytes <= plan.arenaBytes);
            peak = std::max(peak, step.liveBytes);
        }
        QCOMPARE(peak, plan.lowerBoundBytes);
        QCOMPARE(peak, uint64_t(196608));  // three 64 kB activations at once, as `profile` prints
        QCOMPARE(result_.memorySteps[0].liveBytes, uint64_t(16384 * 4));  // the stem Conv's output alone
    }
    void eventsSplitBackIntoTheRuns() {
        const auto runs = splitRuns(result_.events);
        QCOMPARE(runs.size(), size_t(10));
        for (const auto& run : runs) {
            QCOMPARE(run.size(), plan_->nodes().size());
            const std::vector<TimelineBar> bars = timelineBars(run, result_.nodes);
            QCOMPARE(bars.front().startMs, 0.0);
            for (size_t i = 0; i < bars.size(); ++i) {
                QCOMPARE(bars[i].node, plan_->nodes()[i].node);
                if (i) QVERIFY(bars[i].startMs >= bars[i - 1].startMs + bars[i - 1].durationMs);  // one thread
            }
        }
        std::vector<double> spans;
        for (const auto& run : runs) spans.push_back(runSpanMs(run));
        std::sort(spans.begin(), spans.end());
        QCOMPARE(runSpanMs(runs[medianRun(runs)]), spans[4]);
    }
    void tenRunTraceParsesWithChromeFields() {
        const std::string json = chromeTraceJson(result_.events, result_.nodes, "sample_cnn", result_.memorySteps);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        std::map<QString, int> completeByName;
        std::vector<double> counterTs, completeTs;
        int threadNames = 0;
        uint64_t counterPeak = 0;
        std::map<uint64_t, int> counterValues;
        for (const QJsonValue& v : doc.object()["traceEvents"].toArray()) {
            const QJsonObject e = v.toObject();
            if (e["ph"] == "M") {
                threadNames += e["name"] == "thread_name";
                continue;
            }
            if (e["ph"] == "C") {
                QCOMPARE(e["name"].toString(), QString("live bytes"));
                QCOMPARE(e["pid"].toInt(), 1);
                QVERIFY(e["args"].toObject()["bytes"].isDouble());
                const auto bytes = uint64_t(e["args"].toObject()["bytes"].toDouble());
                counterPeak = std::max(counterPeak, bytes);
                ++counterValues[bytes];
                counterTs.push_back(e["ts"].toDouble());
                continue;
            }
            completeTs.push_back(e["ts"].toDouble());
            QCOMPARE(e["ph"].toString(), QString("X"));
            for (const char* key : {"name", "ph", "ts", "dur", "pid", "tid"}) QVERIFY2(e.contains(key), key);
            QVERIFY(e["ts"].toDouble() >= 0 && e["dur"].toDouble() >= 0);
            ++completeByName[e["name"].toString()];
        }
        QCOMPARE(threadNames, 1);
        QCOMPARE(completeByName.size(), size_t(23));
        for (const auto& [name, count] : completeByName) QCOMPARE(count, 10);
        // One counter sample per node event, at the event's start, with its step's live bytes.
        QCOMPARE(counterTs, completeTs);
        QCOMPARE(counterPeak, result_.memory.lowerBoundBytes);
        std::map<uint64_t, int> expected;
        for (const MemoryStep& step : result_.memorySteps) expected[step.liveBytes] += 10;
        QCOMPARE(counterValues, expected);
        // Without the plan's steps the trace has no counter.
        const std::string plain = chromeTraceJson(result_.events, result_.nodes, "sample_cnn");
        QVERIFY(!QByteArray::fromStdString(plain).contains("\"ph\":\"C\""));
    }
};

QTEST_GUILESS_MAIN(TestProfileSession)
#include "tst_profile_session.moc"
