// The main window (offscreen): opening the sample, and a bad file that leaves it usable.
#include "app/main_window.h"
#include "viewer/model_overview.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace graphlens;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void opensTheSampleModel() {
        MainWindow w;
        w.show();
        QVERIFY(w.openModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx"));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
        QVERIFY(w.windowTitle().startsWith("sample_cnn.onnx"));
    }

    void badFileKeepsTheCurrentModel() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.onnx");
        std::ofstream(bad.toStdString()) << "not a model";
        MainWindow w;
        QVERIFY(w.openModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx"));
        QVERIFY(!w.openModel(bad, /*quiet=*/true));
        QVERIFY(w.lastError().contains("bad.onnx"));
        QVERIFY(w.lastError().contains("malformed"));
        QCOMPARE(w.model()->graph.nodeCount(), size_t(23));
        QCOMPARE(w.overview()->nodeRowCount(), 23);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
