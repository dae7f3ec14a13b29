// `graphlens profile`: the hotspot table and summary, the JSON keys, a 10-run Chrome trace (with
// its live-bytes counter) and the CSV it writes, before vs after with --compare, an imported ONNX
// Runtime profile, one-sentence errors for bad input; and `graphlens render --heatmap`, which
// paints profile values onto the graph.
#include "support/cli_process.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace graphlens::testing;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRAPHLENS_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(GRAPHLENS_TEST_UNDER_ASAN)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
const QString kOrtProfile = QStringLiteral(GRAPHLENS_SOURCE_DIR "/tests/fixtures/ort_profile_sample_cnn.json");
constexpr int kExecutedNodes = 23;  // every node of sample_cnn, its 3 Constant nodes included

/// The stem Conv's row among a profile's nodes, in execution order: the plan runs the Constant
/// nodes first when it fused the stem (its fused kernel is a node made after them).
int stemIndex(const QJsonArray& nodes) {
    for (int i = 0; i < nodes.size(); ++i)
        if (nodes[i].toObject()["name"].toString() == "/stem/conv/Conv") return i;
    return -1;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliProfile : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void textShowsHotspotsAndSummary() {
        const CliResult r = runGraphlens({"profile", kSample, "--runs", "15", "--warmup", "1", "--threads", "1", "--top", "4"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("hotspots (top 4 of 23 nodes by median time):"), r.out.constData());
        // Four rows by falling median, a convolution first (the 3x3 convs do 10x an element-wise
        // op's work; which ops follow depends on the machine's load, so only the order is pinned).
        const QList<QByteArray> lines = r.out.split('\n');
        constexpr qsizetype header = 2;  // after the "profiled ..." and "hotspots ..." lines
        QVERIFY(lines.size() > header + 4 && lines[header].trimmed().startsWith("node"));
        double previous = 1e9;
        for (qsizetype i = header + 1; i <= header + 4; ++i) {
            const QList<QByteArray> fields = lines[i].simplified().split(' ');
            QVERIFY2(fields.size() >= 6, lines[i].constData());
            const double median = fields[fields.size() - 3].toDouble();
            QVERIFY2(median <= previous, lines[i].constData());
            previous = median;
        }
        // Under AddressSanitizer the element-wise kernels (instrumented) slow tenfold while oneDNN's
        // convolutions (not instrumented) do not, so the order of work only shows in plain builds.
        if (!kSanitizedBuild) QVERIFY2(lines[header + 1].contains("/Conv "), lines[header + 1].constData());
        QVERIFY(r.out.contains("sum of node medians:"));
        QVERIFY(r.out.contains("process CPU time per run:"));
        QVERIFY(r.out.contains("observer overhead:"));
        // BatchNorm and Relu fused into the convolutions' kernels (conv_fusion.h): two 64 kB
        // activations alive at once, not three; the Constant nodes' tensors are initializers, not
        // in the arena.
        QVERIFY2(r.out.contains("memory: arena 131.07 kB, naive 262.78 kB, lower bound 131.07 kB"), r.out.constData());
        QVERIFY(r.err.isEmpty());
        QVERIFY(runGraphlens({"--help"}).out.contains("graphlens profile MODEL"));
        const CliResult help = runGraphlens({"profile", "--help"});
        QCOMPARE(help.status, 0);
        QVERIFY(help.out.contains("Usage: graphlens profile") && help.out.contains("--ort-profile"));
    }
    void jsonTraceAndCsvOfTenRuns() {
        const QString trace = dir_.filePath("trace.json"), csv = dir_.filePath("nodes.csv");
        const QString nodeData = dir_.filePath("node_data.json");
        const CliResult r = runGraphlens({"profile", kSample, "--runs", "10", "--warmup", "1", "--threads", "1", "--json",
                                          "--trace", trace, "--csv", csv, "--node-data", nodeData});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"median_ms", "arena_bytes", "naive_bytes", "lower_bound_bytes", "overhead_percent",
                                "node_median_sum_ms", "nodes"})
            QVERIFY2(json.contains(key), key);
        QCOMPARE(json["arena_bytes"].toInteger(), qint64(131072));
        const QJsonArray nodes = json["nodes"].toArray();
        QCOMPARE(nodes.size(), kExecutedNodes);
        const QJsonObject stem = nodes[stemIndex(nodes)].toObject();
        for (const char* key : {"name", "op", "median_ms", "min_ms", "max_ms", "share", "flops", "gflops", "bytes_read",
                                "bytes_written", "weight_bytes", "output_bytes"})
            QVERIFY2(stem.contains(key), key);
        QCOMPARE(stem["name"].toString(), QString("/stem/conv/Conv"));
        QCOMPARE(stem["flops"].toInteger(), qint64(884736));

        int complete = 0, counters = 0;
        double peak = 0;
        for (const QJsonValue& v : QJsonDocument::fromJson(readAll(trace)).object()["traceEvents"].toArray()) {
            const QJsonObject e = v.toObject();
            complete += e["ph"] == "X";
            if (e["ph"] != "C") continue;
            ++counters;
            QCOMPARE(e["name"].toString(), QString("live bytes"));
            peak = std::max(peak, e["args"].toObject()["bytes"].toDouble());
        }
        QCOMPARE(complete, kExecutedNodes * 10);
        QCOMPARE(counters, kExecutedNodes * 10);  // one sample at the start of each node event
        QCOMPARE(qint64(peak), json["lower_bound_bytes"].toInteger());

        const QList<QByteArray> rows = readAll(csv).split('\n');
        QCOMPARE(rows.size(), kExecutedNodes + 2);  // header, one row per node, the empty rest after the last "\r\n"
        QVERIFY(rows[0].startsWith("name,op,kernel,output_shape,median_ms,"));
        // The kernel column names the layout too ("onednn:conv[blocked out]" when a blocked kernel
        // reads the result), which depends on what follows the conv.
        const QByteArray& stemRow = rows[1 + stemIndex(nodes)];
        QVERIFY2(stemRow.startsWith("/stem/conv/Conv,Conv,onednn:conv") && stemRow.contains(",\"[1,16,32,32]\","),
                 stemRow.constData());

        const QJsonObject results = QJsonDocument::fromJson(readAll(nodeData)).object()["main_graph"].toObject()["results"].toObject();
        QCOMPARE(results.size(), kExecutedNodes);
    }
    void compareFoldsTheOptimizedTimesOntoTheOriginalNodes() {
        const CliResult r = runGraphlens({"profile", kSample, "--passes", "default", "--compare", "--runs", "3", "--warmup",
                                          "1", "--threads", "1", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        const QJsonObject before = json["before"].toObject(), after = json["after"].toObject();
        QCOMPARE(before["nodes"].toArray().size(), kExecutedNodes);
        QVERIFY(after["nodes"].toArray().size() < kExecutedNodes);
        QCOMPARE(json["median_ms_before"].toDouble(), before["median_ms"].toDouble());
        QCOMPARE(json["speedup"].toDouble(), before["median_ms"].toDouble() / after["median_ms"].toDouble());
        QCOMPARE(json["arena_bytes_before"].toInteger(), qint64(131072));
        QCOMPARE(json["arena_bytes_after"].toInteger(), after["arena_bytes"].toInteger());
        // One row per original node; each side's times add up to its sum of node medians.
        const QJsonArray nodes = json["nodes"].toArray();
        QCOMPARE(nodes.size(), kExecutedNodes);
        double beforeSum = 0, afterSum = 0;
        for (const QJsonValue& v : nodes) {
            beforeSum += v.toObject()["before_ms"].toDouble();
            afterSum += v.toObject()["after_ms"].toDouble();
        }
        QCOMPARE(beforeSum, before["node_median_sum_ms"].toDouble());
        QCOMPARE(afterSum, after["node_median_sum_ms"].toDouble());
        const int s = stemIndex(nodes);
        QCOMPARE(nodes[s].toObject()["name"].toString(), QString("/stem/conv/Conv"));
        // The stem's Conv, BatchNormalization and Relu became one node: one group, one speedup.
        const QJsonObject stem = json["groups"].toArray()[nodes[s].toObject()["group"].toInt()].toObject();
        QCOMPARE(stem["nodes"].toArray().size(), 3);
        QCOMPARE(stem["after_nodes"].toArray().size(), 1);
        QCOMPARE(stem["speedup"].toDouble(), stem["before_ms"].toDouble() / stem["after_ms"].toDouble());
        for (int i = s + 1; i < s + 3; ++i) QCOMPARE(nodes[i].toObject()["group"].toInt(), nodes[s].toObject()["group"].toInt());

        const CliResult text = runGraphlens({"profile", kSample, "--passes", "default", "--compare", "--runs", "2", "--warmup", "0"});
        QCOMPARE(text.status, 0);
        QVERIFY2(text.out.contains("before vs after, per original node"), text.out.constData());
        QVERIFY(text.out.contains("before: no passes; after: --passes default"));
        QVERIFY(text.out.contains("/stem/bn/BatchNormalization"));
        const QList<QByteArray> lines = text.out.split('\n');
        const QByteArray summary = *std::find_if(lines.begin(), lines.end(), [](const QByteArray& l) { return l.startsWith("total speedup "); });
        QVERIFY2(summary.contains("x (median ") && summary.contains("; arena 131.07 kB -> "), summary.constData());
        verifyOneLineError(runGraphlens({"profile", kSample, "--compare", "--ort-profile", kOrtProfile}),
                           "--compare runs the model; it does not go with --ort-profile");
    }
    void importsAnOnnxRuntimeProfile() {
        const CliResult r = runGraphlens({"profile", kSample, "--ort-profile", kOrtProfile, "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(json["node_events"].toInt(), 40);
        QCOMPARE(json["mapped_events"].toInt(), 40);
        QCOMPARE(json["mapped_fraction"].toDouble(), 1.0);
        QCOMPARE(json["nodes"].toArray().size(), 20);
        const CliResult text = runGraphlens({"profile", kSample, "--ort-profile", kOrtProfile});
        QVERIFY2(text.out.contains("mapped 40 of 40 ONNX Runtime node events onto the graph (100.0%)"), text.out.constData());
    }
    void renderPaintsTheHeatmap() {
        const QString svg = dir_.filePath("heat.svg");
        const CliResult r = runGraphlens({"render", kSample, "--heatmap", "time", "--profile", kOrtProfile, "-o", svg});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.endsWith(", 20 nodes colored by time\n"), r.out.constData());
        const QByteArray image = readAll(svg);
        QVERIFY(image.contains("fill=\"#800026\""));  // the slowest node: the hot end of the ramp
        QVERIFY(image.contains("fill=\"#ffffcc\""));  // the fastest: the cool end
        QVERIFY(image.contains("median time per node"));
        const CliResult memory = runGraphlens({"render", kSample, "--heatmap", "memory", "-o", svg});
        QCOMPARE(memory.status, 0);
        QVERIFY2(memory.out.endsWith(", 23 nodes colored by memory\n"), memory.out.constData());
        QVERIFY(readAll(svg).contains("bytes written per node"));
    }
    void profilesOnVulkanOrSaysItFellBackToTheCpu() {
        const CliResult r = runGraphlens({"profile", kSample, "--backend", "vulkan", "--runs", "2", "--warmup", "1", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        const bool fellBack = r.err.contains("no Vulkan device");
        QCOMPARE(json["backend"].toString(), fellBack ? QString("cpu") : QString("vulkan"));
        QCOMPARE(json["nodes"].toArray().size(), 23);
        for (const QJsonValue& node : json["nodes"].toArray()) QVERIFY(node.toObject()["median_ms"].toDouble() > 0);
    }

    void renderProfilesTheHeatmapOnVulkanOrSaysItFellBackToTheCpu() {
        const QString svg = dir_.filePath("vulkan_heat.svg");
        const CliResult r = runGraphlens({"render", kSample, "--heatmap", "time", "--backend", "vulkan", "--runs", "2", "-o", svg});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.endsWith(", 23 nodes colored by time\n"), r.out.constData());
        QCOMPARE(r.err.contains("no Vulkan device"), r.err.contains("running on the CPU backend"));
        QVERIFY(readAll(svg).contains("median time per node"));
    }

    void badInputGivesOneSentence() {
        verifyOneLineError(runGraphlens({"profile", dir_.filePath("missing.onnx")}), "cannot load");
        verifyOneLineError(runGraphlens({"profile", kSample, "--runs", "0"}), "--runs must be at least 1");
        verifyOneLineError(runGraphlens({"profile", kSample, "--warmup", "-1"}), "--warmup at least 0");
        verifyOneLineError(runGraphlens({"profile", kSample, "--trace", "/nonexistent-folder/trace.json"}),
                           "cannot write '/nonexistent-folder/trace.json'");
        verifyOneLineError(runGraphlens({"profile", kSample, "--backend", "tpu"}), "the backend 'tpu' is not known; use cpu or vulkan");
        verifyOneLineError(runGraphlens({"profile", kSample, "--ort-profile", kSample}), "the profile is not valid JSON");
        verifyOneLineError(runGraphlens({"profile"}), "profile takes exactly one MODEL argument");
        const QString png = dir_.filePath("x.png");
        verifyOneLineError(runGraphlens({"render", kSample, "--heatmap", "speed", "-o", png}), "--heatmap must be time or memory");
        verifyOneLineError(runGraphlens({"render", kSample, "--heatmap", "time", "--scale", "cubic", "-o", png}),
                           "--scale must be linear or log");
        verifyOneLineError(runGraphlens({"render", kSample, "--profile", kOrtProfile, "-o", png}),
                           "--profile needs --heatmap time");
        verifyOneLineError(runGraphlens({"render", kSample, "--heatmap", "time", "--backend", "tpu", "-o", png}),
                           "the backend 'tpu' is not known; use cpu or vulkan");
        QVERIFY(!QFile::exists(png));
        QVERIFY(!QFile::exists("/nonexistent-folder/trace.json"));
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
