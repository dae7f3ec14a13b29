// The profile views on their own (offscreen): the timeline puts one bar per node in execution
// order on one row per track, scaled to the run, names the node on hover and selects it on a
// click; the memory chart's columns, arena and naive lines, hover and click; both marking the
// selected node; the speedup legend's ticks and ramp.
#include "profiler/heat_scale.h"
#include "viewer/memory_chart.h"
#include "viewer/scene_style.h"
#include "viewer/speedup_legend.h"
#include "viewer/timeline_view.h"

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QWheelEvent>
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

    void timelineOutlinesExactlyTheSelectedNodesBar() {
        TimelineView view;
        view.resize(664, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setBars(fourBars());
        const auto outlined = [&view] {
            std::vector<size_t> out;
            for (const TimelineBarItem* item : view.barItems())
                if (item->pen().widthF() > 1) out.push_back(item->index());
            return out;
        };
        QVERIFY(outlined().empty());
        view.selectNode(11);
        QCOMPARE(outlined(), std::vector<size_t>{1});
        QCOMPARE(view.barItems()[1]->zValue(), 1.0);
        view.selectNode(99);  // a node without a bar
        QVERIFY(outlined().empty());
        view.selectNode(kNoId);
        QVERIFY(outlined().empty());
    }

    void memoryChartMarksTheSelectedNodesColumn() {
        MemoryChart chart;
        chart.resize(456, 240);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setSteps(fourSteps(), 16384, 20480);
        const QColor selection = SceneStyle::fromPalette(chart.palette()).selection;
        // The last column holds 0 bytes: its outline spans the plot, so it shows anyway.
        const QRectF last = chart.columnRect(3);
        const QPoint edge(int(last.left() + 1), int(chart.yOf(8192)));
        QVERIFY(chart.grab().toImage().pixelColor(edge) != selection);
        chart.selectNode(13);
        QCOMPARE(chart.selectedStep(), 3);
        QCOMPARE(chart.grab().toImage().pixelColor(edge), selection);
        chart.selectNode(99);
        QCOMPARE(chart.selectedStep(), -1);
        QVERIFY(chart.grab().toImage().pixelColor(edge) != selection);
        // A click marks the column it asks for.
        QTest::mouseClick(&chart, Qt::LeftButton, {}, chart.columnRect(1).center().toPoint());
        QCOMPARE(chart.selectedNode(), NodeId(11));
        QCOMPARE(chart.selectedStep(), 1);
        chart.setSteps(fourSteps(), 16384, 20480);  // a new profile: nothing marked
        QCOMPARE(chart.selectedStep(), -1);
    }

    void speedupLegendTicksArePowersOfTwoAcrossTheRamp() {
        std::vector<double> values;
        QStringList labels;
        for (const SpeedupLegend::Tick& t : SpeedupLegend::ticks()) {
            values.push_back(t.speedup);
            labels << t.label;
        }
        QCOMPARE(values, (std::vector<double>{0.25, 0.5, 1, 2, 4}));
        QCOMPARE(labels, (QStringList{"0.25x", "0.5x", "1x", "2x", "4x"}));
        QCOMPARE(SpeedupLegend::position(0.25), 0.0);
        QCOMPARE(SpeedupLegend::position(0.5), 0.25);
        QCOMPARE(SpeedupLegend::position(1), 0.5);
        QCOMPARE(SpeedupLegend::position(4), 1.0);
        QCOMPARE(SpeedupLegend::position(100), 1.0);  // the colors saturate beyond the ends
        QCOMPARE(SpeedupLegend::position(0), 0.0);
        // The ends of the bar are where speedupColor() saturates.
        QCOMPARE(speedupColor(values.back()), speedupColor(values.back() * 2));
        QVERIFY(!(speedupColor(values.back() * 0.9) == speedupColor(values.back())));
        QCOMPARE(speedupColor(values.front()), speedupColor(values.front() / 2));
    }

    void speedupLegendPaintsTheSpeedupRamp() {
        SpeedupLegend legend;
        legend.resize(300, legend.sizeHint().height());
        legend.show();
        QVERIFY(QTest::qWaitForWindowExposed(&legend));
        const QRectF bar = legend.barRect();
        const QImage image = legend.grab().toImage();
        const int y = int(bar.center().y());
        const auto rgb = [](double speedup) {
            const Rgb c = speedupColor(speedup);
            return QColor(c.r, c.g, c.b);
        };
        for (const SpeedupLegend::Tick& t : SpeedupLegend::ticks()) {
            const qreal x = bar.left() + SpeedupLegend::position(t.speedup) * bar.width();
            QCOMPARE(legend.colorAt(x), rgb(t.speedup));
        }
        // Painted: red at the slow end, near white at 1x, green at the fast end.
        QCOMPARE(image.pixelColor(int(bar.left()) + 2, y), legend.colorAt(int(bar.left()) + 2.5));
        QVERIFY(image.pixelColor(int(bar.left()) + 2, y).red() > image.pixelColor(int(bar.left()) + 2, y).green());
        const int middle = int(bar.left() + bar.width() / 2);
        QCOMPARE(image.pixelColor(middle, y), legend.colorAt(middle + 0.5));
        QVERIFY(image.pixelColor(middle, y).red() > 230 && image.pixelColor(middle, y).green() > 230);
        QVERIFY(image.pixelColor(int(bar.right()) - 3, y).green() > image.pixelColor(int(bar.right()) - 3, y).red());
    }

    /// The time axis: ticks in ms from 0 across the run, each labelled; the names of the
    /// nodes on the bars wide enough for them.
    void timelineHasAMsAxisAndNamesOnWideBars() {
        TimelineView view;
        view.resize(664, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        std::vector<TimelineBar> bars = fourBars();
        bars.push_back({14, "tiny", "Relu", 0, 6.0, 0.01});  // a sliver: no room for its name
        view.setBars(bars, "run 1");
        const auto& ticks = view.axisTicks();
        QVERIFY(ticks.size() >= 3);
        QCOMPARE(ticks.front().ms, 0.0);
        QCOMPARE(ticks.front().label, QString("0 ms"));
        for (size_t i = 1; i < ticks.size(); ++i) {
            QVERIFY(ticks[i].ms > ticks[i - 1].ms);
            QVERIFY(ticks[i].x - ticks[i - 1].x >= 60);  // labels do not run into each other
            QVERIFY(ticks[i].label.endsWith(" ms"));
            QCOMPARE(ticks[i].label, QString::number(ticks[i].ms) + " ms");
        }
        QVERIFY(ticks.back().ms <= view.spanMs() + 1e-9);
        // A tick sits where its time's bars start: the bar starting at 2 ms begins at the 2 ms tick.
        const auto two = std::find_if(ticks.begin(), ticks.end(), [](const auto& t) { return t.ms == 2.0; });
        QVERIFY(two != ticks.end());
        QCOMPARE(view.barItems()[1]->rect().left(), two->x);
        QCOMPARE(view.barLabel(0), QString("stem"));
        QCOMPARE(view.barLabel(2), QString("side"));
        QCOMPARE(view.barLabel(4), QString());
        // The name is a child of its bar, inside it.
        const QGraphicsItem* label = view.barItems()[0]->childItems().value(0);
        QVERIFY(label);
        QVERIFY(view.barItems()[0]->rect().contains(label->mapToParent(label->boundingRect()).boundingRect()));
    }

    /// The wheel and +/- zoom about the pointer (the time under it stays put), 0 fits again;
    /// zooming in far enough names the sliver too.
    void timelineZoomsAboutThePointerAndPans() {
        TimelineView view;
        view.resize(664, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        std::vector<TimelineBar> bars = fourBars();
        bars.push_back({14, "tiny", "Relu", 0, 6.0, 0.01});
        view.setBars(bars);
        const int x = 400;
        const double before = view.msAt(x);
        QWheelEvent wheel(QPointF(x, 50), view.viewport()->mapToGlobal(QPointF(x, 50)), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &wheel);
        QCOMPARE(view.zoom(), 1.25);
        QVERIFY(std::abs(view.msAt(x) - before) < 0.02);
        QTest::keyClick(&view, Qt::Key_Plus);
        QCOMPARE(view.zoom(), 1.25 * 1.25);
        QTest::keyClick(&view, Qt::Key_Minus);
        QCOMPARE(view.zoom(), 1.25);
        QTest::keyClick(&view, Qt::Key_0);
        QCOMPARE(view.zoom(), 1.0);
        QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
        view.zoomAbout(200, x);  // the sliver is now ~100 px wide
        QCOMPARE(view.barLabel(4), QString("tiny"));
        const int scrolled = view.horizontalScrollBar()->value();
        QWheelEvent pan(QPointF(x, 50), view.viewport()->mapToGlobal(QPointF(x, 50)), QPoint(), QPoint(0, -120), Qt::NoButton,
                        Qt::ShiftModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view.viewport(), &pan);
        QCOMPARE(view.horizontalScrollBar()->value(), scrolled + 120);
        QCOMPARE(view.zoom(), 200.0);
    }

    /// The caption names the planned arena, the naive sum and the lower bound, wraps when the
    /// chart is narrow, and the plot starts below it.
    void memoryChartCaptionWrapsAboveThePlot() {
        MemoryChart chart;
        chart.resize(700, 240);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setSteps(fourSteps(), 16384, 1 << 20);
        const QString caption = chart.caption();
        for (const char* part : {"Planned arena 16.4 kB", "naive sum 1.05 MB (off the scale)", "lower bound 12.3 kB", "4 steps"})
            QVERIFY2(caption.contains(part), qPrintable(caption));
        const int line = chart.fontMetrics().height();
        for (int width : {700, 300}) {
            chart.resize(width, 240);
            const QRectF r = chart.captionRect();
            QVERIFY(r.left() >= 0 && r.right() <= width);
            const QRect needed = chart.fontMetrics().boundingRect(r.toRect(), Qt::TextWordWrap, caption);
            QVERIFY(needed.height() <= r.height());
            QVERIFY(needed.width() <= r.width());
            QVERIFY(chart.yOf(chart.topBytes()) > r.bottom());
            if (width == 300) QVERIFY(r.height() >= 2 * line);  // wrapped, not cut
        }
    }
};

QTEST_MAIN(TestProfileViews)
#include "tst_profile_views.moc"
