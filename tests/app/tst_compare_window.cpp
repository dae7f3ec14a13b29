// The window's comparisons (offscreen, issue 19): File > Compare with... on two small constructed
// models marks exactly the changed / only-B nodes and paints each node the color of the error the
// report gives it (recomputed here from the seeded inputs); failures reach the error path and
// leave the model shown; the inspector shows both sides' statistics and a Q/DQ node's scale and
// zero point; the Bisect button names a deliberately broken test-only pass.
#include "app/cli/model_inputs.h"
#include "app/comparison_panel.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "core/compare/node_matching.h"
#include "core/graph/builder.h"
#include "core/onnx/exporter.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"
#include "core/runtime/backend_registry.h"
#include "support/add_mul_model.h"
#include "support/perturb_conv_pass.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_widget.h"
#include "viewer/node_inspector.h"
#include "viewer/quant_params.h"
#include "viewer/tensor_pair_view.h"

#include <QLabel>
#include <QPushButton>
#include <QSemaphore>
#include <QSettings>
#include <QStatusBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <atomic>
#include <cmath>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

bool waitIdle(const MainWindow& w) { return QTest::qWaitFor([&w] { return !w.layoutPending(); }, 60000); }

bool open(MainWindow& w, const QString& path) { return w.openModel(path, true) && waitIdle(w) && w.model(); }

/// `model` written to `dir`/`name`.
QString save(const QTemporaryDir& dir, const char* name, const Model& model) {
    const QString path = dir.filePath(name);
    saveModel(model, path.toStdString());
    return path;
}

/// x[4] -> Add(1) -> Mul(2) -> Relu: addMulModel(1) with a Relu only B has.
Model addMulReluModel() {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
    const ValueId add = b.op("Add", {x, b.initializer("c", Tensor::floats({1}, {1.0f}))}, {}, "add");
    const ValueId mul = b.op("Mul", {add, b.initializer("k", Tensor::floats({1}, {2.0f}))}, {}, "mul");
    b.output(b.op("Relu", {mul}, {}, "relu"));
    return b.model();
}

/// x[3,2] -> QuantizeLinear(0.05, 3) -> DequantizeLinear -> Mul(DequantizeLinear(w int8, per row))
Model qdqModel() {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes({3, 2}));
    const ValueId scale = b.initializer("s", Tensor::scalar(0.05f));
    const ValueId zero = b.initializer("zp", Tensor::fromVector<uint8_t>(DType::UInt8, {}, {3}));
    const ValueId q = b.op("QuantizeLinear", {x, scale, zero}, {}, "quant_x");
    const ValueId dq = b.op("DequantizeLinear", {q, scale, zero}, {}, "dequant_x");
    const ValueId w = b.initializer("w", Tensor::fromVector<int8_t>(DType::Int8, {3, 2}, {10, -20, 30, -40, 50, -60}));
    const ValueId ws = b.initializer("ws", Tensor::floats({3}, {0.01f, 0.02f, 0.03f}));
    const ValueId wz = b.initializer("wz", Tensor::fromVector<int8_t>(DType::Int8, {3}, {0, 0, 0}));
    const ValueId wd = b.op("DequantizeLinear", {w, ws, wz}, {{"axis", Attribute(int64_t(0))}}, "dequant_w");
    b.output(b.op("Mul", {dq, wd}, {}, "mul"));
    return b.model();
}

/// The max relative error of Add(c) / Mul(2) outputs of B (c = 1.5) against A (c = 1) on `x`,
/// as measureError defines it (floor: a hundredth of A's largest magnitude).
double expectedAddMulError(const Tensor& x, float factor) {
    const auto in = x.span<float>();
    double largest = 0;
    for (float v : in) largest = std::max(largest, std::abs(double(float(v + 1.0f) * factor)));
    double worst = 0;
    for (float v : in) {
        const double a = double(float(v + 1.0f) * factor), b = double(float(v + 1.5f) * factor);
        worst = std::max(worst, std::abs(b - a) / std::max(std::abs(a), std::max(1e-2 * largest, 1e-30)));
    }
    return worst;
}

NodeId nodeNamed(const Graph& g, const char* name) { return *g.findNode(name); }

QTreeWidgetItem* childRow(const QTreeWidgetItem* parent, const QString& key) {
    for (int i = 0; parent && i < parent->childCount(); ++i)
        if (parent->child(i)->text(0) == key) return parent->child(i);
    return nullptr;
}

} // namespace

class TestCompareWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_compare_window");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings_.path());
    }

    void compareWithFileMarksTheChangedNodeAndPaintsTheReportsErrors() {
        MainWindow w;
        QVERIFY(open(w, save(dir_, "a.onnx", testing::addMulModel(1.0f))));
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareWithFile(save(dir_, "b.onnx", testing::addMulModel(1.5f)), true));
        QVERIFY(shown.wait(60000));
        QVERIFY(waitIdle(w));
        QVERIFY(w.diffShown());
        const ModelDiff& diff = *w.diff();
        QCOMPARE(diff.report.matching.matches.size(), size_t(2));
        QVERIFY(diff.report.matching.onlyA.empty() && diff.report.matching.onlyB.empty());
        const Graph& a = *w.beforePane()->graph();
        const Graph& b = *w.afterPane()->graph();
        QCOMPARE(&a, &diff.a->graph);
        QCOMPARE(&b, &diff.b->graph);
        // Exactly the Add changed (its constant), on both sides.
        QCOMPARE(w.diffMarks().changedA, std::vector<NodeId>{nodeNamed(a, "add")});
        QCOMPARE(w.diffMarks().changedB, std::vector<NodeId>{nodeNamed(b, "add")});
        // The first divergence, the Add, is selected on B and its partner highlighted on A.
        QCOMPARE(w.afterScene()->selectedNode(), nodeNamed(b, "add"));
        QCOMPARE(w.beforePane()->highlighted(), std::vector<NodeId>{nodeNamed(a, "add")});
        QVERIFY(w.inspector()->section("Comparison"));
        w.afterScene()->selectNode(kNoId);
        QCOMPARE(w.beforeScene()->nodeMark(nodeNamed(a, "add")), NodeMark::Changed);
        QCOMPARE(w.afterScene()->nodeMark(nodeNamed(b, "add")), NodeMark::Changed);
        QCOMPARE(w.beforeScene()->nodeMark(nodeNamed(a, "mul")), NodeMark::Normal);
        QCOMPARE(w.afterScene()->nodeMark(nodeNamed(b, "mul")), NodeMark::Normal);
        // The errors of the report are those of the seeded inputs, and each node wears its color.
        const Tensor x = cli::makeFeeds(a, {}, {}, 0).at("x");
        for (const char* name : {"add", "mul"}) {
            const double expected = expectedAddMulError(x, name == std::string("add") ? 1.0f : 2.0f);
            QVERIFY(expected > 0.2);  // 0.5 against values below 2
            const NodeError* e = nodeErrorOf(diff, *matchOfNode(diff, kNoId, nodeNamed(b, name)));
            QVERIFY(e && e->compared);
            QCOMPARE(e->error.maxRelError, expected);
            QCOMPARE(e->error.maxAbsError, name == std::string("add") ? 0.5 : 1.0);
            QCOMPARE(w.afterScene()->nodeFill(nodeNamed(b, name)), std::optional<QColor>(errorColor(expected)));
            QCOMPARE(w.beforeScene()->nodeFill(nodeNamed(a, name)), std::optional<QColor>(errorColor(expected)));
        }
        QVERIFY(errorColor(0.3) != errorColor(1e-6));  // the overlay tells large from small
        QCOMPARE(w.comparisonPanel()->table()->rowCount(), 2);
        QVERIFY(w.comparisonPanel()->summaryLabel()->text().contains("matched 2 · only in A 0 · only in B 0 · changed 1"));
        QVERIFY(w.comparisonPanel()->summaryLabel()->text().contains("first divergence: add (Add)"));
        // Switching the overlay off gives the boxes their family colors back.
        w.comparisonPanel()->setErrorOverlay(false);
        QCOMPARE(w.afterScene()->nodeFill(nodeNamed(b, "add")), std::nullopt);
        w.comparisonPanel()->setErrorOverlay(true);
        QCOMPARE(w.afterScene()->nodeFill(nodeNamed(b, "add")), std::optional<QColor>(errorColor(expectedAddMulError(x, 1.0f))));

        // The inspector of the selected Add: both sides' statistics side by side, and the errors.
        w.afterScene()->selectNode(nodeNamed(b, "add"));
        const QTreeWidgetItem* section = w.inspector()->section("Comparison");
        QVERIFY(section);
        QCOMPARE(childRow(section, "max abs error")->text(1), QString("0.5"));
        QCOMPARE(childRow(section, "max rel error")->text(1), QString::number(expectedAddMulError(x, 1.0f), 'g', 6));
        const auto* pair = w.inspector()->findChild<TensorPairView*>();
        QVERIFY(pair);
        const auto in = x.span<float>();
        const float low = *std::min_element(in.begin(), in.end()), high = *std::max_element(in.begin(), in.end());
        QCOMPARE(pair->cellText(kPairMinRow, 0), QString::number(double(float(low + 1.0f)), 'g', 5));
        QCOMPARE(pair->cellText(kPairMinRow, 1), QString::number(double(float(low + 1.5f)), 'g', 5));
        QCOMPARE(pair->cellText(kPairMaxRow, 1), QString::number(double(float(high + 1.5f)), 'g', 5));
        QCOMPARE(pair->cellText(kPairNonFiniteRow, 0), QString("0"));
        // Selecting the A side's Add highlights its partner on the B side.
        w.beforeScene()->selectNode(nodeNamed(a, "add"));
        QCOMPARE(w.afterPane()->highlighted(), std::vector<NodeId>{nodeNamed(b, "add")});
    }

    void nodesOnlyInBAreMarkedAndStayNeutral() {
        MainWindow w;
        QVERIFY(open(w, save(dir_, "a2.onnx", testing::addMulModel(1.0f))));
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareWithFile(save(dir_, "relu.onnx", addMulReluModel()), true));
        QVERIFY(shown.wait(60000));
        QVERIFY(waitIdle(w));
        const Graph& b = *w.afterPane()->graph();
        const NodeId relu = nodeNamed(b, "relu");
        QCOMPARE(w.diffMarks().onlyB, std::vector<NodeId>{relu});
        QVERIFY(w.diffMarks().onlyA.empty() && w.diffMarks().changedB.empty());
        QCOMPARE(w.afterScene()->nodeMark(relu), NodeMark::Added);
        QCOMPARE(w.afterScene()->nodeFill(relu), std::optional<QColor>(neutralErrorFill(w.afterScene()->style().dark)));
        // The same computation on both sides: no error at all, the coolest color.
        QCOMPARE(w.diffMarks().errorB.at(nodeNamed(b, "mul")), 0.0);
        QCOMPARE(w.afterScene()->nodeFill(nodeNamed(b, "mul")), std::optional<QColor>(errorColor(0)));
        // The Profile dock's Heatmap box has Error beside Time and Memory: it brings the overlay back.
        w.comparisonPanel()->setErrorOverlay(false);
        QCOMPARE(w.afterScene()->nodeFill(relu), std::nullopt);
        w.profilePanel()->setOverlay(HeatOverlay::Error);
        QVERIFY(w.comparisonPanel()->errorOverlay());
        QCOMPARE(w.afterScene()->nodeFill(relu), std::optional<QColor>(neutralErrorFill(w.afterScene()->style().dark)));
        QCOMPARE(w.profilePanel()->legend()->scale()->low(), 1e-7);
        QCOMPARE(w.profilePanel()->legend()->scale()->high(), 1.0);
    }

    void failuresReachTheErrorAndKeepTheModel() {
        MainWindow w;
        QVERIFY(open(w, save(dir_, "a3.onnx", testing::addMulModel(1.0f))));
        const Graph* shownBefore = w.afterPane()->graph();
        QSignalSpy failed(&w, &MainWindow::comparisonFailed);
        QVERIFY(w.compareWithFile(dir_.filePath("missing.onnx"), true));
        QVERIFY(failed.wait(30000));
        QVERIFY(w.lastCompareError().contains("the file does not exist"));
        QFile junk(dir_.filePath("junk.onnx"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("not a model");
        junk.close();
        QVERIFY(QTest::qWaitFor([&w] { return !w.busy(); }, 10000));
        QVERIFY(w.compareWithFile(junk.fileName(), true));
        QVERIFY(failed.wait(30000));
        QVERIFY(w.lastCompareError().startsWith("Comparing with junk.onnx failed: "));
        QCOMPARE(failed.count(), 2);
        QVERIFY(!w.diff() && !w.diffShown());
        QCOMPARE(w.afterPane()->graph(), shownBefore);  // the model shown stays, and works
        QVERIFY(QTest::qWaitFor([&w] { return !w.busy(); }, 10000));
        QVERIFY(w.compareSteps(true));  // the loaded model against itself: all exact
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(shown.wait(30000));
        QCOMPARE(w.diff()->kind, DiffKind::Steps);
        QCOMPARE(w.diff()->report.nodes.size(), size_t(2));
        for (const NodeError& e : w.diff()->report.nodes) QCOMPARE(e.error.maxRelError, 0.0);
        // Opening another model forgets the comparison.
        QVERIFY(open(w, kSample));
        QVERIFY(!w.diff());
        QVERIFY(w.comparisonPanel()->summaryLabel()->text().startsWith("Compare the model shown"));
        QCOMPARE(w.afterScene()->nodeFill(w.afterPane()->graph()->nodeIds().front()), std::nullopt);
    }

    void cancellingAComparisonKeepsTheModelShown() {
        MainWindow w;
        QVERIFY(open(w, save(dir_, "a4.onnx", testing::addMulModel(1.0f))));
        const Graph* shownBefore = w.afterPane()->graph();
        QSemaphore paused, resume;
        std::atomic<bool> held{false};
        w.tasks()->setReportHook([&](int) {  // holds the comparison at its first report
            if (held.exchange(true)) return;
            paused.release();
            resume.acquire();
        });
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareWithFile(save(dir_, "b4.onnx", testing::addMulModel(1.5f)), true));
        QVERIFY(QTest::qWaitFor([&] { return paused.available() > 0; }, 20000));
        QVERIFY(w.busy());
        w.cancelWork();  // the status bar's Cancel
        resume.release();
        QVERIFY(QTest::qWaitFor([&w] { return !w.busy(); }, 20000));
        QTest::qWait(50);
        QCOMPARE(shown.count(), 0);
        QVERIFY(!w.diff() && !w.diffShown());
        QCOMPARE(w.afterPane()->graph(), shownBefore);
        QCOMPARE(w.statusBar()->currentMessage(), QString("Comparison cancelled."));
        w.tasks()->setReportHook({});
    }

    void inspectorShowsScaleAndZeroPointOfDequantizeLinear() {
        MainWindow w;
        QVERIFY(open(w, save(dir_, "qdq.onnx", qdqModel())));
        const Graph& g = *w.afterPane()->graph();
        w.afterScene()->selectNode(nodeNamed(g, "dequant_x"));
        const QTreeWidgetItem* quant = w.inspector()->section("Quantization");
        QVERIFY(quant);
        QCOMPARE(childRow(quant, "granularity")->text(1), QString("per-tensor"));
        QCOMPARE(childRow(quant, "scale")->text(1), QString("0.05"));
        QCOMPARE(childRow(quant, "zero point")->text(1), QString("3 (uint8)"));
        // The Mul fed by both DequantizeLinear nodes shows each one's parameters.
        w.afterScene()->selectNode(nodeNamed(g, "mul"));
        quant = w.inspector()->section("Quantization");
        QVERIFY(quant);
        QCOMPARE(quant->childCount(), 2);
        const QTreeWidgetItem* weight = quant->child(1);
        QCOMPARE(weight->text(1), QString("DequantizeLinear dequant_w"));
        QCOMPARE(childRow(weight, "granularity")->text(1), QString("per-channel (3 channels, axis 0)"));
        QCOMPARE(childRow(weight, "scale")->text(1), QString("0.01 .. 0.03 (mean 0.02) over 3 channels, axis 0"));
        QCOMPARE(childRow(weight, "zero point")->text(1), QString("0 (int8)"));
        // A node with no Q/DQ around it has no such section.
        const std::optional<QuantParams> q = quantParamsOf(g, nodeNamed(g, "quant_x"));
        QVERIFY(q);
        QCOMPARE(q->scaleMin, double(0.05f));
        QVERIFY(quantParamsAround(testing::addMulModel(1).graph, *testing::addMulModel(1).graph.findNode("add")).empty());
    }

    void floatAgainstInt8PaintsTheQuantizationErrorAndShowsTheScales() {
        MainWindow w;
        QVERIFY(open(w, kSample));
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        w.comparisonPanel()->quantizedButton()->click();
        QVERIFY(shown.wait(60000));
        QVERIFY(waitIdle(w));
        const ModelDiff& diff = *w.diff();
        QCOMPARE(diff.kind, DiffKind::Quantized);
        QVERIFY(w.diffShown());
        const Graph& b = *w.afterPane()->graph();
        QCOMPARE(&b, &diff.b->graph);
        // The DequantizeLinear nodes of the int8 weights are B's only new nodes, marked and grey.
        size_t dequantize = 0;
        for (NodeId n : b.nodeIds()) dequantize += b.node(n).opType == "DequantizeLinear";
        QVERIFY(dequantize > 0);
        QCOMPARE(w.diffMarks().onlyB.size(), dequantize);
        const bool dark = w.afterScene()->style().dark;
        for (NodeId n : w.diffMarks().onlyB) {
            QCOMPARE(b.node(n).opType, std::string("DequantizeLinear"));
            QCOMPARE(w.afterScene()->nodeMark(n), NodeMark::Added);
            QCOMPARE(w.afterScene()->nodeFill(n), std::optional<QColor>(neutralErrorFill(dark)));
        }
        // Every compared node wears the color of its own error; int8 weights move some past 1e-3.
        size_t painted = 0;
        for (const NodeError& e : diff.report.nodes) {
            if (!e.compared) continue;
            const NodeId node = diff.report.matching.matches[e.match].b;
            QCOMPARE(w.afterScene()->nodeFill(node), std::optional<QColor>(errorColor(e.error.maxRelError)));
            ++painted;
        }
        QCOMPARE(painted, diff.report.matching.matches.size());  // every matched node measured
        QVERIFY(diff.report.firstDivergence);
        // A comparison of steps after it brings the panes back to the steps: B is the current one.
        QSignalSpy again(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareSteps(true));
        QVERIFY(again.wait(60000));
        QVERIFY(waitIdle(w));
        QVERIFY(!w.diffShown());
        QCOMPARE(w.afterPane()->graph(), &w.stepper().current().graph);
        QCOMPARE(w.afterPane()->graph(), &w.diff()->b->graph);
        QCOMPARE(w.afterScene()->nodeFill(w.afterPane()->graph()->nodeIds().front()).has_value(), true);
    }

    void int8WeightsInspectorShowsTheirScales() {
        MainWindow w;
        QVERIFY(open(w, kSample));
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareQuantized(true));
        QVERIFY(shown.wait(60000));
        QVERIFY(waitIdle(w));
        // The inspector of a weight's DequantizeLinear: per output channel int8 scales.
        w.afterScene()->selectNode(w.diffMarks().onlyB.front());
        const QTreeWidgetItem* quant = w.inspector()->section("Quantization");
        QVERIFY(quant);
        QVERIFY(childRow(quant, "granularity")->text(1).startsWith("per-channel ("));
        QVERIFY(childRow(quant, "zero point")->text(1).endsWith("(int8)"));
    }

    void cpuAgainstVulkanPaintsTheCurrentStep() {
        if (listVulkanDevices().devices.empty()) QSKIP("no Vulkan device");
        MainWindow w;
        QVERIFY(open(w, save(dir_, "av.onnx", testing::addMulModel(1.0f))));
        QSignalSpy shown(&w, &MainWindow::comparisonShown);
        QVERIFY(w.compareBackends(true));
        QVERIFY(shown.wait(60000));
        const ModelDiff& diff = *w.diff();
        QCOMPARE(diff.kind, DiffKind::Backends);
        QVERIFY(!w.diffShown());  // the panes keep the steps: both sides are the current step
        QCOMPARE(diff.report.nodes.size(), size_t(2));
        QCOMPARE(diff.report.outputs.size(), size_t(1));
        QVERIFY(diff.report.outputs[0].error.maxRelError < 1e-6);  // an add and a multiply: exact or nearly
        const Graph& g = *w.afterPane()->graph();
        for (const NodeError& e : diff.report.nodes) {
            QVERIFY(e.compared);
            const NodeId node = diff.report.matching.matches[e.match].b;
            QVERIFY(g.hasNode(node));
            QCOMPARE(w.afterScene()->nodeFill(node), std::optional<QColor>(errorColor(e.error.maxRelError)));
        }
    }

    void bisectButtonNamesTheBrokenPass() {
        MainWindow w;
        QVERIFY(open(w, kSample));
        w.setBisectPassFactory([] {
            std::vector<std::unique_ptr<Pass>> passes = makePipeline("eliminate-noops");
            passes.push_back(std::make_unique<testing::PerturbConvWeight>());
            for (auto& pass : makePipeline("fold-batchnorm")) passes.push_back(std::move(pass));
            return passes;
        });
        QSignalSpy finished(&w, &MainWindow::bisectFinished);
        w.passPanel()->bisectButton()->click();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toString(), QString("test-perturb-conv-weight"));
        QVERIFY(waitIdle(w));
        QVERIFY(w.diffShown());
        QVERIFY(w.comparisonPanel()->summaryLabel()->text().startsWith("pass 'test-perturb-conv-weight'"));
        const Graph& b = *w.afterPane()->graph();
        QVERIFY(b.findValue("perturbed"));  // the right side is the model after the broken pass
        QCOMPARE(w.afterPane()->highlighted(), std::vector<NodeId>{nodeNamed(b, "/block1/conv2/Conv")});
        QCOMPARE(w.afterScene()->nodeMark(nodeNamed(b, "/block1/conv2/Conv")), NodeMark::Highlighted);
        // Without the broken pass nothing diverges, and the panel says so.
        w.setBisectPassFactory([] { return makePipeline("eliminate-noops,fold-batchnorm"); });
        w.passPanel()->bisectButton()->click();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.last().first().toString(), QString());
        const QStringList lines = w.comparisonPanel()->summaryLabel()->text().split('\n');
        QCOMPARE(lines.size(), 3);  // the verdict, then one line per pass
        QCOMPARE(lines[0], QString("no pass diverges beyond the tolerance"));
        QCOMPARE(lines[1], QString("eliminate-noops · 4 rewrites · max rel error 0"));  // Dropout and Identity: exact
        QVERIFY(lines[2].startsWith("fold-batchnorm · 4 rewrites · max rel error "));
    }

private:
    QTemporaryDir settings_;
    QTemporaryDir dir_;
};

QTEST_MAIN(TestCompareWindow)
#include "tst_compare_window.moc"
