// The main window's Profile dock (offscreen): profiling the after side of the sample in the
// background, the heatmap overlays (time, output bytes, FLOPs, GFLOP/s; linear and log) painted
// as node fills with a legend spanning the values, the hotspot table focusing its node, the
// timeline (one bar per executed node, a click selects it) and the memory chart, both marking
// the node selected on the canvas, the before/after comparison (the original or the previous
// step against the current one) with its speedup overlay, the colors' caption and summary, and a
// profile of a step no longer shown being dropped.
#include "app/cli/profile_report.h"
#include "app/compare_panel.h"
#include "app/main_window.h"
#include "app/panel_orientation.h"
#include "app/profile_panel.h"
#include "core/onnx/loader.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "viewer/memory_chart.h"
#include "viewer/timeline_view.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_widget.h"
#include "viewer/node_item.h"
#include "viewer/speedup_legend.h"

#include <QComboBox>
#include <QHeaderView>
#include <QScrollBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QLabel>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

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

/// Applies the next pass and waits until its step is shown.
bool applyNext(MainWindow& w) {
    QSignalSpy applied(&w, &MainWindow::passesApplied);
    w.applyNextPass();
    return applied.wait(60000) && waitForLayout(w);
}

/// Applies passes until the current step added nodes (a fusion or a fold), at step 2 or later.
bool stepToAFusionAfterTheFirstStep(MainWindow& w) {
    const auto addedNodes = [&w] {
        const PassResult* r = w.stepper().currentResult();
        return r && std::any_of(r->rewrites.begin(), r->rewrites.end(), [](const Rewrite& x) { return !x.added.empty(); });
    };
    while (w.stepper().step() < 2 || !addedNodes())
        if (w.stepper().pendingPasses().empty() || !applyNext(w)) return false;
    return true;
}

/// Runs the Before/After comparison with few runs and waits for it.
bool compareNow(MainWindow& w) {
    ComparePanel* compare = w.profilePanel()->comparePanel();
    w.profilePanel()->setProfileOptions({1, 3});
    QSignalSpy ready(compare, &ComparePanel::comparisonReady);
    compare->compareButton()->click();
    return ready.wait(240000) && compare->comparison();
}

/// How many timeline bars are drawn outlined as selected.
int outlinedBars(const TimelineView* timeline) {
    return int(std::count_if(timeline->barItems().begin(), timeline->barItems().end(),
                             [](const TimelineBarItem* item) { return item->pen().widthF() > 1; }));
}

std::pair<double, double> span(const std::unordered_map<NodeId, double>& values) {
    auto [lo, hi] = std::minmax_element(values.begin(), values.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    return {lo->second, hi->second};
}

/// The smallest positive and the largest value: what a log scale spans (nodes fused into a
/// convolution's kernel take no time of their own).
std::pair<double, double> positiveSpan(const std::unordered_map<NodeId, double>& values) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& [node, v] : values) {
        if (v > 0) lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return {lo, hi};
}

/// The sample after the default passes: FusedConv nodes of the com.microsoft domain among them.
std::shared_ptr<const Model> optimizedSample() {
    Model m = loadModel(kSample.toStdString());
    PassContext context = contextFor(m);
    for (const auto& pass : makePipeline("default")) runPass(*pass, m, context);
    return std::make_shared<const Model>(std::move(m));
}

/// Whether column `column` of `table` lies wholly within its viewport.
bool columnInView(const QTableWidget& table, int column) {
    const QHeaderView* header = table.horizontalHeader();
    const int left = header->sectionViewportPosition(column);
    return left >= 0 && left + header->sectionSize(column) <= table.viewport()->width();
}

/// Whether `w` lies wholly inside `outer` (an ancestor) and is tall enough for its contents.
bool wholeInside(const QWidget* w, const QWidget* outer) {
    const QRect r(w->mapTo(outer, QPoint(0, 0)), w->size());
    const int wanted = w->hasHeightForWidth() ? w->heightForWidth(w->width()) : w->minimumSizeHint().height();
    return outer->rect().contains(r) && w->height() >= wanted && w->isVisible();
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
        // The CPU plan runs 12 of the sample's 23 nodes inside other nodes' kernels (4 BatchNorm,
        // 4 Relu and an Add in their convolutions', 3 Constants in their readers'): they have no
        // time of their own, so no value on the scale, and are filled grey, which the summary says.
        std::vector<NodeId> fused;
        for (const NodeProfile& p : panel->profile()->nodes)
            if (fusedAway(p)) fused.push_back(p.node);
        QCOMPARE(int(fused.size()), 12);
        QCOMPARE(int(panel->overlayValues().size()), 23 - 12);
        for (NodeId node : fused) {
            QVERIFY(!panel->overlayValues().count(node));
            QCOMPARE(w.afterScene()->nodeFill(node), std::optional<QColor>(QColor(kFusedNodeColor.r, kFusedNodeColor.g, kFusedNodeColor.b)));
        }
        QVERIFY2(panel->summaryLabel()->text().endsWith(" · 12 ran inside other nodes' kernels (grey on the heatmap)"),
                 qPrintable(panel->summaryLabel()->text()));
        // 20 boxes (3 constants are drawn as parameters of their readers), each filled.
        QCOMPARE(operatorBoxes(w.afterScene()).all, 20);
        QCOMPARE(operatorBoxes(w.afterScene()).filled, 20);
        QCOMPARE(w.beforeScene()->nodeFill(panel->profile()->nodes.front().node), std::nullopt);
        const NodeProfile& hottest = *std::max_element(panel->profile()->nodes.begin(), panel->profile()->nodes.end(),
                                                       [](const auto& a, const auto& b) { return a.ms.median < b.ms.median; });
        QCOMPARE(w.afterScene()->nodeFill(hottest.node), std::optional<QColor>(topOfScale()));
        const auto [low, high] = positiveSpan(panel->overlayValues());
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
        // Constant, ...), so each overlay has 23 values and fills the 20 operator boxes; GFLOP/s,
        // a figure of the node's own run, leaves out the 12 nodes run inside other kernels (grey).
        QCOMPARE(std::count_if(nodes.begin(), nodes.end(), [](const NodeProfile& p) { return p.flops.has_value(); }), 23);
        for (HeatOverlay overlay : {HeatOverlay::Memory, HeatOverlay::Flops, HeatOverlay::Gflops}) {
            panel->setOverlay(overlay);
            const auto values = panel->overlayValues();
            QCOMPARE(int(values.size()), overlay == HeatOverlay::Gflops ? 23 - 12 : 23);
            QCOMPARE(operatorBoxes(w.afterScene()).filled, 20);
            const auto range = span(values);  // not a structured binding: Clang 14 cannot capture one
            const double low = range.first, high = range.second;
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
        w.setCompareWith(CompareWith::PreviousStep);  // the before side shows the step before
        QVERIFY(waitForLayout(w));
        ComparePanel* compare = w.profilePanel()->comparePanel();
        QCOMPARE(compare->baseline(), CompareBaseline::Original);  // the default
        compare->setBaseline(CompareBaseline::PreviousStep);
        QCOMPARE(compare->baselineBox()->currentText(), QString("Previous step vs current step"));
        w.profilePanel()->setProfileOptions({1, 3});
        QSignalSpy ready(compare, &ComparePanel::comparisonReady);
        compare->compareButton()->click();
        QVERIFY(compare->running());
        QVERIFY(ready.wait(240000));
        const ProfileComparison& c = *compare->comparison();
        QCOMPARE(compare->colorsLabel()->text(),
                 QString("The colors on the before side are for step %1.").arg(w.stepper().step() - 1));
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
        // The CLI's summary, one figure a line.
        QCOMPARE(compare->summaryLabel()->text(), QString::fromStdString(cli::comparisonSummary(c)).trimmed().replace("; ", "\n"));
        QCOMPARE(compare->summaryLabel()->text().count('\n'), 2);
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

    /// "Per original node": one row per original node with its folded times, the group's
    /// speedup on the group's first row only, and a row focusing its own node where the before
    /// side has it.
    void perNodeRowsListEveryOriginalNode() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        while (!w.stepper().currentResult() || w.stepper().currentResult()->passId != "fold-batchnorm") {
            QVERIFY(!w.stepper().pendingPasses().empty());
            w.applyNextPass();
            QVERIFY(waitForLayout(w));
        }
        ComparePanel* compare = w.profilePanel()->comparePanel();
        QCOMPARE(compare->baseline(), CompareBaseline::Original);  // what the before side shows
        QCOMPARE(w.leftStep(), size_t(0));
        QVERIFY(compareNow(w));
        const ProfileComparison& c = *compare->comparison();
        QCOMPARE(compare->table()->rowCount(), int(c.groups.size()));
        compare->setPerNodeRows(true);
        QCOMPARE(compare->table()->rowCount(), int(c.origins.size()));
        QVERIFY(c.origins.size() > c.groups.size());  // each Conv and its BatchNorm are one group
        double afterSum = 0;
        for (int row = 0; row < int(c.origins.size()); ++row) {
            const OriginCost& o = c.origins[size_t(row)];
            QCOMPARE(compare->groupOfRow(row), o.group);
            QCOMPARE(compare->table()->item(row, kOriginalColumn)->text(), QString::fromStdString(o.name + " (" + o.op + ")"));
            QCOMPARE(compare->table()->item(row, kBeforeMsColumn)->data(Qt::DisplayRole).toDouble(),
                     QString::number(o.beforeMs, 'f', 4).toDouble());
            afterSum += compare->table()->item(row, kAfterMsColumn)->data(Qt::DisplayRole).toDouble();
            const bool first = row == 0 || c.origins[size_t(row) - 1].group != o.group;
            QCOMPARE(compare->table()->item(row, kSpeedupColumn)->text(),
                     first ? QString::fromStdString(speedupText(c.groups[o.group].speedup())) : QString());
        }
        QVERIFY(std::abs(afterSum - c.afterNodeSumMs) < 1e-4 * double(c.origins.size()) + 1e-9);
        // A row whose node the before side shows focuses that node, not the group's first.
        const auto row = std::find_if(c.origins.begin(), c.origins.end(), [&c](const OriginCost& o) {
            const auto& before = c.groups[o.group].beforeNodes;
            return before.size() > 1 && before.back() == o.origin;
        });
        QVERIFY(row != c.origins.end());
        QSignalSpy focus(compare, &ComparePanel::nodeActivated);
        emit compare->table()->cellClicked(int(row - c.origins.begin()), kOriginalColumn);
        QCOMPARE(focus.count(), 1);
        QCOMPARE(focus.at(0).at(0).value<NodeId>(), row->origin);
        compare->setPerNodeRows(false);
        QCOMPARE(compare->table()->rowCount(), int(c.groups.size()));
    }

    void selectingANodeMarksItsTimelineBarAndMemoryColumn() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndProfile(w));
        ProfilePanel* panel = w.profilePanel();
        TimelineView* timeline = panel->timeline();
        MemoryChart* chart = panel->memoryChart();
        QCOMPARE(outlinedBars(timeline), 0);
        QCOMPARE(chart->selectedStep(), -1);
        // The last Conv drawn as a box: selecting it on the after side marks exactly its bar and column.
        const std::vector<MemoryStep>& steps = chart->steps();
        const auto conv = std::find_if(steps.rbegin(), steps.rend(), [](const MemoryStep& s) { return s.op == "Conv"; });
        QVERIFY(conv != steps.rend());
        w.afterPane()->focusNode(conv->node);
        QVERIFY(QTest::qWaitFor([&w, conv] { return w.afterScene()->selectedNode() == conv->node; }, 20000));
        QCOMPARE(panel->selectedNode(), conv->node);
        QCOMPARE(timeline->selectedNode(), conv->node);
        QCOMPARE(outlinedBars(timeline), 1);
        const auto bar = std::find_if(timeline->bars().begin(), timeline->bars().end(),
                                      [conv](const TimelineBar& b) { return b.node == conv->node; });
        QVERIFY(timeline->barItems()[size_t(bar - timeline->bars().begin())]->pen().widthF() > 1);
        QCOMPARE(chart->selectedStep(), int(steps.rend() - conv) - 1);
        // The other way: a click on the first memory column of an operator drawn as a box (the
        // plan may run Constant nodes, drawn as parameters, first) selects its node on the
        // canvas, and the timeline follows.
        panel->tabs()->setCurrentWidget(chart);
        const int first = int(std::find_if(steps.begin(), steps.end(), [](const MemoryStep& s) { return s.op != "Constant"; }) -
                              steps.begin());
        QTest::mouseClick(chart, Qt::LeftButton, {}, chart->columnRect(first).center().toPoint());
        QCOMPARE(chart->selectedStep(), first);
        QVERIFY(QTest::qWaitFor([&w, &steps, first] { return w.afterScene()->selectedNode() == steps[size_t(first)].node; }, 20000));
        QCOMPARE(timeline->selectedNode(), steps[size_t(first)].node);
        QCOMPARE(outlinedBars(timeline), 1);
        // Nothing selected: nothing marked. A selection on the before side leaves the marks alone.
        w.afterScene()->selectNode(kNoId);
        QCOMPARE(timeline->selectedNode(), kNoId);
        QCOMPARE(outlinedBars(timeline), 0);
        QCOMPARE(chart->selectedStep(), -1);
        w.beforeScene()->selectNode(conv->node);
        QCOMPARE(w.beforeScene()->selectedNode(), conv->node);
        QCOMPARE(outlinedBars(timeline), 0);
    }

    void comparingTheOriginalAfterTwoStepsGroupsTheRewritesOfBoth() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        QVERIFY(stepToAFusionAfterTheFirstStep(w));
        const size_t step = w.stepper().step();
        QVERIFY(step >= 2);
        w.setCompareWith(CompareWith::PreviousStep);  // the before side shows the step before
        QVERIFY(waitForLayout(w));
        ComparePanel* compare = w.profilePanel()->comparePanel();
        QCOMPARE(compare->baseline(), CompareBaseline::Original);
        QVERIFY(compareNow(w));
        const ProfileComparison& c = *compare->comparison();
        const Graph& original = w.stepper().original().graph;
        const Graph& current = w.stepper().current().graph;
        // The before side of the comparison is the graph as loaded, every node of it profiled.
        QCOMPARE(c.groupOfBefore.size(), size_t(23));
        for (const auto& [node, group] : c.groupOfBefore) QVERIFY(original.hasNode(node));
        QCOMPARE(c.groupOfAfter.size(), current.nodeCount());
        // Step 1's removed nodes are there (the step before the current one has none of them) ...
        const std::vector<const PassResult*> applied = w.stepper().appliedResults();
        int removedByFirst = 0;
        for (const Rewrite& r : applied.front()->rewrites)
            for (const NodeRef& n : r.removed) {
                QVERIFY(original.hasNode(n.id));
                QVERIFY(!w.stepper().previous().graph.hasNode(n.id));
                QVERIFY(c.groupOfBefore.count(n.id));
                ++removedByFirst;
            }
        QVERIFY(removedByFirst > 0);
        // ... and the current step's new nodes are in one group with every original node they
        // came from, through all the steps.
        int addedByLast = 0;
        for (const Rewrite& r : applied.back()->rewrites)
            for (const NodeRef& n : r.added) {
                if (!c.groupOfAfter.count(n.id)) continue;  // drawn as a parameter, not profiled
                const CostGroup& g = c.groups[c.groupOfAfter.at(n.id)];
                for (NodeId origin : current.node(n.id).provenance) {
                    QVERIFY(original.hasNode(origin));
                    QVERIFY(std::find(g.origins.begin(), g.origins.end(), origin) != g.origins.end());
                }
                ++addedByLast;
            }
        QVERIFY(addedByLast > 0);
        // The before side shows the step before the current one, not the original: no colors
        // there, and the panel says so.
        QVERIFY(compare->beforeFills().empty());
        for (const auto& [node, group] : c.groupOfBefore) QCOMPARE(w.beforeScene()->nodeFill(node), std::nullopt);
        QVERIFY2(compare->colorsLabel()->text().startsWith("The colors are for the original graph, which the before side does not show"),
                 qPrintable(compare->colorsLabel()->text()));
        // A row focuses the group's node on the after side then.
        const auto row = size_t(std::find_if(c.groups.begin(), c.groups.end(), [](const CostGroup& g) { return !g.afterNodes.empty(); }) -
                                c.groups.begin());
        QSignalSpy afterFocus(compare, &ComparePanel::afterNodeActivated);
        QSignalSpy beforeFocus(compare, &ComparePanel::nodeActivated);
        emit compare->table()->cellClicked(int(row), kOriginalColumn);
        QCOMPARE(afterFocus.count(), 1);
        QCOMPARE(afterFocus.at(0).at(0).value<NodeId>(), c.groups[row].afterNodes.front());
        QCOMPARE(beforeFocus.count(), 0);

        // Compared with the original, the before side shows it: its nodes take the colors.
        w.setCompareWith(CompareWith::Original);
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.leftStep(), size_t(0));
        QVERIFY(compareNow(w));
        QCOMPARE(compare->beforeFills().size(), compare->comparison()->groupOfBefore.size());
        QCOMPARE(compare->colorsLabel()->text(), QString("The colors on the before side are for the original graph."));
        w.setCompareWith(CompareWith::PreviousStep);
        QVERIFY(waitForLayout(w));

        // Back at step 1 the before side is the original: its nodes take the colors.
        while (w.stepper().step() > 1) {
            w.stepBack();
            QVERIFY(waitForLayout(w));
        }
        QCOMPARE(compare->comparison(), nullptr);
        QVERIFY(compareNow(w));
        const ProfileComparison& first = *compare->comparison();
        QCOMPARE(first.groupOfBefore.size(), size_t(23));
        QCOMPARE(compare->beforeFills().size(), first.groupOfBefore.size());
        for (const auto& [node, group] : first.groupOfBefore) {
            const Rgb color = speedupColor(first.groups[group].speedup());
            QCOMPARE(w.beforeScene()->nodeFill(node), std::optional<QColor>(QColor(color.r, color.g, color.b)));
        }
        QCOMPARE(operatorBoxes(w.beforeScene()).filled, 20);  // every box of the original
        QCOMPARE(compare->colorsLabel()->text(), QString("The colors on the before side are for the original graph."));
        compare->setBaseline(CompareBaseline::PreviousStep);  // another comparison: the shown one goes
        QCOMPARE(compare->comparison(), nullptr);
        QVERIFY(compare->beforeFills().empty());
    }

    void compareSidesFollowTheBaselineAndWhatTheBeforeSideShows() {
        MainWindow w;
        QVERIFY(w.openModel(kSample));
        QVERIFY(waitForLayout(w));
        const auto nodes = [](const std::shared_ptr<const Model>& m) { return m->graph.nodeCount(); };
        const size_t originalNodes = w.stepper().original().graph.nodeCount();
        CompareSides atStart = compareSides(w.stepper(), CompareBaseline::PreviousStep, w.leftStep());
        QCOMPARE(atStart.beforeName, QString("the original graph"));
        QVERIFY(atStart.beforeShown);
        QVERIFY(applyNext(w));  // eliminate-noops: 19 nodes
        QVERIFY(applyNext(w));
        QCOMPARE(w.stepper().step(), size_t(2));
        const CompareSides fromOriginal = compareSides(w.stepper(), CompareBaseline::Original, w.leftStep());
        QCOMPARE(nodes(fromOriginal.original), originalNodes);
        QCOMPARE(nodes(fromOriginal.before), originalNodes);
        QCOMPARE(nodes(fromOriginal.after), w.stepper().current().graph.nodeCount());
        QCOMPARE(fromOriginal.beforeName, QString("the original graph"));
        QVERIFY(fromOriginal.beforeShown);  // the before side shows the original by default
        const CompareSides fromPrevious = compareSides(w.stepper(), CompareBaseline::PreviousStep, w.leftStep());
        QCOMPARE(nodes(fromPrevious.before), w.stepper().previous().graph.nodeCount());
        QCOMPARE(nodes(fromPrevious.before), size_t(19));
        QCOMPARE(fromPrevious.beforeName, QString("step 1"));
        QVERIFY(!fromPrevious.beforeShown);
        // Compared with the previous step, the before side shows step 1.
        w.setCompareWith(CompareWith::PreviousStep);
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.leftStep(), size_t(1));
        QVERIFY(!compareSides(w.stepper(), CompareBaseline::Original, w.leftStep()).beforeShown);
        QVERIFY(compareSides(w.stepper(), CompareBaseline::PreviousStep, w.leftStep()).beforeShown);
        w.stepBack();
        QVERIFY(waitForLayout(w));
        QVERIFY(compareSides(w.stepper(), CompareBaseline::Original, w.leftStep()).beforeShown);
        QCOMPARE(compareSides(w.stepper(), CompareBaseline::PreviousStep, w.leftStep()).beforeName, QString("the original graph"));
    }

    void theSpeedupLegendSitsInTheBeforeAfterTab() {
        MainWindow w;
        ComparePanel* compare = w.profilePanel()->comparePanel();
        QVERIFY(compare->legend());
        QVERIFY(compare->isAncestorOf(compare->legend()));
        QVERIFY(!compare->legend()->isHidden());
        compare->setSpeedupOverlay(false);  // no overlay, no legend
        QVERIFY(compare->legend()->isHidden());
        compare->setSpeedupOverlay(true);
        QVERIFY(!compare->legend()->isHidden());
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


    /// Hotspots, at the sizes the dock takes: a strip below the graphs (1100x300) and a side
    /// column (420 px): the op without its domain (the domain in the tooltip), and the Median
    /// and Share columns within the viewport, no sideways scrolling.
    void hotspotsShowTheBareOpAndKeepTheFiguresInViewWideAndNarrow() {
        ProfilePanel panel;
        panel.resize(1100, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setProfileOptions({1, 3});
        QSignalSpy ready(&panel, &ProfilePanel::profileReady);
        panel.startProfile(optimizedSample());
        QVERIFY(ready.wait(120000));
        QTableWidget* table = panel.hotspotTable();
        int fused = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            const QTableWidgetItem* op = table->item(row, kOpColumn);
            QVERIFY2(!op->text().contains(':'), qPrintable(op->text()));
            if (op->toolTip() == "com.microsoft:FusedConv") {
                QCOMPARE(op->text(), QString("FusedConv"));
                ++fused;
            }
        }
        QVERIFY(fused > 0);
        QCOMPARE(bareOp("com.microsoft:FusedConv"), QString("FusedConv"));
        QCOMPARE(bareOp("Relu"), QString("Relu"));
        for (const QSize size : {QSize(1100, 300), QSize(420, 700)}) {
            panel.resize(size);
            QTest::qWait(50);
            QCOMPARE(panel.controlsBeside(), sideBySide(size));
            QCOMPARE(panel.controlsBeside(), size.width() == 1100);
            for (int column : {kNodeColumn, kOpColumn, kMedianColumn, kShareColumn})
                QVERIFY2(columnInView(*table, column), qPrintable(QString("column %1 at %2 px").arg(column).arg(size.width())));
            QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
            QCOMPARE(table->isColumnHidden(kGflopsColumn), size.width() < 500);  // the first to go when narrow
            QVERIFY(table->columnWidth(kNodeColumn) >= 90);  // names keep room for their end
            // Rows are in view, not squeezed out by the controls.
            QVERIFY(table->viewport()->height() >= 4 * table->rowHeight(0));
        }
    }

    /// Before/After in the 1100x300 strip: the controls beside the table, the summary, the
    /// legend and the colors' caption whole, and the table's group rows in view.
    void beforeAfterShowsItsSummaryLegendAndRowsInAShortStrip() {
        ProfilePanel panel;
        panel.resize(1100, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setProfileOptions({1, 3});
        ComparePanel* compare = panel.comparePanel();
        panel.tabs()->setCurrentWidget(compare);
        const auto original = std::make_shared<const Model>(loadModel(kSample.toStdString()));
        QSignalSpy ready(compare, &ComparePanel::comparisonReady);
        compare->startCompare({original, original, optimizedSample(), "the original graph", true});
        QVERIFY(ready.wait(240000));
        QTest::qWait(50);
        QVERIFY(compare->controlsBeside());
        const QTableWidget* table = compare->table();
        QVERIFY(table->rowCount() > 0);
        QCOMPARE(table->rowCount(), int(compare->comparison()->groups.size()));
        QVERIFY2(table->viewport()->height() >= 4 * table->rowHeight(0), qPrintable(QString::number(table->viewport()->height())));
        QVERIFY(table->visualItemRect(table->item(0, kSpeedupColumn)).bottom() < table->viewport()->height());
        for (int column : {kSpeedupColumn, kBeforeMsColumn, kAfterMsColumn, kOriginalColumn})
            QVERIFY(columnInView(*table, column));
        for (const QWidget* w : std::initializer_list<const QWidget*>{compare->summaryLabel(), compare->legend(), compare->colorsLabel()})
            QVERIFY2(wholeInside(w, &panel), w->metaObject()->className());
    }


private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestProfileWindow)
#include "tst_profile_window.moc"
