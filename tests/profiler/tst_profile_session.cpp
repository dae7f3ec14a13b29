// A profiling session of sample_cnn on the CPU backend: one event per executed node per run,
// per-node statistics over exactly those runs, the plan's memory figures, and a Chrome trace
// of 10 runs that parses with the fields Perfetto reads.
#include "core/onnx/loader.h"
#include "profiler/chrome_trace.h"
#include "profiler/profile_session.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

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
    void tenRunTraceParsesWithChromeFields() {
        const std::string json = chromeTraceJson(result_.events, result_.nodes, "sample_cnn");
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        std::map<QString, int> completeByName;
        int threadNames = 0;
        for (const QJsonValue& v : doc.object()["traceEvents"].toArray()) {
            const QJsonObject e = v.toObject();
            if (e["ph"] == "M") {
                threadNames += e["name"] == "thread_name";
                continue;
            }
            QCOMPARE(e["ph"].toString(), QString("X"));
            for (const char* key : {"name", "ph", "ts", "dur", "pid", "tid"}) QVERIFY2(e.contains(key), key);
            QVERIFY(e["ts"].toDouble() >= 0 && e["dur"].toDouble() >= 0);
            ++completeByName[e["name"].toString()];
        }
        QCOMPARE(threadNames, 1);
        QCOMPARE(completeByName.size(), size_t(23));
        for (const auto& [name, count] : completeByName) QCOMPARE(count, 10);
    }
};

QTEST_GUILESS_MAIN(TestProfileSession)
#include "tst_profile_session.moc"
