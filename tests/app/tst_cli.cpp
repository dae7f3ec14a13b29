// The command line as scripts use it: `info` JSON keys, `optimize` (the round trip with no
// passes, the pass table and JSON, --verify), `passes`, --help on every command, and
// one-sentence errors with exit status 1 for bad input.
#include "core/onnx/loader.h"
#include "core/onnx/tensor_file.h"
#include "core/runtime/tensor_compare.h"
#include "support/cli_process.h"
#include "support/proto_fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace graphlens;
using namespace graphlens::testing;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

using Result = CliResult;

} // namespace

class TestCli : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    void expectOneLineError(const QStringList& args, const QByteArray& fragment) {
        verifyOneLineError(runGraphlens(args), fragment);
    }

private slots:
    void infoJsonHasTheDocumentedKeys() {
        const Result r = runGraphlens({"info", kSample, "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(json["nodes"].toInt(), 23);
        const QJsonObject ops = json["ops"].toObject();
        QCOMPARE(ops["Conv"].toInt(), 4);
        QCOMPARE(ops["BatchNormalization"].toInt(), 4);
        QCOMPARE(ops["Constant"].toInt(), 3);
        const QJsonArray inputs = json["inputs"].toArray();
        QCOMPARE(inputs.size(), 1);
        QCOMPARE(inputs[0].toObject()["name"].toString(), QString("input"));
        QCOMPARE(inputs[0].toObject()["shape"].toArray(), (QJsonArray{1, 3, 32, 32}));
        QCOMPARE(json["outputs"].toArray()[0].toObject()["shape"].toArray(), (QJsonArray{1, 10}));
        QCOMPARE(json["parameters"].toInteger(), qint64(10302));
        QCOMPARE(json["parameter_bytes"].toInteger(), qint64(41216));
        // Conv: 2*16*32*32*27 + 2*(2*16*32*32*144) + 2*32*16*16*144; Gemm: 2*10*32 + 10.
        QCOMPARE(json["flops"].toInteger(), qint64(884736 + 9437184 + 2359296 + 650));
    }

    void infoTextNamesTheEssentials() {
        const Result r = runGraphlens({"info", kSample});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("input: float [1,3,32,32]"));
        QVERIFY(r.out.contains("nodes:       23"));
        QVERIFY(r.out.contains("4 Conv"));
    }

    void optimizeWithNoPassesWritesTheModelBack() {
        const QString out = dir_.filePath("roundtrip.onnx");
        const Result r = runGraphlens({"optimize", kSample, "-o", out, "--passes", "none", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(json["nodes_before"].toInt(), 23);
        QCOMPARE(json["nodes_after"].toInt(), 23);
        const Model a = loadModel(kSample.toStdString());
        const Model b = loadModel(out.toStdString());
        QCOMPARE(b.graph.nodeCount(), a.graph.nodeCount());
        QCOMPARE(b.graph.initializers().size(), a.graph.initializers().size());
        for (ValueId v : a.graph.initializers()) {
            const Value& va = a.graph.value(v);
            QVERIFY(b.graph.value(*b.graph.findValue(va.name)).initializer->contentEquals(*va.initializer));
        }
    }

    void badInputGetsOneSentenceAndStatusOne() {
        writeFile(dir_.filePath("empty.onnx"), "");
        expectOneLineError({"info", dir_.filePath("empty.onnx")}, "the file is empty");
        writeFile(dir_.filePath("junk.onnx"), std::string("\x08\x96\x01\xff\xff\xff", 6));
        expectOneLineError({"info", dir_.filePath("junk.onnx")}, "malformed or truncated");
        expectOneLineError({"info", dir_.filePath("absent.onnx")}, "does not exist");
        onnx::ModelProto cyclic = reluModel();
        cyclic.mutable_graph()->mutable_node(0)->set_input(0, "y");
        writeModel(dir_.filePath("cycle.onnx"), cyclic);
        expectOneLineError({"info", "--json", dir_.filePath("cycle.onnx")}, "cycle");
        expectOneLineError({"optimize", dir_.filePath("cycle.onnx"), "-o", dir_.filePath("x.onnx")}, "cycle");
        QVERIFY(!QFile::exists(dir_.filePath("x.onnx")));
    }

    void namesWithLineBreaksStayOnOneLine() {
        onnx::ModelProto m = reluModel();
        m.mutable_graph()->mutable_node(0)->set_input(0, "gh\nost");
        writeModel(dir_.filePath("newline.onnx"), m);
        expectOneLineError({"info", dir_.filePath("newline.onnx")}, "reads 'gh\\nost'");
    }

    void usageErrorsSayWhatIsMissing() {
        expectOneLineError({"optimize", kSample}, "needs an output file");
        expectOneLineError({"info"}, "exactly one MODEL");
        expectOneLineError({"info", kSample, "--bogus"}, "bogus");
        expectOneLineError({"optimize", kSample, "-o", dir_.filePath("o.onnx"), "--passes", "fancy"},
                           "'fancy'");
    }

    void runWritesOutputsAndBenchReportsFigures() {
        const QString out = dir_.filePath("outputs");
        const Result r = runGraphlens({"run", kSample, "--seed", "3", "--output-dir", out, "--save-inputs", out});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.startsWith("logits: float [1,10]"));
        const Tensor logits = readTensorFile(QDir(out).filePath("output_0.pb").toStdString());
        QCOMPARE(logits.dims(), (std::vector<int64_t>{1, 10}));
        // the same inputs through the reference kernels give the same logits
        const Result again = runGraphlens({"run", kSample, "--reference", "--input",
                                           "input=" + QDir(out).filePath("input_0.pb"), "--output-dir", out + "2"});
        QCOMPARE(again.status, 0);
        const Tensor reference = readTensorFile(QDir(out + "2").filePath("output_0.pb").toStdString());
        QVERIFY(compareTensors(logits, reference, 1e-4, 1e-5).matches);
        const Result bench = runGraphlens({"bench", kSample, "--runs", "3", "--warmup", "1", "--json"});
        QCOMPARE(bench.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(bench.out).object();
        QVERIFY(json["min_ms"].toDouble() > 0);
        QVERIFY(json["min_ms"].toDouble() <= json["median_ms"].toDouble());
        QVERIFY(json["median_ms"].toDouble() <= json["max_ms"].toDouble());
        QCOMPARE(json["samples_ms"].toArray().size(), 3);
        QVERIFY(json["arena_bytes"].toInteger() <= json["naive_bytes"].toInteger());
    }

    void runRejectsBadInputsInOneSentence() {
        expectOneLineError({"run", kSample, "--input", "nope=x.pb"}, "the model has no input named 'nope'");
        expectOneLineError({"run", kSample, "--input", "input=" + dir_.filePath("missing.pb")}, "cannot open the tensor file");
        expectOneLineError({"bench", kSample, "--runs", "0"}, "--runs must be at least 1");
    }

    /// graphlens makes OpenMP threads spin briefly, then sleep between parallel regions
    /// (openmp_wait_policy.cpp), as libgomp itself reports it (OMP_DISPLAY_ENV), unless the user
    /// chose a policy or a spin count.
    void openMpThreadsSpinBrieflyUnlessTheUserChose() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("OMP_WAIT_POLICY");
        env.remove("GOMP_SPINCOUNT");
        env.insert("OMP_DISPLAY_ENV", "verbose");
        const Result brief = runGraphlens({"--version"}, env);
        QCOMPARE(brief.status, 0);
        QVERIFY2(brief.err.contains("GOMP_SPINCOUNT = '3000'"), brief.err.constData());

        env.insert("OMP_WAIT_POLICY", "ACTIVE");
        const Result active = runGraphlens({"--version"}, env);
        QVERIFY2(active.err.contains("OMP_WAIT_POLICY = 'ACTIVE'"), active.err.constData());
        QVERIFY2(!active.err.contains("GOMP_SPINCOUNT = '3000'"), active.err.constData());

        env.remove("OMP_WAIT_POLICY");
        env.insert("GOMP_SPINCOUNT", "1234");
        const Result spin = runGraphlens({"--version"}, env);
        QVERIFY2(spin.err.contains("GOMP_SPINCOUNT = '1234'"), spin.err.constData());
    }

    void versionAndHelp() {
        QVERIFY(runGraphlens({"--version"}).out.startsWith("graphlens "));
        const Result help = runGraphlens({"--help"});
        QCOMPARE(help.status, 0);
        QVERIFY(help.out.contains("graphlens info MODEL"));
        for (const char* command : {"info", "optimize", "run", "bench", "conformance", "passes"}) {
            const Result sub = runGraphlens({command, "--help"});
            QCOMPARE(sub.status, 0);
            QVERIFY2(sub.out.contains(QByteArray("Usage: graphlens ") + command), sub.out.constData());
        }
    }

    void optimizeReportsEveryPassAndVerifies() {
        const QString out = dir_.filePath("optimized.onnx");
        const Result r = runGraphlens({"optimize", kSample, "-o", out, "--verify", "--json", "--log"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(json["nodes_before"].toInt(), 23);
        const QJsonArray passes = json["passes"].toArray();
        QVERIFY(passes.size() >= 2);
        QCOMPARE(passes[0].toObject()["id"].toString(), QString("eliminate-noops"));
        int previous = 23;
        for (const QJsonValue& p : passes) {
            const QJsonObject pass = p.toObject();
            for (const char* key : {"id", "rewrites", "nodes_before", "nodes_after", "ms", "max_abs_error", "max_rel_error"})
                QVERIFY2(pass.contains(key), key);
            QCOMPARE(pass["nodes_before"].toInt(), previous);
            previous = pass["nodes_after"].toInt();
            QVERIFY(pass["verified"].toBool());
            QVERIFY(pass["max_abs_error"].toDouble() < 1e-4);
            QCOMPARE(pass["log"].toArray().size(), pass["rewrites"].toInt());
        }
        QCOMPARE(json["nodes_after"].toInt(), previous);
        QVERIFY(previous < 23);
        const Model m = loadModel(out.toStdString());
        QCOMPARE(int(m.graph.nodeCount()), previous);
        for (NodeId id : m.graph.nodeIds())
            for (const char* gone : {"Dropout", "Identity"}) QVERIFY(m.graph.node(id).opType != gone);
        const Result table = runGraphlens({"optimize", kSample, "-o", out, "--passes", "eliminate-noops"});
        QCOMPARE(table.status, 0);
        QVERIFY2(table.out.contains("eliminate-noops") && table.out.contains("nodes: 23 -> 19"), table.out.constData());
        QVERIFY(!table.out.contains("max abs err"));  // error columns only with --verify
    }

    void optimizeQuantizesWithACalibrationFolder() {
        // sample_cnn's input is [1, 3, 32, 32]; one test_data_set_0 folder calibrates it.
        const QString calibration = dir_.filePath("calibration");
        QVERIFY(QDir().mkpath(calibration + "/test_data_set_0"));
        std::vector<float> x(3 * 32 * 32);
        for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 41) - 20) / 10.f;  // [-2, 2]
        writeTensorFile((calibration + "/test_data_set_0/input_0.pb").toStdString(), Tensor::floats({1, 3, 32, 32}, x), "input");
        const QString out = dir_.filePath("quantized.onnx");
        const Result r = runGraphlens({"optimize", kSample, "-o", out, "--passes", "default,quantize-int8",
                                       "--calibration", calibration, "--reduce-range", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonArray passes = QJsonDocument::fromJson(r.out).object()["passes"].toArray();
        const QJsonObject quantize = passes.last().toObject();
        QCOMPARE(quantize["id"].toString(), QString("quantize-int8"));
        QVERIFY(quantize["lossy"].toBool());
        const QJsonArray notes = quantize["notes"].toArray();
        QCOMPARE(notes.size(), 5);
        QCOMPARE(notes[0].toString(), "calibrated on 1 input sets from '" + calibration + "'");
        QVERIFY(notes[2].toString().startsWith("weights within [-63, 63] (--reduce-range)"));
        QVERIFY(notes[4].toString().startsWith("graph outputs on calibration input 1 (CPU plan, int8 kernels) against the float model: max abs error "));
        const Model m = loadModel(out.toStdString());
        int quantizeNodes = 0, int8Weights = 0;
        for (NodeId id : m.graph.nodeIds()) {
            const Node& n = m.graph.node(id);
            quantizeNodes += n.opType == "QuantizeLinear";
            if (n.opType == "DequantizeLinear")
                if (const Tensor* w = m.graph.constantValue(n.input(0)); w && w->dtype() == DType::Int8) {
                    ++int8Weights;
                    int largest = 0;  // --reduce-range: 7-bit codes, the largest of each weight at 63
                    for (int8_t q : w->span<int8_t>()) largest = std::max(largest, std::abs(int(q)));
                    QCOMPARE(largest, 63);
                }
        }
        QCOMPARE(int8Weights, 5);  // four Conv weights and the Gemm's
        QVERIFY(quantizeNodes >= 5);
        // The CPU plan runs the written model's convolutions on int8 kernels.
        const Result bench = runGraphlens({"bench", out, "--runs", "1", "--warmup", "0", "--threads", "1"});
        QCOMPARE(bench.status, 0);
        QVERIFY2(bench.out.contains("QDQ convolutions as int8 QLinearConv"), bench.out.constData());

        // A file that does not fit the model's input: one sentence naming it.
        const QString wrong = dir_.filePath("wrong_calibration");
        QVERIFY(QDir().mkpath(wrong));
        writeTensorFile((wrong + "/input_0.pb").toStdString(), Tensor::floats({1, 3}, {0, 1, 2}), "input");
        expectOneLineError({"optimize", kSample, "-o", dir_.filePath("q2.onnx"), "--passes", "quantize-int8", "--calibration", wrong},
                           "calibration file '" + (wrong + "/input_0.pb").toUtf8() + "' does not match the model's input 'input'");
    }

    void windowReportsItsFirstPaint() {
        const Result r = runGraphlens({kSample, "--quit-after-first-paint"});
        QCOMPARE(r.status, 0);
        QVERIFY2(QRegularExpression("^first paint: \\d+ ms\n$").match(QString(r.out)).hasMatch(), r.out.constData());
        expectOneLineError({dir_.filePath("absent.onnx"), "--quit-after-first-paint"}, "does not exist");
    }

    void passesExplainThemselves() {
        const Result list = runGraphlens({"passes", "--json"});
        QCOMPARE(list.status, 0);
        const QJsonArray passes = QJsonDocument::fromJson(list.out).array();
        QVERIFY(passes.size() >= 2);
        for (const QJsonValue& p : passes) QVERIFY(p.toObject()["explanation"].toString().size() > 100);
        const Result one = runGraphlens({"passes", "remove-dead-nodes"});
        QCOMPARE(one.status, 0);
        QVERIFY(one.out.contains("walking backwards from the outputs"));
        expectOneLineError({"passes", "fold-everything"}, "unknown pass 'fold-everything'");
        expectOneLineError({"optimize", kSample, "-o", dir_.filePath("o.onnx"), "--skip-failing"}, "needs --verify");
        expectOneLineError({"bench", kSample, "--passes", "nope"}, "unknown pass 'nope'");
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
