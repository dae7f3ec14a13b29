// The main window (offscreen): opening the sample, stepping through passes with the before/after
// canvas and its diff marks, and a bad file that leaves it usable.
#include "app/main_window.h"
#include "viewer/graph_scene.h"
#include "viewer/model_overview.h"
#include "viewer/node_item.h"

#include <QListWidget>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace graphlens;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void stepsThroughPassesWithDiffMarks() {
        MainWindow w;
        QVERIFY(w.openModel(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.layoutPending(), 20000);
        QCOMPARE(w.afterScene()->nodeItems().size(), size_t(22));  // 20 nodes + input + output
        w.applyNextPass();  // eliminate-noops: Mul by 1, Dropout, Identity, Reshape
        QCOMPARE(w.stepper().step(), size_t(1));
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(19));
        QTRY_VERIFY_WITH_TIMEOUT(!w.layoutPending(), 20000);
        const Graph& before = w.stepper().previous().graph;
        const NodeId dropout = *before.findNode("/head/dropout/Dropout");
        QCOMPARE(w.beforeScene()->nodeMark(dropout), NodeMark::Removed);
        QVERIFY(w.rewriteLog()->count() >= 4);
        QVERIFY(w.rewriteLog()->item(0)->text().startsWith("[eliminate-noops] removed"));
        w.applyAllPasses();
        QTRY_VERIFY_WITH_TIMEOUT(!w.layoutPending(), 20000);
        const size_t optimized = w.stepper().current().graph.nodeCount();
        QVERIFY(optimized < 12);
        QCOMPARE(int(w.afterScene()->nodeItems().size()), int(optimized) + 2 - 0);
        w.stepBack();
        QCOMPARE(w.stepper().step(), w.stepper().stepCount() - 1);
        w.stepForward();
        QCOMPARE(w.stepper().current().graph.nodeCount(), optimized);
        w.resetPasses();
        QCOMPARE(w.stepper().current().graph.nodeCount(), size_t(23));
        QTRY_VERIFY_WITH_TIMEOUT(!w.layoutPending(), 20000);
    }

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
