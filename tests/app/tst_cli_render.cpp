// `graphlens render`: an SVG with the op types as <text>, a PNG, groups collapsed on request,
// passes applied first, and one-sentence errors with status 1 for bad output paths.
#include "support/cli_process.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

using graphlens::testing::CliResult;
using Result = CliResult;

/// Runs graphlens with no display and no platform set: render must pick offscreen by itself.
Result runGraphlens(const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("QT_QPA_PLATFORM");
    env.remove("DISPLAY");
    return graphlens::testing::runGraphlens(args, env);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliRender : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    void expectOneLineError(const QStringList& args, const QByteArray& fragment) {
        graphlens::testing::verifyOneLineError(runGraphlens(args), fragment);
    }

private slots:
    void svgHasTheOpTypesAsText() {
        const QString out = dir_.filePath("sample.svg");
        const Result r = runGraphlens({"render", kSample, "-o", out});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(r.out.contains("22 boxes, 22 edges"));
        const QByteArray svg = readAll(out);
        QVERIFY(svg.startsWith("<?xml"));
        for (const char* op : {">Conv</text>", ">BatchNormalization</text>", ">Relu</text>", ">Add</text>",
                               ">GlobalAveragePool</text>", ">Gemm</text>", ">W 16×3×3×3</text>"})
            QVERIFY2(svg.contains(op), op);
        QVERIFY(!svg.contains(">Constant</text>"));
        QVERIFY(QDir(dir_.path()).entryList(QDir::Files).size() == 1);  // no temporary left behind
    }

    void pngHasPixels() {
        const QString out = dir_.filePath("sample.png");
        const Result r = runGraphlens({"render", kSample, "-o", out});
        QVERIFY2(r.status == 0, r.err.constData());
        const QImage image(out);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > 100 && image.height() > 500);
        QFile::remove(out);
    }

    void collapseDepthAndPassesChangeTheDrawing() {
        const QString out = dir_.filePath("collapsed.svg");
        Result r = runGraphlens({"render", kSample, "-o", out, "--collapse-depth", "0"});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(r.out.contains("6 boxes"));
        QVERIFY(readAll(out).contains(">block1</text>"));
        r = runGraphlens({"render", kSample, "-o", out, "--passes", "default"});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(!r.out.contains(" 22 boxes"));
        QVERIFY(readAll(out).contains(">Gemm</text>") || readAll(out).contains(">FusedGemm</text>"));
        QVERIFY(!readAll(out).contains(">Identity</text>"));  // a no-op the default passes remove
        QFile::remove(out);
    }

    void badOutputsGetOneSentenceAndStatusOne() {
        expectOneLineError({"render", kSample, "-o", dir_.filePath("x.jpg")}, "must end in .svg or .png");
        expectOneLineError({"render", kSample, "-o", dir_.filePath("absent/x.svg")}, "cannot write");
        expectOneLineError({"render", kSample}, "needs an output file");
        expectOneLineError({"render", dir_.filePath("absent.onnx"), "-o", dir_.filePath("x.svg")}, "does not exist");
        expectOneLineError({"render", kSample, "-o", dir_.filePath("x.svg"), "--collapse-depth", "two"},
                           "--collapse-depth");
        QVERIFY(!QFile::exists(dir_.filePath("x.svg")));
    }
};

QTEST_GUILESS_MAIN(TestCliRender)
#include "tst_cli_render.moc"
