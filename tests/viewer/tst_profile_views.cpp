// The profile views on their own (offscreen): the timeline puts one bar per node in execution
// order on one row per track, scaled to the run, names the node on hover and selects it on a
// click; the memory chart's columns, arena and naive lines, hover and click.
#include "viewer/memory_chart.h"
#include "viewer/timeline_view.h"

#include <QSignalSpy>
#include <QtTest>

using namespace graphlens;

namespace {

/// Four nodes: 10 and 11 one after the other on track 0, 12 beside 11 on track 1, 13 last.
std::vector<TimelineBar> fourBars() {
    return {{10, "stem", "Conv", 0, 0.0, 2.0}, {11, "relu", "Relu", 0, 2.0, 1.0},
            {12, "side", "com.microsoft:FusedConv", 1, 2.0, 3.0}, {13, "head", "Gemm", 0, 5.0, 1.0}};
}

std::vector<MemoryStep> fourSteps() {
    return {{10, "stem", "Conv", 4096}, {11, "relu", "Relu", 8192}, {12, "side", "Conv", 12288}, {13, "head", "Gemm", 0}};
}

} // namespace

class TestProfileViews : public QObject {
    Q_OBJECT
private slots:
    void timelineHasOneBarPerNodeOnItsTrack() {
        TimelineView view;
        view.resize(664, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setBars(fourBars(), "run 1");
        QCOMPARE(view.barItems().size(), size_t(4));
        QCOMPARE(view.spanMs(), 6.0);
        const auto rect = [&](size_t i) { return view.barItems()[i]->rect(); };
        for (size_t i = 0; i < 4; ++i) QCOMPARE(view.barItems()[i]->index(), i);
        // x is time: equal ms, equal widths; bars follow each other in execution order.
        QCOMPARE(rect(0).width(), 2 * rect(1).width());
        QCOMPARE(rect(1).left(), rect(0).right());
        QCOMPARE(rect(2).left(), rect(1).left());
        QVERIFY(rect(3).left() > rect(1).right());
        // One row per track: track 1 below track 0.
        QCOMPARE(rect(0).top(), rect(1).top());
        QCOMPARE(rect(3).top(), rect(0).top());
        QVERIFY(rect(2).top() > rect(0).bottom());
        // The run fills the view's width at zoom 1.
        QVERIFY(view.mapFromScene(rect(3).topRight()).x() <= view.viewport()->width());
        QVERIFY(view.mapFromScene(rect(3).topRight()).x() > view.viewport()->width() * 3 / 4);
        const QString tip = view.barItems()[2]->toolTip();
        QVERIFY2(tip.contains("side") && tip.contains("com.microsoft:FusedConv") && tip.contains("3.0000 ms"), qPrintable(tip));
        const qreal fitted = rect(0).width();
        view.setZoom(2);  // twice as many pixels per ms
        QCOMPARE(rect(0).width(), 2 * fitted);
        QCOMPARE(view.zoom(), 2.0);
    }

    void clickingABarSelectsItsNode() {
        TimelineView view;
        view.resize(664, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setBars(fourBars());
        QSignalSpy clicked(&view, &TimelineView::nodeClicked);
        const QPoint center = view.mapFromScene(view.barItems()[2]->rect().center());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, center);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).value<NodeId>(), NodeId(12));
        QCOMPARE(view.selectedNode(), NodeId(12));
        QVERIFY(view.barItems()[2]->pen().widthF() > view.barItems()[0]->pen().widthF());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(2, view.viewport()->height() - 2));  // no bar there
        QCOMPARE(clicked.count(), 1);
        view.clear();
        QVERIFY(view.barItems().empty());
    }

    void memoryChartColumnsAndReferenceLines() {
        MemoryChart chart;
        chart.resize(456, 240);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setSteps(fourSteps(), 16384, 20480);
        QCOMPARE(chart.peakBytes(), uint64_t(12288));
        QVERIFY(chart.showsNaiveLine());  // 20 kB is within reach of a 16 kB arena
        QCOMPARE(chart.topBytes(), 20480 * 1.08);
        // Column heights are proportional to the live bytes; the tallest stays under the arena line.
        QCOMPARE(chart.columnRect(1).height(), 2 * chart.columnRect(0).height());
        QCOMPARE(chart.columnRect(2).top(), chart.yOf(12288));
        QVERIFY(chart.columnRect(2).top() > chart.yOf(16384));
        QCOMPARE(chart.columnRect(3).height(), 0.0);
        QCOMPARE(chart.columnRect(1).left(), chart.columnRect(0).right());
        chart.setSteps(fourSteps(), 16384, 1 << 20);  // a naive sum far above: named, not drawn
        QVERIFY(!chart.showsNaiveLine());
        QCOMPARE(chart.topBytes(), 16384 * 1.08);
    }

    void memoryChartHoverNamesTheStepAndClickAsksForItsNode() {
        MemoryChart chart;
        chart.resize(456, 240);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setSteps(fourSteps(), 16384, 20480);
        const QPoint second = chart.columnRect(1).center().toPoint();
        QCOMPARE(chart.stepAt(second.x()), 1);
        QCOMPARE(chart.stepAt(0), -1);
        QTest::mouseMove(&chart, second);
        QVERIFY(QTest::qWaitFor([&chart] { return chart.hoveredStep() == 1; }, 2000));
        const QString tip = chart.toolTipFor(1);
        QVERIFY2(tip.contains("step 2 of 4") && tip.contains("relu (Relu)") && tip.contains("8.19 kB") && tip.contains("16.4 kB"),
                 qPrintable(tip));
        QSignalSpy clicked(&chart, &MemoryChart::nodeClicked);
        QTest::mouseClick(&chart, Qt::LeftButton, {}, chart.columnRect(2).center().toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).value<NodeId>(), NodeId(12));
    }
};

QTEST_MAIN(TestProfileViews)
#include "tst_profile_views.moc"
