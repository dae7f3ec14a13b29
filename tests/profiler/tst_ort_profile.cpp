// ONNX Runtime profile import: the committed profile of sample_cnn (2 runs, made by
// bench/ort_profile.mjs) maps onto the graph; suffixes, fences and unknown names; bad files;
// and the Model Explorer node-data export of the imported times.
#include "core/onnx/loader.h"
#include "profiler/node_data_export.h"
#include "profiler/node_profile.h"
#include "profiler/ort_profile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace graphlens;

namespace {

std::string fixture() {
    QFile f(GRAPHLENS_SOURCE_DIR "/tests/fixtures/ort_profile_sample_cnn.json");
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

Model sample() { return loadModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx"); }

} // namespace

class TestOrtProfile : public QObject {
    Q_OBJECT
private slots:
    void committedProfileMapsOntoTheGraph() {
        const Model m = sample();
        const OrtProfileImport import = importOrtProfile(fixture(), m.graph);
        // 20 executed nodes (ORT does not run the 3 Constant nodes) x 2 runs.
        QCOMPARE(import.nodeEvents, size_t(40));
        QCOMPARE(import.mappedEvents, size_t(40));
        QVERIFY(import.mappedFraction() >= 0.9);
        QVERIFY(import.unmappedNames.empty());
        QCOMPARE(import.events.size(), size_t(40));
        QCOMPARE(import.runMs.size(), size_t(2));
        const std::vector<NodeProfile> nodes = profileNodes(m.graph, import.events);
        QCOMPARE(nodes.size(), size_t(20));
        QCOMPARE(nodes[0].name, std::string("/stem/conv/Conv"));
        QCOMPARE(nodes[0].ms.count, size_t(2));
        QCOMPARE(nodes[0].bytesWritten, uint64_t(65536));            // output_size
        QCOMPARE(nodes[0].bytesRead, uint64_t(12288 + 1728));        // activation_size + parameter_size
        QCOMPARE(nodes.back().op, std::string("Gemm"));
    }
    void suffixesAreStripped() {
        QCOMPARE(ortNodeName("conv1_kernel_time"), std::string("conv1"));
        QCOMPARE(ortNodeName("conv1_fence_before"), std::string("conv1"));
        QCOMPARE(ortNodeName("conv1_fence_after"), std::string("conv1"));
        QCOMPARE(ortNodeName("model_run"), std::string("model_run"));
    }
    void fencesCountAsMappedAndUnknownNamesAreListed() {
        const Model m = sample();
        const std::string json = R"([
            {"cat":"Node","name":"/stem/conv/Conv_fence_before","ts":10,"dur":0,"args":{}},
            {"cat":"Node","name":"/stem/conv/Conv_kernel_time","ts":10,"dur":7,"args":{"output_size":"4"}},
            {"cat":"Node","name":"fused_0_kernel_time","ts":20,"dur":3,"args":{}},
            {"cat":"Node","name":"fused_0_kernel_time","ts":30,"dur":3,"args":{}},
            {"cat":"Session","name":"model_run","ts":0,"dur":50,"args":{}}])";
        const OrtProfileImport import = importOrtProfile(json, m.graph);
        QCOMPARE(import.nodeEvents, size_t(4));
        QCOMPARE(import.mappedEvents, size_t(2));
        QCOMPARE(import.mappedFraction(), 0.5);
        QCOMPARE(import.unmappedNames, std::vector<std::string>{"fused_0"});
        QCOMPARE(import.events.size(), size_t(1));
        QCOMPARE(import.events[0].endNs - import.events[0].beginNs, int64_t(7000));
        QCOMPARE(import.runMs, std::vector<double>{0.05});
    }
    void badFilesGiveOneSentence() {
        const Model m = sample();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, importOrtProfile("{\"traceEvents\": []}", m.graph));
        try {
            importOrtProfile("[{", m.graph);
            QFAIL("no error");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).starts_with("the profile is not valid JSON"), e.what());
        }
    }
    void nodeDataHoldsOneResultPerNode() {
        const std::string json = modelExplorerNodeData({{"/stem/conv/Conv", 0.25}, {"/head/fc/Gemm", 0.5}});
        const QJsonObject graph = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object()["main_graph"].toObject();
        const QJsonObject results = graph["results"].toObject();
        QCOMPARE(results.size(), 2);
        QCOMPARE(results["/stem/conv/Conv"].toObject()["value"].toDouble(), 0.25);
        QCOMPARE(results["/head/fc/Gemm"].toObject()["value"].toDouble(), 0.5);
        QCOMPARE(graph["gradient"].toArray().size(), 2);
        QCOMPARE(graph["gradient"].toArray()[1].toObject()["bgColor"].toString(), QString("#800026"));
    }
};

QTEST_APPLESS_MAIN(TestOrtProfile)
#include "tst_ort_profile.moc"
