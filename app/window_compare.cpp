// MainWindow's comparisons: File > Compare with..., CPU against Vulkan, the left side against the
// current step, and the pipeline's bisection, each a TaskRunner task (progress and Cancel in the
// status bar) whose ModelDiff goes to the Comparison dock, the panes' marks and the Error overlay.
#include "app/comparison_panel.h"
#include "app/compare_panel.h"
#include "app/background_profile.h"
#include "app/dock_layout.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "core/compare/node_matching.h"
#include "core/import/open_model.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/node_inspector.h"
#include "viewer/node_label.h"
#include "viewer/search_panel.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMessageBox>
#include <QStatusBar>

#include <algorithm>

namespace graphlens {
namespace {

/// The nodes of `graph` whose display names are among `names`.
std::vector<NodeId> nodesNamed(const Graph& graph, const std::vector<std::string>& names) {
    std::vector<NodeId> nodes;
    for (NodeId n : graph.nodeIds())
        if (std::ranges::find(names, nodeDisplayName(graph, n)) != names.end()) nodes.push_back(n);
    return nodes;
}

DiffRequest diffRequest(DiffKind kind, std::shared_ptr<const Model> a, std::shared_ptr<const Model> b, QString nameA, QString nameB) {
    DiffRequest request;
    request.kind = kind;
    request.a = std::move(a);
    request.b = std::move(b);
    request.nameA = std::move(nameA);
    request.nameB = std::move(nameB);
    return request;
}

QString stepName(size_t step) { return step == 0 ? MainWindow::tr("the loaded model") : MainWindow::tr("step %1").arg(step); }

} // namespace

void MainWindow::buildComparisonDock() {
    auto* dock = new QDockWidget(tr("Comparison"), this);
    dock->setObjectName(kComparisonDock);
    comparison_ = new ComparisonPanel(dock);
    dock->setWidget(comparison_);
    connect(comparison_, &ComparisonPanel::fileCompareRequested, this, &MainWindow::chooseAndCompare);
    connect(comparison_, &ComparisonPanel::backendCompareRequested, this, [this] { compareBackends(); });
    connect(comparison_, &ComparisonPanel::stepCompareRequested, this, [this] { compareSteps(); });
    connect(comparison_, &ComparisonPanel::quantizedCompareRequested, this, [this] { compareQuantized(); });
    connect(comparison_, &ComparisonPanel::errorOverlayChanged, this, &MainWindow::updateFills);
    connect(comparison_, &ComparisonPanel::nodeActivated, this, [this](NodeId node) {
        if (diff_ && after_->graph() == &diff_->b->graph) focusCounterparts(after_, node);
    });
    connect(passPanel_, &PassPanel::bisectRequested, this, [this] { bisectPipeline(); });
    // The Profile dock's Heatmap box offers Error beside time and memory: it switches this overlay on.
    connect(profilePanel_, &ProfilePanel::errorOverlayChosen, this, [this] {
        comparison_->setErrorOverlay(true);
        updateFills();
        if (!diff_) statusBar()->showMessage(tr("No comparison yet: File > Compare with..., or a button of the Comparison dock."), 10000);
    });
}

void MainWindow::chooseAndCompare() {
    if (!model_) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with"), QFileInfo(modelPath_).absolutePath(),
                                                      tr("Models (*.onnx *.json *.pb);;All files (*)"));
    if (!path.isEmpty()) compareWithFile(path);
}

bool MainWindow::runDiff(const QString& title, bool quiet, std::function<DiffRequest()> prepare) {
    if (!model_ || busy()) return false;
    tasks_->start(title, [this, title, quiet, prepare](const TaskRunner::Control& control) -> TaskRunner::Completion {
        const auto cancelled = [this] { statusBar()->showMessage(tr("Comparison cancelled."), 5000); };
        control.report(0, 0, title);
        try {
            auto diff = std::make_shared<const ModelDiff>(computeDiff(prepare(), control));
            if (control.cancelled()) return cancelled;
            return [this, diff] { showDiff(diff); };
        } catch (const CompareCancelled&) {
            return cancelled;
        } catch (const std::exception& e) {
            return [this, title, quiet, reason = QString::fromUtf8(e.what())] { failDiff(title, reason, quiet); };
        }
    });
    return true;
}

bool MainWindow::compareWithFile(const QString& path, bool quiet) {
    if (!model_ || busy()) return false;
    std::shared_ptr<const Model> a = stepper().sharedCurrent();
    const QString nameA = QFileInfo(modelPath_).fileName() + (stepper().step() ? tr(" (step %1)").arg(stepper().step()) : QString());
    const QString nameB = QFileInfo(path).fileName();
    return runDiff(tr("Comparing with %1").arg(nameB), quiet, [a, nameA, nameB, path] {
        if (!QFileInfo::exists(path)) throw std::runtime_error("the file does not exist");
        auto b = std::make_shared<const Model>(graphlens::openModel(path.toStdString()));
        DiffRequest request = diffRequest(DiffKind::Models, a, b, nameA, nameB);
        request.provenance = provenanceFromMetadata(*b, a->graph);  // B saved by `graphlens optimize` from A
        return request;
    });
}

bool MainWindow::compareBackends(bool quiet) {
    std::shared_ptr<const Model> model = stepper().sharedCurrent();
    return runDiff(tr("Comparing the CPU with Vulkan"), quiet, [model] {
        const DeviceListing& devices = vulkanDevicesOnce();
        if (devices.devices.empty()) throw std::runtime_error("there is no Vulkan device: " + devices.problem);
        DiffRequest request = diffRequest(DiffKind::Backends, model, model, tr("CPU"), tr("Vulkan: %1").arg(QString::fromStdString(devices.devices.front().name)));
        request.backendB = "vulkan";
        request.deviceB = devices.devices.front().index;
        for (NodeId n : model->graph.nodeIds()) request.provenance[n] = {n};  // every node is its own partner
        return request;
    });
}

bool MainWindow::compareSteps(bool quiet) {
    std::shared_ptr<const Model> a = stepper().sharedSnapshot(leftStep_), b = stepper().sharedCurrent();
    const QString nameA = stepName(leftStep_), nameB = stepName(stepper().step());
    return runDiff(tr("Comparing %1 with %2").arg(nameA, nameB), quiet, [a, b, nameA, nameB] {
        DiffRequest request = diffRequest(DiffKind::Steps, a, b, nameA, nameB);
        request.provenance = provenanceBetween(a->graph, b->graph);
        return request;
    });
}

bool MainWindow::compareQuantized(bool quiet) {
    std::shared_ptr<const Model> a = stepper().sharedCurrent();
    const QString nameA = stepName(stepper().step());
    return runDiff(tr("Comparing float with int8 weights"), quiet, [a, nameA] {
        auto b = std::make_shared<Model>(*a);
        PassContext context = contextFor(*b);
        runPipeline(*b, makePipeline("quantize-int8-weights"), context, {});
        DiffRequest request = diffRequest(DiffKind::Quantized, a, b, nameA, tr("%1, int8 weights").arg(nameA));
        request.provenance = provenanceBetween(a->graph, b->graph);
        return request;
    });
}

bool MainWindow::bisectPipeline(bool quiet) {
    if (!model_ || busy()) return false;
    std::shared_ptr<const Model> original = stepper().sharedSnapshot(0);
    std::vector<std::string> ids;
    for (size_t i = 0; i < stepper().passIds().size(); ++i)
        if (stepper().enabled(i)) ids.push_back(stepper().passIds()[i]);
    PassFactory factory = bisectFactory_;
    const QString title = tr("Bisecting the pipeline");
    const QString nameA = QFileInfo(modelPath_).fileName();
    tasks_->start(title, [this, original, ids, factory, title, quiet, nameA](const TaskRunner::Control& control) -> TaskRunner::Completion {
        const auto cancelled = [this] { statusBar()->showMessage(tr("Bisection cancelled."), 5000); };
        try {
            std::vector<std::unique_ptr<Pass>> passes;
            if (factory) passes = factory();
            else
                for (const std::string& id : ids)
                    for (auto& pass : makePipeline(id)) passes.push_back(std::move(pass));
            DiffRequest request = diffRequest(DiffKind::Bisect, original, original, nameA, QString());
            CompareOptions options = diffOptions(request);
            options.progress = [&control](const std::string& stage, double) {
                control.report(0, 0, QString::fromStdString(stage));
                return !control.cancelled();
            };
            BisectReport r = graphlens::bisectPasses(*original, passes, options);
            auto diff = std::make_shared<ModelDiff>();
            diff->kind = DiffKind::Bisect;
            diff->a = original;
            diff->sentence = QString::fromStdString(r.sentence);
            QStringList unchanged;
            for (const BisectStep& s : r.steps) {
                if (!s.compared) unchanged << QString::fromStdString(s.passId);
                else
                    diff->bisectSteps << tr("%1 · %2 rewrites · max rel error %3%4")
                                             .arg(QString::fromStdString(s.passId))
                                             .arg(s.rewrites)
                                             .arg(s.maxRelError, 0, 'g', 3)
                                             .arg(s.diverged ? tr(" · diverges") : QString());
            }
            if (!unchanged.isEmpty()) diff->bisectSteps << tr("no change: %1").arg(unchanged.join(", "));
            if (r.divergentStep) {
                diff->passId = r.steps[*r.divergentStep].passId;
                diff->nameB = tr("after %1").arg(QString::fromStdString(diff->passId));
            }
            diff->nameA = nameA;
            diff->symbolicDims = symbolicDimsAsOne(original->graph);
            diff->b = std::make_shared<const Model>(std::move(r.model));
            diff->report = std::move(r.comparison);
            diff->involvedA = nodesNamed(diff->a->graph, r.nodesA);
            diff->involvedB = nodesNamed(diff->b->graph, r.nodesB);
            if (r.divergentStep) collectPairStats(*diff, options);
            if (control.cancelled()) return cancelled;
            return [this, diff] { showBisect(diff); };
        } catch (const CompareCancelled&) {
            return cancelled;
        } catch (const std::exception& e) {
            return [this, title, quiet, reason = QString::fromUtf8(e.what())] { failDiff(title, reason, quiet); };
        }
    });
    return true;
}

void MainWindow::showBisect(std::shared_ptr<const ModelDiff> diff) {
    const QString pass = QString::fromStdString(diff->passId);
    if (pass.isEmpty()) {
        comparison_->showMessage(diff->sentence + "\n" + diff->bisectSteps.join("\n"));
        QDockWidget* dock = findChild<QDockWidget*>(kComparisonDock);
        dock->show();
        dock->raise();
        statusBar()->showMessage(diff->sentence, 10000);
    } else {
        showDiff(diff);
        const auto& ids = stepper().passIds();
        if (const auto it = std::ranges::find(ids, diff->passId); it != ids.end())
            passPanel_->passList()->setCurrentRow(int(it - ids.begin()));
        statusBar()->showMessage(diff->sentence, 10000);
    }
    emit bisectFinished(pass);
}

void MainWindow::failDiff(const QString& title, const QString& reason, bool quiet) {
    lastCompareError_ = tr("%1 failed: %2").arg(title, reason);
    emit comparisonFailed(lastCompareError_);
    if (!quiet) QMessageBox::critical(this, tr("Cannot compare"), lastCompareError_);
}

void MainWindow::showDiff(std::shared_ptr<const ModelDiff> diff) {
    diff_ = std::move(diff);
    diffMarks_ = graphlens::diffMarks(*diff_);
    lastCompareError_.clear();
    comparison_->setDiff(diff_);
    QDockWidget* dock = findChild<QDockWidget*>(kComparisonDock);
    dock->show();
    dock->raise();
    if (diff_->kind == DiffKind::Models || diff_->kind == DiffKind::Quantized || diff_->kind == DiffKind::Bisect) {
        // The split becomes A against B: each side its own model, matched through the diff.
        diffShown_ = true;
        const std::shared_ptr<const Graph> a(diff_, &diff_->a->graph), b(diff_, &diff_->b->graph);
        before_->setCaption(tr("A: %1 · %2 nodes").arg(diff_->nameA).arg(a->nodeCount()));
        after_->setCaption(tr("B: %1 · %2 nodes").arg(diff_->nameB).arg(b->nodeCount()));
        centeredFor_[0] = centeredFor_[1] = kNoId;
        inspector_->showNothing();
        profilePanel_->dropProfile();  // of the current step, not of B
        stepShowPending_ = true;
        before_->showGraph(a, diffMarks_.onlyA, NodeMark::Removed);
        after_->showGraph(b, diffMarks_.onlyB, NodeMark::Added);
        before_->setExtraMarks(diffMarks_.changedA, NodeMark::Changed);
        after_->setExtraMarks(diffMarks_.changedB, NodeMark::Changed);
        before_->setHighlighted(diff_->involvedA);
        after_->setHighlighted(diff_->involvedB);
        searchPanel_->setGraphs(a, b);
    } else if (diffShown_) {
        showStep();  // the panes showed another comparison's models: back to the steps, the current one is B
    }
    updateFills();
    // The first divergence selected on B (inspected, its partners highlighted on A); a
    // bisection keeps its involved nodes highlighted and only brings the first into view.
    if (after_->graph() == &diff_->b->graph) {
        if (diff_->kind == DiffKind::Bisect && !diff_->involvedB.empty()) after_->centerNode(diff_->involvedB.front());
        else if (diff_->kind != DiffKind::Bisect && diff_->report.firstDivergence)
            focusCounterparts(after_, diff_->report.matching.matches[diff_->report.nodes[*diff_->report.firstDivergence].match].b);
    }
    emit comparisonShown();
}

void MainWindow::updateFills() {
    const bool overlay = diff_ && comparison_->errorOverlay();
    const bool dark = before_->scene()->style().dark;
    for (GraphPane* side : {before_, after_}) {
        std::unordered_map<NodeId, QColor> fills;
        if (overlay && side->graph() == &diff_->b->graph) fills = errorFills(diff_->b->graph, diffMarks_.errorB, dark);
        else if (overlay && side->graph() == &diff_->a->graph) fills = errorFills(diff_->a->graph, diffMarks_.errorA, dark);
        else fills = side == before_ ? profilePanel_->comparePanel()->beforeFills() : profilePanel_->nodeFills();
        side->scene()->setNodeFills(std::move(fills));
    }
}

void MainWindow::inspectComparison(const GraphPane* side, NodeId node) {
    if (!diff_) return;
    std::optional<size_t> match;
    if (side->graph() == &diff_->b->graph) match = matchOfNode(*diff_, kNoId, node);
    else if (side->graph() == &diff_->a->graph) match = matchOfNode(*diff_, node, kNoId);
    if (!match) return;
    TensorComparison c;
    // Short keys: the inspector's first column fits its longest key, and the values need the room.
    c.sideA = tr("A");
    c.sideB = tr("B");
    c.valueA = diff_->nameA;
    c.valueB = diff_->nameB;
    if (const auto it = diff_->stats.find(*match); it != diff_->stats.end()) {
        c.valueA = tr("%1 · %2").arg(diff_->nameA, QString::fromStdString(it->second.valueA));
        c.valueB = tr("%1 · %2").arg(diff_->nameB, QString::fromStdString(it->second.valueB));
        c.a = it->second.a;
        c.b = it->second.b;
    }
    if (const NodeError* e = nodeErrorOf(*diff_, *match)) {
        c.compared = e->compared;
        c.note = QString::fromStdString(e->compared ? e->error.problem : e->note);
        c.maxAbsError = e->error.maxAbsError;
        c.maxRelError = e->error.maxRelError;
        c.cosine = e->error.cosine;
    } else {
        c.note = tr("the comparison ran nothing (structure only)");
    }
    inspector_->addComparison(c);
}

std::vector<NodeId> MainWindow::diffCounterparts(const GraphPane* side, NodeId node) const {
    std::vector<NodeId> nodes;
    for (const NodeMatch& m : diff_->report.matching.matches) {
        if (side == after_ && m.b == node) {
            nodes = m.groupA.empty() ? std::vector<NodeId>{m.a} : m.groupA;
            break;
        }
        if (side == before_ && (m.a == node || std::ranges::find(m.groupA, node) != m.groupA.end())) nodes.push_back(m.b);
    }
    const GraphPane* other = side == before_ ? after_ : before_;
    std::erase_if(nodes, [other](NodeId n) { return !other->graph()->hasNode(n) || isDrawnAsParameter(*other->graph(), other->graph()->node(n)); });
    return nodes;
}

} // namespace graphlens
