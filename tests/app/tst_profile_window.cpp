// The main window's Profile dock (offscreen): profiling the after side of the sample in the
// background, the heatmap overlays (time, output bytes, FLOPs, GFLOP/s; linear and log) painted
// as node fills with a legend spanning the values, the hotspot table focusing its node, the
// timeline (one bar per executed node, a click selects it) and the memory chart, the before/after
// comparison with its speedup overlay and summary, and a profile of a step no longer shown being
// dropped.
#include "app/cli/profile_report.h"
#include "app/compare_panel.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "viewer/memory_chart.h"
#include "viewer/timeline_view.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_widget.h"
#include "viewer/node_item.h"

#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <numeric>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

bool waitForLayout(const MainWindow& w) {
    return QTest::qWaitFor([&w] { return !w.layoutPending(); }, 20000);
}

/// Opens the sample, profiles its original graph with few runs and waits for the result.
bool openAndProfile(MainWindow& w) {
    if (!w.openModel(kSample) || !waitForLayout(w)) return false;
    w.profilePanel()->setProfileOptions({1, 3});
    QSignalSpy ready(w.profilePanel(), &ProfilePanel::profileReady);
    w.profilePanel()->profileButton()->click();
    return ready.wait(120000) && ready.count() == 1;
}

/// Operator boxes of `scene` (terminals and groups left out), and how many of them have a fill.
struct OperatorBoxes {
    int all = 0;
    int filled = 0;
};

OperatorBoxes operatorBoxes(const GraphScene* scene) {
    OperatorBoxes boxes;
    for (const NodeItem* item : scene->nodeItems()) {
        const VisualKey key = item->visualNode().key;
        if (key.kind != VisualKey::Kind::Node) continue;
        ++boxes.all;
        if (scene->nodeFill(key.id)) ++boxes.filled;
    }
    return boxes;
}

QColor topOfScale() {
    const Rgb c = heatColor(1);
    return QColor(c.r, c.g, c.b);
}

std::pair<double, double> span(const std::unordered_map<NodeId, double>& values) {
    auto [lo, hi] = std::minmax_element(values.begin(), values.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    return {lo->second, hi->second};
}

} // namespace

class TestProfileWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_profile_window");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }

    void profilesInTheBackgroundWithABusyIndicator() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        ProfilePanel* panel = w.profilePanel();
        QCOMPARE(panel->profile(), nullptr);
        panel->setProfileOptions({1, 3});
        QSignalSpy ready(panel, &ProfilePanel::profileReady);
        panel->profileButton()->click();
        QVERIFY(panel->running());  // the click returned while the profile runs
        QVERIFY(!panel->profileButton()->isEnabled());
        QVERIFY(!panel->findChild<QProgressBar*>()->isHidden());
        QVERIFY(ready.wait(120000));
        QVERIFY(!panel->running());
        QVERIFY(panel->profileButton()->isEnabled());
        QVERIFY(panel->findChild<QProgressBar*>()->isHidden());
        QCOMPARE(panel->profile()->nodes.size(), size_t(23));  // every node of the original sample
        QCOMPARE(panel->profile()->runs, 3);
        QCOMPARE(panel->hotspotTable()->rowCount(), 23);
    }

    void timeHeatmapFillsEveryOperatorWithTheHottestOnTop() {
        MainWindow w;
        QVERIFY(openAndProfile(w));
        ProfilePanel* panel = w.profilePanel();
        QCOMPARE(panel->overlay(), HeatOverlay::Time);  // chosen when the first profile is in
        QCOMPARE(int(panel->overlayValues().size()), 23);
        // 20 boxes (3 constants are drawn as parameters of their readers), each filled.
        QCOMPARE(operatorBoxes(w.afterScene()).all, 20);
        QCOMPARE(operatorBoxes(w.afterScene()).filled, 20);
        QCOMPARE(w.beforeScene()->nodeFill(panel->profile()->nodes.front().node), std::nullopt);
        const NodeProfile& hottest = *std::max_element(panel->profile()->nodes.begin(), panel->profile()->nodes.end(),
                                                       [](const auto& a, const auto& b) { return a.ms.median < b.ms.median; });
        QCOMPARE(w.afterScene()->nodeFill(hottest.node), std::optional<QColor>(topOfScale()));
        const auto [low, high] = span(panel->overlayValues());
        QCOMPARE(high, hottest.ms.median / 1000);
        QCOMPARE(panel->legend()->scale()->kind(), HeatScaleKind::Log);
        QCOMPARE(panel->legend()->scale()->low(), low);
        QCOMPARE(panel->legend()->scale()->high(), high);
    }

    void overlaysSwitchFiguresScalesAndClear() {
        MainWindow w;
        QVERIFY(openAndProfile(w));
        ProfilePanel* panel = w.profilePanel();
        const std::vector<NodeProfile>& nodes = panel->profile()->nodes;
        // Every node of the sample writes a static shape and has a FLOP count (0 for Reshape,
        // Constant, ...), so each overlay has 23 values and fills the 20 operator boxes.
        QCOMPARE(std::count_if(nodes.begin(), nodes.end(), [](const NodeProfile& p) { return p.flops.has_value(); }), 23);
        for (HeatOverlay overlay : {HeatOverlay::Memory, HeatOverlay::Flops, HeatOverlay::Gflops}) {
            panel->setOverlay(overlay);
            const auto values = panel->overlayValues();
            QCOMPARE(int(values.size()), 23);
            QCOMPARE(operatorBoxes(w.afterScene()).filled, 20);
            const auto [low, high] = span(values);
            const auto hottest = std::find_if(values.begin(), values.end(), [high](const auto& v) { return v.second == high; });
            double lowestPositive = high;
            for (const auto& [node, value] : values)
                if (value > 0) lowestPositive = std::min(lowestPositive, value);
            for (HeatScaleKind kind : {HeatScaleKind::Linear, HeatScaleKind::Log}) {
                panel->setScaleKind(kind);
                QCOMPARE(panel->legend()->scale()->kind(), kind);
                QCOMPARE(panel->legend()->scale()->high(), high);
                // A log scale cannot start at 0 FLOPs: it starts at the smallest positive value.
                QCOMPARE(panel->legend()->scale()->low(), kind == HeatScaleKind::Log ? lowestPositive : low);
                QCOMPARE(w.afterScene()->nodeFill(hottest->first), std::optional<QColor>(topOfScale()));
            }
        }
        panel->setOverlay(HeatOverlay::Memory);
        const auto bytes = panel->overlayValues();
        const NodeProfile& conv = *std::find_if(nodes.begin(), nodes.end(), [](const NodeProfile& p) { return p.op == "Conv"; });
        QCOMPARE(bytes.at(conv.node), double(conv.outputBytes));
        panel->setScaleKind(HeatScaleKind::Linear);
        QCOMPARE(panel->legend()->scale()->kind(), HeatScaleKind::Linear);
        QCOMPARE(panel->legend()->scale()->low(), span(bytes).first);
        QCOMPARE(panel->legend()->scale()->high(), span(bytes).second);
        panel->setOverlay(HeatOverlay::None);
        QCOMPARE(operatorBoxes(w.afterScene()).filled, 0);
        QVERIFY(panel->nodeFills().empty());
        QVERIFY(!panel->legend()->scale());
    }

    void clickingAHotspotSelectsItsNode() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndProfile(w));
        QTableWidget* table = w.profilePanel()->hotspotTable();
        QCOMPARE(table->rowCount(), 23);
        const NodeId first = table->item(0, kNodeColumn)->data(Qt::UserRole).value<NodeId>();
        const Graph& graph = w.stepper().current().graph;
        QCOMPARE(table->item(0, kNodeColumn)->text(), QString::fromStdString(graph.node(first).name));
        for (int row = 1; row < table->rowCount(); ++row)  // hottest first
            QVERIFY(table->item(row, kMedianColumn)->data(Qt::DisplayRole).toDouble() <=
                    table->item(0, kMedianColumn)->data(Qt::DisplayRole).toDouble());
        table->scrollToTop();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(table->item(0, kNodeColumn)).center());
        QVERIFY(QTest::qWaitFor([&w, first] { return w.afterScene()->selectedNode() == first; }, 20000));
        QCOMPARE(w.afterScene()->selectedNode(), first);
    }

    void timelineHasOneBarPerExecutedNodeAndAClickSelectsIt() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndProfile(w));
        ProfilePanel* panel = w.profilePanel();
        panel->tabs()->setCurrentWidget(panel->timeline());
        TimelineView* timeline = panel->timeline();
        const std::vector<NodeProfile>& nodes = panel->profile()->nodes;
        QCOMPARE(timeline->bars().size(), nodes.size());  // 23
        for (size_t i = 0; i < nodes.size(); ++i) {  // execution order, one thread
            QCOMPARE(timeline->bars()[i].node, nodes[i].node);
            QCOMPARE(timeline->bars()[i].track, 0);
            if (i) QVERIFY(timeline->bars()[i].startMs >= timeline->bars()[i - 1].startMs);
            QCOMPARE(timeline->barItems()[i]->toolTip().section('\n', 0, 0), QString::fromStdString(nodes[i].name));
        }
        QCOMPARE(timeline->bars().front().startMs, 0.0);
        // The longest Conv bar of the shown run (a Conv is drawn as a box on the canvas).
        const auto longest = std::max_element(timeline->bars().begin(), timeline->bars().end(), [](const auto& a, const auto& b) {
            return std::pair(a.op == "Conv", a.durationMs) < std::pair(b.op == "Conv", b.durationMs);
        });
        const size_t index = size_t(longest - timeline->bars().begin());
        QCOMPARE(longest->op, std::string("Conv"));
        QVERIFY(timeline->barItems()[index]->toolTip().contains(QString::fromStdString(longest->op)));
        timeline->ensureVisible(timeline->barItems()[index]);
        const QPoint center = timeline->mapFromScene(timeline->barItems()[index]->rect().center());
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, center);
        QCOMPARE(timeline->selectedNode(), longest->node);
        QVERIFY(QTest::qWaitFor([&w, &longest] { return w.afterScene()->selectedNode() == longest->node; }, 20000));
    }

    void memoryChartPeaksAtTheLowerBoundUnderTheArena() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndProfile(w));
        ProfilePanel* panel = w.profilePanel();
        panel->tabs()->setCurrentWidget(panel->memoryChart());
        MemoryChart* chart = panel->memoryChart();
        const ProfileResult& profile = *panel->profile();
        QCOMPARE(chart->steps().size(), size_t(23));
        QCOMPARE(chart->arenaBytes(), profile.memory.arenaBytes);
        QCOMPARE(chart->naiveBytes(), profile.memory.naiveBytes);
        QCOMPARE(chart->peakBytes(), profile.memory.lowerBoundBytes);
        QVERIFY(chart->peakBytes() > 0 && chart->peakBytes() <= chart->arenaBytes());
        for (int i = 0; i < int(chart->steps().size()); ++i) QVERIFY(chart->columnRect(i).top() >= chart->yOf(double(chart->arenaBytes())));
        QVERIFY(chart->width() > 100);
        QTest::mouseMove(chart, chart->columnRect(0).center().toPoint());
        QVERIFY(QTest::qWaitFor([chart] { return chart->hoveredStep() == 0; }, 2000));
        QVERIFY(chart->toolTipFor(0).contains(QString::fromStdString(profile.nodes[0].name)));
    }

    void beforeAfterComparisonShowsSpeedupOnTheBeforeSide() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        ComparePanel* compare = w.profilePanel()->comparePanel();
        w.profilePanel()->setProfileOptions({1, 3});
        QSignalSpy ready(compare, &ComparePanel::comparisonReady);
        compare->compareButton()->click();
        QVERIFY(compare->running());
        QVERIFY(ready.wait(240000));
        const ProfileComparison& c = *compare->comparison();
        const Graph& before = w.stepper().previous().graph;
        const Graph& after = w.stepper().current().graph;
        // Every profiled node of each side is in one group that holds its whole provenance.
        for (const auto& [groupOf, graph] : {std::pair{&c.groupOfBefore, &before}, std::pair{&c.groupOfAfter, &after}})
            for (const auto& [node, group] : *groupOf)
                for (NodeId origin : graph->node(node).provenance) {
                    const auto& origins = c.groups[group].origins;
                    QVERIFY(std::find(origins.begin(), origins.end(), origin) != origins.end());
                }
        const double folded = std::accumulate(c.origins.begin(), c.origins.end(), 0.0,
                                              [](double s, const OriginCost& o) { return s + o.afterMs; });
        QCOMPARE(folded, c.afterNodeSumMs);
        QCOMPARE(compare->summaryLabel()->text(), QString::fromStdString(cli::comparisonSummary(c)).trimmed());
        QVERIFY(compare->summaryLabel()->text().startsWith(QString("total speedup %1x").arg(c.speedup(), 0, 'f', 2)));
        QCOMPARE(compare->table()->rowCount(), int(c.groups.size()));
        // The before side is colored by its groups' speedups; the after side keeps its own overlay.
        QCOMPARE(compare->beforeFills().size(), c.groupOfBefore.size());
        for (const auto& [node, group] : c.groupOfBefore) {
            const Rgb color = speedupColor(c.groups[group].speedup());
            QCOMPARE(w.beforeScene()->nodeFill(node), std::optional<QColor>(QColor(color.r, color.g, color.b)));
        }
        compare->setSpeedupOverlay(false);
        QVERIFY(compare->beforeFills().empty());
        QCOMPARE(w.beforeScene()->nodeFill(c.groupOfBefore.begin()->first), std::nullopt);
        compare->setSpeedupOverlay(true);
        w.stepBack();  // new sides: the comparison and its colors go
        QCOMPARE(compare->comparison(), nullptr);
        QVERIFY(compare->beforeFills().empty());
        QCOMPARE(compare->table()->rowCount(), 0);
    }

    void aProfileOfAStepNoLongerShownIsDropped() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        ProfilePanel* panel = w.profilePanel();
        panel->setProfileOptions({1, 3});
        QSignalSpy ready(panel, &ProfilePanel::profileReady);
        w.profileCurrentStep();  // of the original, 23 nodes
        w.applyNextPass();       // eliminate-noops: 19 nodes
        QVERIFY(!panel->running());
        QCOMPARE(panel->profile(), nullptr);
        w.profileCurrentStep();
        QVERIFY(ready.wait(120000));
        QTest::qWait(50);
        QCOMPARE(ready.count(), 1);  // the first profile came back first and was dropped
        QCOMPARE(panel->profile()->nodes.size(), size_t(19));
        for (const NodeProfile& p : panel->profile()->nodes) QVERIFY(w.stepper().current().graph.hasNode(p.node));
        QCOMPARE(int(panel->nodeFills().size()), 19);
        w.applyNextPass();  // a new step: the profile and its heatmap go
        QCOMPARE(panel->profile(), nullptr);
        QVERIFY(panel->nodeFills().empty());
        QCOMPARE(panel->hotspotTable()->rowCount(), 0);
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestProfileWindow)
#include "tst_profile_window.moc"
