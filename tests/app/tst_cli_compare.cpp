// `graphlens compare`: the JSON contract, exit status 3 on a divergence and 0 within tolerance,
// provenance recorded by `optimize` read back, bisection, the error heatmap, one-sentence errors.
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/onnx/tensor_file.h"
#include "support/add_mul_model.h"
#include "support/cli_process.h"

#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace graphlens;
using graphlens::testing::runGraphlens;
using graphlens::testing::verifyOneLineError;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");


QJsonObject jsonOf(const testing::CliResult& r) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    if (error.error != QJsonParseError::NoError) qWarning() << r.out << r.err;
    return doc.object();
}

QStringList strings(const QJsonValue& array) {
    QStringList list;
    for (const QJsonValue& v : array.toArray()) list << v.toString();
    return list;
}

} // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        saveModel(testing::addMulModel(1.0f), path("a.onnx").toStdString());
        saveModel(testing::addMulModel(1.5f), path("b.onnx").toStdString());
        writeTensorFile(path("x.pb").toStdString(), Tensor::floats({4}, {1, 2, 3, 4}), "x");
    }

    void optimizedModelInJson() {
        const auto r = runGraphlens({"compare", kSample, "--passes-b", "default", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = jsonOf(r);
        // Conv+BatchNormalization+Relu (and the residual Add) fused into four FusedConvs; Dropout,
        // Identity, Reshape and the multiplication by one removed.
        QCOMPARE(json["matched"].toInt(), 7);
        const QStringList onlyA = strings(json["only_a"]);
        QCOMPARE(onlyA.size(), 13);
        QCOMPARE(onlyA.filter("BatchNormalization").size(), 4);
        // Of those, what the FusedConvs stand for: 4 BatchNormalizations, 4 Relus and the Add;
        // the removed no-ops are gone for good.
        const QStringList folded = strings(json["folded_a"]);
        QCOMPARE(folded.size(), 9);
        QCOMPARE(folded.filter("BatchNormalization").size(), 4);
        QCOMPARE(folded.filter("Relu").size(), 4);
        QVERIFY(!folded.contains("/head/dropout/Dropout"));
        QVERIFY(json["only_b"].toArray().isEmpty());
        QCOMPARE(json["changed"].toArray().size(), 4);
        for (const QJsonValue& c : json["changed"].toArray())
            QCOMPARE(c["op_change"].toString(), QString("Conv -> com.microsoft:FusedConv"));
        const QJsonArray nodes = json["nodes"].toArray();
        QCOMPARE(nodes.size(), 7);
        for (const QJsonValue& n : nodes) {
            for (const char* key : {"name_a", "name_b", "op", "max_abs_error", "max_rel_error", "cosine"})
                QVERIFY2(n.toObject().contains(key), key);
            QCOMPARE(n["method"].toString(), QString("provenance"));
            QVERIFY(n["max_rel_error"].toDouble() < 1e-3);
        }
        QCOMPARE(nodes[0]["name_b"].toString(), QString("/stem/conv/Conv"));
        QCOMPARE(nodes[0]["name_a"].toString(), QString("/stem/relu/Relu"));  // the fused group's boundary
        QCOMPARE(strings(nodes[0]["group_a"]), (QStringList{"/stem/conv/Conv", "/stem/bn/BatchNormalization", "/stem/relu/Relu"}));
        QVERIFY(json["first_divergence"].isNull());
        QCOMPARE(json["outputs"].toArray().size(), 1);
        QCOMPARE(json["outputs"][0]["name_a"].toString(), QString("logits"));
        QVERIFY(json["peak_bytes"].toInteger() > 0);
        QVERIFY(json["peak_bytes"].toInteger() < json["intermediate_bytes"].toInteger());
        QCOMPARE(json["rounds"].toInt(), 1);
    }

    void divergenceSetsTheStatus() {
        const QStringList args{"compare", path("a.onnx"), path("b.onnx"), "--input", "x=" + path("x.pb"), "--json"};
        auto r = runGraphlens(args);
        QCOMPARE(r.status, 3);
        QVERIFY(r.err.isEmpty());
        const QJsonObject json = jsonOf(r);
        QCOMPARE(json["matched"].toInt(), 2);
        const QJsonObject first = json["first_divergence"].toObject();
        QCOMPARE(first["name_b"].toString(), QString("add"));
        QCOMPARE(first["max_abs_error"].toDouble(), 0.5);
        QCOMPARE(first["max_rel_error"].toDouble(), 0.25);  // 0.5 against 2
        QCOMPARE(json["nodes"][1]["max_abs_error"].toDouble(), 1.0);
        QCOMPARE(json["changed"][0]["weights"][0]["max_abs_difference"].toDouble(), 0.5);
        r = runGraphlens(QStringList(args) << "--tolerance" << "0.3");
        QCOMPARE(r.status, 0);
        QVERIFY(jsonOf(r)["first_divergence"].isNull());
        // The text report names the divergence.
        r = runGraphlens({"compare", path("a.onnx"), path("b.onnx"), "--input", "x=" + path("x.pb")});
        QCOMPARE(r.status, 3);
        QVERIFY2(r.out.contains("first divergence: add (Add), max relative error 0.25 > tolerance 0.001"), r.out.constData());
    }

    void optimizeRecordsProvenance() {
        auto r = runGraphlens({"optimize", kSample, "-o", path("optimized.onnx")});
        QCOMPARE(r.status, 0);
        r = runGraphlens({"compare", kSample, path("optimized.onnx"), "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = jsonOf(r);
        QCOMPARE(json["matched"].toInt(), 7);
        for (const QJsonValue& n : json["nodes"].toArray()) QCOMPARE(n["method"].toString(), QString("provenance"));
        // Passes applied to the saved B here: their provenance composed with the file's.
        r = runGraphlens({"compare", kSample, path("optimized.onnx"), "--passes-b", "quantize-int8-weights", "--json"});
        QCOMPARE(r.status, 3);  // int8 weights move results beyond 1e-3
        const QJsonObject quantized = jsonOf(r);
        QCOMPARE(quantized["matched"].toInt(), 7);
        for (const QJsonValue& n : quantized["nodes"].toArray()) QCOMPARE(n["method"].toString(), QString("provenance"));
        const QStringList onlyB = strings(quantized["only_b"]);
        QCOMPARE(onlyB.size(), 3);
        for (const QString& name : onlyB) QVERIFY2(name.endsWith("_DequantizeLinear"), qPrintable(name));
    }

    void bisectNamesNoPassOnACleanPipeline() {
        const auto r = runGraphlens({"compare", kSample, "--passes-b", "eliminate-noops,fold-batchnorm", "--bisect", "--json"});
        QCOMPARE(r.status, 0);
        const QJsonObject json = jsonOf(r);
        QCOMPARE(json["steps"].toArray().size(), 2);
        QVERIFY(json["pass"].isNull());
        QCOMPARE(json["sentence"].toString(), QString("no pass diverges beyond the tolerance"));
    }

    void bisectNamesTheLossyPass() {
        const auto r = runGraphlens({"compare", kSample, "--passes-b", "eliminate-noops,quantize-int8-weights,fold-batchnorm",
                                     "--bisect", "--json"});
        QCOMPARE(r.status, 3);
        const QJsonObject json = jsonOf(r);
        QCOMPARE(json["steps"].toArray().size(), 2);  // stops at the divergent pass
        QCOMPARE(json["steps"][0]["diverges"].toBool(), false);
        QCOMPARE(json["pass"].toString(), QString("quantize-int8-weights"));
        QVERIFY(json["sentence"].toString().startsWith("pass 'quantize-int8-weights' diverges beyond the tolerance first at node '"));
        QVERIFY(json["rewrite"].toString().contains("int8"));
        // Names in the comparison come from the quantized model: its DequantizeLinear nodes.
        const QStringList onlyB = strings(json["comparison"]["only_b"]);
        QVERIFY(!onlyB.isEmpty());
        for (const QString& name : onlyB) QVERIFY2(name.contains("DequantizeLinear"), qPrintable(name));
    }

    void heatmapIsWritten() {
        const auto r = runGraphlens({"compare", kSample, "--passes-b", "default", "--heatmap", path("error.png")});
        QCOMPARE(r.status, 0);
        const QImage image(path("error.png"));
        QVERIFY(!image.isNull());
        QVERIFY(image.height() > image.width());  // a chain of nodes under the legend
    }

    void badArgumentsAreOneSentence() {
        verifyOneLineError(runGraphlens({"compare"}), "compare takes a model A");
        verifyOneLineError(runGraphlens({"compare", kSample, "--bisect"}), "--bisect needs");
        verifyOneLineError(runGraphlens({"compare", kSample, kSample, "--bisect", "--passes-b", "default"}), "give one model");
        verifyOneLineError(runGraphlens({"compare", kSample, "--backend-b", "tpu"}), "the backend 'tpu' is not known");
        verifyOneLineError(runGraphlens({"compare", kSample, "--heatmap", path("x.bmp")}), "must end in .svg or .png");
        verifyOneLineError(runGraphlens({"compare", kSample, path("missing.onnx")}), "cannot load");
        verifyOneLineError(runGraphlens({"compare", kSample, "--passes-b", "no-such-pass"}), "no-such-pass");
        verifyOneLineError(runGraphlens({"compare", kSample, "--tolerance", "-1"}), "--tolerance");
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
