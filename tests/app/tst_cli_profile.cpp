// `graphlens profile`: the hotspot table and summary, the JSON keys, a 10-run Chrome trace and
// the CSV it writes, an imported ONNX Runtime profile, one-sentence errors for bad input; and
// `graphlens render --heatmap`, which paints profile values onto the graph.
#include "support/cli_process.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace graphlens::testing;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
const QString kOrtProfile = QStringLiteral(GRAPHLENS_SOURCE_DIR "/tests/fixtures/ort_profile_sample_cnn.json");
constexpr int kExecutedNodes = 23;  // every node of sample_cnn, its 3 Constant nodes included

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
        const CliResult r = runGraphlens({"profile", kSample, "--runs", "3", "--warmup", "1", "--threads", "1", "--top", "4"});
        QCOMPARE(r.status, 0);
        QVERIFY2(r.out.contains("hotspots (top 4 of 23 nodes by median time):"), r.out.constData());
        QCOMPARE(r.out.count("/Conv "), 4);  // the four convolutions lead the table
        QVERIFY(r.out.contains("sum of node medians:"));
        QVERIFY(r.out.contains("process CPU time per run:"));
        QVERIFY(r.out.contains("observer overhead:"));
        QVERIFY(r.out.contains("memory: arena 196.61 kB, naive 787.26 kB, lower bound 196.61 kB"));
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
        QCOMPARE(json["arena_bytes"].toInteger(), qint64(196608));
        const QJsonArray nodes = json["nodes"].toArray();
        QCOMPARE(nodes.size(), kExecutedNodes);
        const QJsonObject stem = nodes[0].toObject();
        for (const char* key : {"name", "op", "median_ms", "min_ms", "max_ms", "share", "flops", "gflops", "bytes_read",
                                "bytes_written", "weight_bytes", "output_bytes"})
            QVERIFY2(stem.contains(key), key);
        QCOMPARE(stem["name"].toString(), QString("/stem/conv/Conv"));
        QCOMPARE(stem["flops"].toInteger(), qint64(884736));

        int complete = 0;
        for (const QJsonValue& e : QJsonDocument::fromJson(readAll(trace)).object()["traceEvents"].toArray())
            complete += e.toObject()["ph"] == "X";
        QCOMPARE(complete, kExecutedNodes * 10);

        const QList<QByteArray> rows = readAll(csv).split('\n');
        QCOMPARE(rows.size(), kExecutedNodes + 2);  // header, one row per node, the empty rest after the last "\r\n"
        QVERIFY(rows[0].startsWith("name,op,kernel,output_shape,median_ms,"));
        QVERIFY(rows[1].startsWith("/stem/conv/Conv,Conv,onednn:conv,\"[1,16,32,32]\","));

        const QJsonObject results = QJsonDocument::fromJson(readAll(nodeData)).object()["main_graph"].toObject()["results"].toObject();
        QCOMPARE(results.size(), kExecutedNodes);
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
        QVERIFY(!QFile::exists("/nonexistent-folder/trace.json"));
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
