// `graphlens MODEL --screenshot FILE.png [--apply-all] [--profile] [--size WxH]`: the window as a PNG of the
// asked size without a display, written atomically; a bad model or bad arguments give one line
// on stderr and status 1; `graphlens --help` lists the option.
#include "support/cli_process.h"

#include <QDir>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

using graphlens::testing::CliResult;

} // namespace

class TestCliScreenshot : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QTemporaryDir config_;

    /// Runs graphlens with no display and no platform set, its settings in a folder of its own.
    CliResult run(const QStringList& args) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("QT_QPA_PLATFORM");
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.insert("XDG_CONFIG_HOME", config_.path());
        return graphlens::testing::runGraphlens(args, env);
    }

private slots:
    void writesThePngAtTheAskedSize() {
        const QString out = dir_.filePath("window.png");
        const CliResult r = run({kSample, "--screenshot", out, "--size", "1280x800"});
        QVERIFY2(r.status == 0, r.err.constData());
        QVERIFY(r.err.isEmpty());
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1280, 800));
        QCOMPARE(QDir(dir_.path()).entryList(QDir::Files), QStringList({"window.png"}));  // no temporary left
        QFile::remove(out);
    }

    void defaultSizeAfterAllPasses() {
        const QString out = dir_.filePath("applied.png");
        const CliResult r = run({kSample, "--apply-all", "--screenshot", out});
        QVERIFY2(r.status == 0, r.err.constData());
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1600, 1000));
        // Not a blank window: the graph panes and docks give many colors.
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7) colors.insert(image.pixel(x, y));
        QVERIFY(colors.size() > 20);
        QFile::remove(out);
    }

    /// --profile: the same window with the step profiled, its time heatmap on the after side and
    /// the Profile dock in front of the rewrite log, so the picture differs in many places.
    void profileAddsTheHeatmap() {
        const QString plain = dir_.filePath("plain.png"), profiled = dir_.filePath("profiled.png");
        const CliResult a = run({kSample, "--apply-all", "--screenshot", plain, "--size", "1280x800"});
        QVERIFY2(a.status == 0, a.err.constData());
        const CliResult b = run({kSample, "--apply-all", "--profile", "--screenshot", profiled, "--size", "1280x800"});
        QVERIFY2(b.status == 0, b.err.constData());
        const QImage before(plain), after(profiled);
        QCOMPARE(after.size(), QSize(1280, 800));
        int differing = 0, sampled = 0;
        for (int y = 0; y < after.height(); y += 5)
            for (int x = 0; x < after.width(); x += 5, ++sampled) differing += before.pixel(x, y) != after.pixel(x, y);
        QVERIFY2(differing * 50 > sampled, qPrintable(QString("%1 of %2 sampled pixels differ").arg(differing).arg(sampled)));
        QFile::remove(plain);
        QFile::remove(profiled);
    }

    void badModelFailsWithOneLine() {
        const QString bad = dir_.filePath("bad.onnx");
        std::ofstream(bad.toStdString()) << "not a model";
        const QString out = dir_.filePath("bad.png");
        graphlens::testing::verifyOneLineError(run({bad, "--screenshot", out}), "Cannot open bad.onnx");
        QVERIFY(!QFile::exists(out));
        graphlens::testing::verifyOneLineError(run({dir_.filePath("absent.onnx"), "--screenshot", out}), "does not exist");
        QFile::remove(bad);
    }

    void badArgumentsFailWithOneLine() {
        const QString out = dir_.filePath("x.png");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot", out, "--size", "12x"}), "--size takes WxH");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot", out, "--size", "100x100"}), "--size takes WxH");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot", dir_.filePath("x.jpg")}), "must end in .png");
        graphlens::testing::verifyOneLineError(run({"--screenshot", out}), "needs a MODEL");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot"}), "--screenshot needs a value");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot", out, "--zoom"}), "unknown option '--zoom'");
        graphlens::testing::verifyOneLineError(run({kSample, "--screenshot", dir_.filePath("absent/x.png")}), "cannot write");
        QVERIFY(QDir(dir_.path()).entryList(QDir::Files).isEmpty());
    }

    void helpListsTheOption() {
        const CliResult r = run({"--help"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.contains("graphlens MODEL --screenshot FILE.png [--apply-all] [--profile] [--size WxH]"));
    }
};

QTEST_MAIN(TestCliScreenshot)
#include "tst_cli_screenshot.moc"
