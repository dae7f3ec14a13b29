// Runs cut out of an event stream (a run ends where a node comes again), the median run by span,
// and timeline bars relative to the run's start with the nodes' names and ops.
#include "core/graph/builder.h"
#include "profiler/run_timeline.h"

#include <QtTest>

using namespace graphlens;

namespace {

NodeEvent nodeEvent(NodeId node, int64_t beginUs, int64_t durUs, int track = 0) {
    return {node, beginUs * 1000, (beginUs + durUs) * 1000, 0, 0, track};
}

/// Runs of nodes 1, 2, 3 spanning 6, 12 and 9 ms; node 3 runs on a second track.
std::vector<NodeEvent> threeRuns() {
    std::vector<NodeEvent> events;
    const int64_t spans[] = {6000, 12000, 9000};
    for (int run = 0; run < 3; ++run) {
        const int64_t start = 100000 * (run + 1), unit = spans[run] / 6;
        events.push_back(nodeEvent(1, start, unit));
        events.push_back(nodeEvent(2, start + unit, 2 * unit));
        events.push_back(nodeEvent(3, start + unit, 5 * unit, 1));  // beside node 2, on its own track
    }
    return events;
}

} // namespace

class TestRunTimeline : public QObject {
    Q_OBJECT
private slots:
    void runsEndWhereANodeComesAgain() {
        const auto runs = splitRuns(threeRuns());
        QCOMPARE(runs.size(), size_t(3));
        for (const auto& run : runs) {
            QCOMPARE(run.size(), size_t(3));
            QCOMPARE(run[0].node, NodeId(1));
            QCOMPARE(run[2].node, NodeId(3));
        }
        QCOMPARE(runSpanMs(runs[0]), 6.0);
        QCOMPARE(runSpanMs(runs[1]), 12.0);
        QCOMPARE(medianRun(runs), size_t(2));  // spans 6, 12, 9: the median is 9, the third run
        QCOMPARE(medianRun({runs[0], runs[1]}), size_t(0));  // the lower middle of two
        QVERIFY(splitRuns({}).empty());
    }

    void barsStartAtTheRunsStart() {
        GraphBuilder b;
        const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
        const ValueId r = b.op("Relu", {x}, {}, "relu");
        const NodeId relu = b.lastNode();
        b.op("FusedConv", {r}, {}, "conv");
        const NodeId conv = b.lastNode();
        b.graph().node(conv).domain = "com.microsoft";
        std::vector<NodeProfile> nodes(2);
        nodes[0].node = relu, nodes[0].name = "relu", nodes[0].op = "Relu";
        nodes[1].node = conv, nodes[1].name = "conv", nodes[1].op = "com.microsoft:FusedConv";
        const std::vector<NodeEvent> run{nodeEvent(relu, 5000, 1500), nodeEvent(conv, 6500, 3000, 1), nodeEvent(77, 9500, 250)};
        const std::vector<TimelineBar> bars = timelineBars(run, nodes);
        QCOMPARE(bars.size(), size_t(3));
        QCOMPARE(bars[0].name, std::string("relu"));
        QCOMPARE(bars[0].startMs, 0.0);
        QCOMPARE(bars[0].durationMs, 1.5);
        QCOMPARE(bars[1].op, std::string("com.microsoft:FusedConv"));
        QCOMPARE(bars[1].startMs, 1.5);
        QCOMPARE(bars[1].durationMs, 3.0);
        QCOMPARE(bars[1].track, 1);
        QCOMPARE(bars[2].name, std::string("node 77"));  // no profile: named by id
        QCOMPARE(bars[2].startMs, 4.5);
    }
};

QTEST_GUILESS_MAIN(TestRunTimeline)
#include "tst_run_timeline.moc"
