// Per-node statistics from synthetic events: median/min/max per node over runs, shares, bytes,
// GFLOP/s and intensity, the observer overhead formula, and the CSV and Chrome trace layouts.
#include "core/graph/builder.h"
#include "profiler/chrome_trace.h"
#include "profiler/node_profile.h"
#include "profiler/profile_csv.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace graphlens;

namespace {

struct TwoNodes {
    Graph graph;
    NodeId matmul = kNoId, relu = kNoId;
};

/// x[4,8] -> MatMul(w[8,16]) -> "mm, 1" [4,16] -> Relu -> "relu" [4,16].
TwoNodes twoNodes() {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4, 8}));
    const ValueId mm = b.op("MatMul", {x, b.initializer("w", Tensor::allocate(DType::Float, {8, 16}))}, {}, "mm, 1");
    const NodeId matmul = b.lastNode();
    const ValueId r = b.op("Relu", {mm}, {}, "relu");
    for (ValueId v : {mm, r}) {
        b.graph().value(v).dtype = DType::Float;
        b.graph().value(v).shape = Shape::ofSizes({4, 16});
    }
    b.output(r);
    return {b.graph(), matmul, b.lastNode()};
}

NodeEvent event(NodeId node, int64_t beginUs, int64_t durUs, uint64_t read, uint64_t written) {
    return {node, beginUs * 1000, (beginUs + durUs) * 1000, read, written, 0};
}

/// Three runs: MatMul takes 4, 2, 3 ms; Relu 1, 1, 4 ms.
std::vector<NodeEvent> threeRuns(const TwoNodes& t) {
    std::vector<NodeEvent> events;
    const int64_t mm[] = {4000, 2000, 3000}, relu[] = {1000, 1000, 4000};
    for (int run = 0; run < 3; ++run) {
        const int64_t start = run * 100000;
        events.push_back(event(t.matmul, start, mm[run], 640, 256));
        events.push_back(event(t.relu, start + mm[run], relu[run], 256, 256));
    }
    return events;
}

} // namespace

class TestNodeProfile : public QObject {
    Q_OBJECT
private slots:
    void statisticsPerNodeOverRuns() {
        const TwoNodes t = twoNodes();
        const std::vector<NodeProfile> nodes = profileNodes(t.graph, threeRuns(t));
        QCOMPARE(nodes.size(), size_t(2));
        QCOMPARE(nodes[0].node, t.matmul);
        QCOMPARE(nodes[0].name, std::string("mm, 1"));
        QCOMPARE(nodes[0].op, std::string("MatMul"));
        QCOMPARE(nodes[0].ms.median, 3.0);
        QCOMPARE(nodes[0].ms.min, 2.0);
        QCOMPARE(nodes[0].ms.max, 4.0);
        QCOMPARE(nodes[0].ms.count, size_t(3));
        QCOMPARE(nodes[1].ms.median, 1.0);
        QCOMPARE(sumOfMedians(nodes), 4.0);
        QCOMPARE(nodes[0].share, 0.75);
        QCOMPARE(nodes[1].share, 0.25);
    }
    void bytesFlopsAndIntensity() {
        const TwoNodes t = twoNodes();
        const std::vector<NodeProfile> nodes = profileNodes(t.graph, threeRuns(t));
        const NodeProfile& mm = nodes[0];
        QCOMPARE(mm.flops, std::optional<int64_t>(2 * 64 * 8));
        QCOMPARE(mm.weightBytes, uint64_t(8 * 16 * 4));
        QCOMPARE(mm.outputBytes, uint64_t(64 * 4));
        QCOMPARE(mm.bytesRead, uint64_t(640));
        QCOMPARE(mm.bytesWritten, uint64_t(256));
        QCOMPARE(mm.inputShapes, (std::vector<std::string>{"[4,8]", "[8,16]"}));
        QCOMPARE(mm.outputShape, std::string("[4,16]"));
        QCOMPARE(mm.gflops(), 1024 / 3e6);  // 1,024 FLOPs in 3 ms
        QCOMPARE(mm.arithmeticIntensity(), 1024.0 / 896.0);
        QCOMPARE(nodes[1].flops, std::optional<int64_t>(64));
    }
    void overheadIsTheRelativeDifferenceOfMedians() {
        QCOMPARE(observerOverheadPercent(10.25, 10.0), 2.5);
        QCOMPARE(observerOverheadPercent(9.5, 10.0), -5.0);
        QCOMPARE(observerOverheadPercent(1.0, 0.0), 0.0);
    }
    void csvHasAHeaderAndQuotesNames() {
        const TwoNodes t = twoNodes();
        const std::string csv = nodeProfileCsv(profileNodes(t.graph, threeRuns(t)));
        const QStringList lines = QString::fromStdString(csv).split("\r\n", Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QString("name,op,kernel,output_shape,median_ms,min_ms,max_ms,share,flops,gflops,intensity,"
                                   "bytes_read,bytes_written,weight_bytes,output_bytes"));
        QVERIFY2(lines[1].startsWith("\"mm, 1\",MatMul,,\"[4,16]\",3,2,4,0.75,1024,"), qPrintable(lines[1]));
        QVERIFY2(lines[1].endsWith(",640,256,512,256"), qPrintable(lines[1]));
        QCOMPARE(csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
        QCOMPARE(csvField("plain"), std::string("plain"));
    }
    void traceHasOneCompleteEventPerNodeEvent() {
        const TwoNodes t = twoNodes();
        const std::vector<NodeEvent> events = threeRuns(t);
        const std::vector<NodeProfile> nodes = profileNodes(t.graph, events);
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(chromeTraceJson(events, nodes, "test")));
        const QJsonArray trace = doc.object()["traceEvents"].toArray();
        QCOMPARE(trace.size(), 6 + 2);  // six nodes events, process and thread names
        const QJsonObject second = trace[2].toObject();
        QCOMPARE(second["ph"].toString(), QString("X"));
        QCOMPARE(second["name"].toString(), QString("relu"));
        QCOMPARE(second["ts"].toDouble(), 4000.0);  // µs after the first event
        QCOMPARE(second["dur"].toDouble(), 1000.0);
        QCOMPARE(second["pid"].toInt(), 1);
        QCOMPARE(second["tid"].toInt(), 1);
        QCOMPARE(second["args"].toObject()["op"].toString(), QString("Relu"));
        QCOMPARE(trace[5].toObject()["args"].toObject()["run"].toInt(), 2);
        const QJsonObject thread = trace[7].toObject();
        QCOMPARE(thread["ph"].toString(), QString("M"));
        QCOMPARE(thread["name"].toString(), QString("thread_name"));
        QCOMPARE(thread["tid"].toInt(), 1);
    }
};

QTEST_APPLESS_MAIN(TestNodeProfile)
#include "tst_node_profile.moc"
