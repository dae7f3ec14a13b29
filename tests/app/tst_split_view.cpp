// The split view of the main window (offscreen): the original (or the previous step) against the
// current step with their diff marks and captions, the rewrite log of every step grouped by pass
// with its filter, the pass list's marks, each side centered on its own counterpart of a
// selection, search over both sides with each result tagged by its side and jumping there, group
// toggles followed by the other side where it has a group of the same path, and the inspector's
// summary of a selected collapsed group.
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/node_inspector.h"
#include "viewer/node_item.h"
#include "viewer/search_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");

bool waitForLayout(const MainWindow& w) {
    return QTest::qWaitFor([&w] { return !w.layoutPending(); }, 20000);
}

bool openAndWait(MainWindow& w) { return w.openModel(kSample) && waitForLayout(w) && w.model(); }

void stepTo(MainWindow& w, const std::string& passId) {
    while (!w.stepper().currentResult() || w.stepper().currentResult()->passId != passId) {
        if (w.stepper().pendingPasses().empty()) throw std::runtime_error("no step of pass " + passId);
        w.applyNextPass();
        if (!waitForLayout(w)) throw std::runtime_error("pass " + passId + " not shown");
    }
}

NodeId nodeNamed(const Graph& graph, const char* name) {
    const auto id = graph.findNode(name);
    if (!id) throw std::runtime_error(std::string("no node named ") + name);
    return *id;
}

QStringList resultTexts(const SearchPanel* search) {
    QStringList out;
    for (int i = 0; i < search->results()->count(); ++i) out << search->results()->item(i)->text();
    return out;
}

void activate(SearchPanel* search, int row) {
    QListWidgetItem* item = search->results()->item(row);
    search->results()->scrollToItem(item);
    QTest::mouseClick(search->results()->viewport(), Qt::LeftButton, {}, search->results()->visualItemRect(item).center());
}

bool showsWhole(const GraphView* view, const NodeItem* item) {
    return item && view->visibleSceneRect().contains(item->sceneBoundingRect().center());
}

/// "key=value" of each child row of `section`.
QStringList rows(const QTreeWidgetItem* section) {
    QStringList out;
    for (int i = 0; section && i < section->childCount(); ++i) out << section->child(i)->text(0) + "=" + section->child(i)->text(1);
    return out;
}

QString number(qlonglong n) { return QLocale().toString(n); }

QString caption(const GraphPane* pane) { return pane->findChild<QLabel*>()->text(); }

/// "name:Op" of every box with `mark`, in scene order.
QStringList boxesMarked(const GraphScene* scene, NodeMark mark) {
    QStringList out;
    for (const NodeItem* item : scene->nodeItems())
        if (item->mark() == mark) out << item->visualNode().name + ":" + item->visualNode().title;
    return out;
}

/// How far (in viewport pixels) the middle of `pane`'s view is from the middle of `node`'s box.
qreal offCenter(const GraphPane* pane, NodeId node) {
    const NodeItem* item = pane->scene()->itemForNode(node);
    if (!item) return 1e9;
    const QPointF shown = pane->view()->mapFromScene(item->sceneBoundingRect().center());
    return (shown - QRectF(pane->view()->viewport()->rect()).center()).manhattanLength();
}

/// The step pass `passId` made (0 when none did).
size_t stepOfPass(const MainWindow& w, const std::string& passId) {
    for (size_t step = 1; step <= w.stepper().step(); ++step)
        if (w.stepper().resultOf(step).passId == passId) return step;
    return 0;
}

/// Apply all on the sample in a shown 1600x1000 window.
bool openShownAndApplyAll(MainWindow& w) {
    w.resize(1600, 1000);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w) || !openAndWait(w)) return false;
    w.applyAllPasses();
    return waitForLayout(w) && w.stepper().step() == w.stepper().stepCount();
}

} // namespace

class TestSplitView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_split_view");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }

    void afterApplyAllTheLeftShowsTheOriginalAndTheRightTheLastStep() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        QCOMPARE(caption(w.beforePane()), QString("Original · 23 nodes"));
        QCOMPARE(caption(w.afterPane()), QString("Original (no pass applied) · 23 nodes"));
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        const size_t steps = w.stepper().stepCount();
        QCOMPARE(w.stepper().step(), steps);
        QCOMPARE(w.compareWith(), CompareWith::Original);  // the default
        QCOMPARE(w.leftStep(), size_t(0));
        const Graph& left = *w.beforePane()->graph();
        QCOMPARE(left.nodeCount(), w.model()->graph.nodeCount());
        QVERIFY(left.findNode("/stem/bn/BatchNormalization"));
        QCOMPARE(w.afterPane()->graph()->nodeCount(), size_t(7));
        QCOMPARE(caption(w.beforePane()), QString("Original · 23 nodes"));
        QCOMPARE(caption(w.afterPane()), QString("After %1 passes (step %1 of %1) · 7 nodes").arg(steps));
        // Left: every original node some pass removed or replaced; right: every node a pass made.
        const QStringList removed = boxesMarked(w.beforeScene(), NodeMark::Removed);
        for (const char* bn : {"/stem/bn/BatchNormalization:BatchNormalization", "/block1/bn1/BatchNormalization:BatchNormalization",
                               "/block1/bn2/BatchNormalization:BatchNormalization", "/down/bn/BatchNormalization:BatchNormalization",
                               "/stem/conv/Conv:Conv", "/head/dropout/Dropout:Dropout"})
            QVERIFY2(removed.contains(bn), bn);
        QVERIFY(!removed.contains("/head/fc/Gemm:Gemm"));  // untouched by every pass
        QCOMPARE(boxesMarked(w.afterScene(), NodeMark::Added).filter(":FusedConv").size(), 4);
        QVERIFY(!boxesMarked(w.afterScene(), NodeMark::Added).contains("/head/fc/Gemm:Gemm"));

        // The switch: the step before the last one on the left, through the menu action.
        auto* previous = w.findChild<QAction*>("compareWithPreviousAction");
        QVERIFY(previous && previous->isCheckable() && !previous->isChecked());
        previous->trigger();
        QCOMPARE(w.compareWith(), CompareWith::PreviousStep);
        QCOMPARE(w.passPanel()->compareBox()->currentText(), QString("Previous step"));
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.leftStep(), steps - 1);
        QCOMPARE(w.beforePane()->graph()->nodeCount(), w.stepper().snapshot(steps - 1).graph.nodeCount());
        const QString previousPass = QString::fromStdString(w.stepper().resultOf(steps - 1).passId);
        QCOMPARE(caption(w.beforePane()), QString("Step %1, after %2 · %3 nodes")
                                              .arg(steps - 1).arg(previousPass).arg(w.stepper().snapshot(steps - 1).graph.nodeCount()));
        QCOMPARE(caption(w.afterPane()), QString("After fuse-conv-activation (step %1 of %1) · 7 nodes").arg(steps));
        // Only the last pass's rewrites are marked now, and the log highlights its group.
        size_t lastRemoved = 0;
        for (const Rewrite& r : w.stepper().currentResult()->rewrites) lastRemoved += r.removed.size();
        QCOMPARE(size_t(boxesMarked(w.beforeScene(), NodeMark::Removed).size()), lastRemoved);
        QCOMPARE(w.rewriteLog()->tree()->topLevelItemCount(), int(steps));
        QVERIFY(w.rewriteLog()->stepRow(steps)->background(0) != QBrush());
        // Back through the box in the Passes dock.
        w.passPanel()->compareBox()->setCurrentIndex(0);
        QVERIFY(!previous->isChecked());
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.leftStep(), size_t(0));
        QCOMPARE(w.beforePane()->graph()->nodeCount(), size_t(23));
        // Stepping back keeps the original on the left.
        w.stepBack();
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.leftStep(), size_t(0));
        QCOMPARE(caption(w.afterPane()).left(30), QString("After %1 passes (step %1 of %2)").arg(steps - 1).arg(steps).left(30));
    }

    void rewriteLogListsEveryStepGroupedByPassAndFilters() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        RewriteLogPanel* log = w.rewriteLog();
        size_t rewrites = 0, declines = 0;
        for (const PassResult* r : w.stepper().appliedResults()) {
            rewrites += r->rewrites.size();
            declines += r->declines.size();
        }
        QVERIFY(rewrites > 10);
        QCOMPARE(log->entryCount(RewriteLogPanel::Entry::Rewrite), int(rewrites));
        QCOMPARE(log->entryCount(RewriteLogPanel::Entry::Decline), int(declines));
        QCOMPARE(log->shownEntryCount(), int(rewrites + declines));
        QTreeWidget* tree = log->tree();
        QCOMPARE(tree->topLevelItemCount(), int(w.stepper().step()));
        for (size_t step = 1; step <= w.stepper().step(); ++step) {
            const PassResult& r = w.stepper().resultOf(step);
            const QTreeWidgetItem* group = log->stepRow(step);
            QVERIFY(group->text(0).startsWith(QString("%1. %2").arg(step).arg(QString::fromStdString(r.passId))));
            QCOMPARE(group->childCount(), int(r.rewrites.size() + r.declines.size()));
            QCOMPARE(group->isExpanded(), step == w.stepper().step());  // the current step's group
            QCOMPARE(group->font(0).bold(), step == w.stepper().step());
        }
        const size_t foldStep = stepOfPass(w, "fold-batchnorm");
        const QTreeWidgetItem* fold = log->stepRow(foldStep);
        QCOMPARE(fold->text(0), QString("%1. fold-batchnorm · 4 rewrites").arg(foldStep));
        // The filter keeps the lines that contain its text and the groups holding them.
        log->filter()->setText("block1/bn");
        int shown = 0;
        for (int g = 0; g < tree->topLevelItemCount(); ++g) {
            const QTreeWidgetItem* group = tree->topLevelItem(g);
            int groupShown = 0;
            for (int i = 0; i < group->childCount(); ++i) {
                const bool matches = group->child(i)->text(0).contains("block1/bn");
                QCOMPARE(!group->child(i)->isHidden(), matches);
                groupShown += matches;
            }
            QCOMPARE(group->isHidden(), groupShown == 0);
            if (groupShown) QVERIFY(group->isExpanded());
            shown += groupShown;
        }
        QCOMPARE(shown, 2);  // bn1 and bn2 folded
        QCOMPARE(log->shownEntryCount(), 2);
        // A pass id keeps its whole group.
        log->filter()->setText("fold-batchnorm");
        QCOMPARE(log->shownEntryCount(), fold->childCount());
        QVERIFY(!fold->isHidden());
        log->filter()->clear();
        QCOMPARE(log->shownEntryCount(), int(rewrites + declines));
        log->hideDeclines()->setChecked(true);
        QCOMPARE(log->shownEntryCount(), int(rewrites));
        log->hideDeclines()->setChecked(false);
        // Stepping back lists the steps up to the new current one.
        w.stepBack();
        QVERIFY(waitForLayout(w));
        QCOMPARE(tree->topLevelItemCount(), int(w.stepper().step()));
        QVERIFY(log->stepRow(w.stepper().step())->isExpanded());
    }

    void passListMarksAppliedPassesAndTheCurrentStep() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        QListWidget* list = w.passPanel()->passList();
        QCOMPARE(list->item(0)->text(), QString("eliminate-noops"));  // nothing applied yet
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        const PassStepper& stepper = w.stepper();
        const QBrush dim = list->palette().brush(QPalette::Disabled, QPalette::Text);
        int dimmed = 0;
        for (size_t step = 1; step <= stepper.step(); ++step) {
            const QListWidgetItem* item = list->item(int(stepper.passOfStep(step)));
            const PassResult& r = stepper.resultOf(step);
            const bool current = step == stepper.step();
            QString expected = QString::fromStdString(r.passId);
            if (r.rewrites.empty()) expected += " · no change";
            else expected += QString(" · %1 rewrite%2").arg(r.rewrites.size()).arg(r.rewrites.size() == 1 ? "" : "s");
            QVERIFY2(item->text().startsWith((current ? QString("\u25B6 ") : QString()) + expected), qPrintable(item->text()));
            QCOMPARE(item->font().bold(), current);
            QCOMPARE(item->foreground() == dim, r.rewrites.empty());
            dimmed += r.rewrites.empty();
        }
        QVERIFY(dimmed > 0);  // the sample leaves some passes nothing to do
        const auto row = [&stepper, list](const char* id) {
            const auto& ids = stepper.passIds();
            return list->item(int(std::find(ids.begin(), ids.end(), id) - ids.begin()))->text();
        };
        QCOMPARE(row("fold-batchnorm"), QString("fold-batchnorm · 4 rewrites · \u22124 nodes"));
        QCOMPARE(row("eliminate-noops"), QString("eliminate-noops · 4 rewrites · \u22124 nodes"));
        // Stepping back moves the mark; the passes after the current step lose their counts.
        w.stepBack();
        QVERIFY(waitForLayout(w));
        QVERIFY(list->item(int(stepper.passOfStep(stepper.step())))->text().startsWith("\u25B6 "));
        QCOMPARE(list->item(int(stepper.passOfStep(stepper.step() + 1)))->text(),
                 QString::fromStdString(stepper.resultOf(stepper.step() + 1).passId));
    }

    void selectingAFusedNodeCentersEachSideOnItsOwnNode() {
        MainWindow w;
        QVERIFY(openShownAndApplyAll(w));
        GraphPane* left = w.beforePane();
        GraphPane* right = w.afterPane();
        const NodeId fused = nodeNamed(*right->graph(), "/block1/conv1/Conv");
        QCOMPARE(right->graph()->node(fused).opType, std::string("FusedConv"));
        const NodeId conv = nodeNamed(*left->graph(), "/block1/conv1/Conv");
        QVERIFY(offCenter(left, conv) > 20 && offCenter(right, fused) > 20);  // not where they start
        w.afterScene()->selectNode(fused);
        QVERIFY2(offCenter(right, fused) <= 2, qPrintable(QString::number(offCenter(right, fused))));
        QVERIFY2(offCenter(left, conv) <= 2, qPrintable(QString::number(offCenter(left, conv))));
        QCOMPARE(left->view()->zoom(), right->view()->zoom());
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted),
                 QStringList({"/block1/conv1/Conv:Conv", "/block1/bn1/BatchNormalization:BatchNormalization",
                              "/block1/relu1/Relu:Relu"}));
        // The other way: a BatchNorm on the left centers the right on the FusedConv it went into.
        const NodeId bn = nodeNamed(*left->graph(), "/down/bn/BatchNormalization");
        const NodeId downFused = nodeNamed(*right->graph(), "/down/conv/Conv");
        w.beforeScene()->selectNode(bn);
        QCOMPARE(w.afterScene()->selectedNode(), kNoId);  // one selection: the inspector's
        QVERIFY(offCenter(left, bn) <= 2);
        QVERIFY(offCenter(right, downFused) <= 2);
        QCOMPARE(boxesMarked(w.afterScene(), NodeMark::Highlighted), QStringList({"/down/conv/Conv:FusedConv"}));
        // A pan of one side pans the other by as much; a zoom zooms both around their own centers.
        const QPointF leftCenter = left->view()->viewState().center;
        const QPointF rightCenter = right->view()->viewState().center;
        right->view()->verticalScrollBar()->setValue(right->view()->verticalScrollBar()->value() - 40);
        const qreal panned = right->view()->viewState().center.y() - rightCenter.y();
        const qreal pixel = 1 / right->view()->zoom();  // the scroll bars move by whole pixels
        QVERIFY2(qAbs(panned + 40 * pixel) <= 2 * pixel, qPrintable(QString::number(panned)));
        QVERIFY2(qAbs(left->view()->viewState().center.y() - leftCenter.y() - panned) <= 2 * pixel,
                 qPrintable(QString::number(left->view()->viewState().center.y() - leftCenter.y())));
        right->view()->zoomIn();
        QCOMPARE(left->view()->zoom(), right->view()->zoom());
    }

    void hotspotAndRewriteLogActivationsCenterEachSide() {
        MainWindow w;
        QVERIFY(openShownAndApplyAll(w));
        GraphPane* left = w.beforePane();
        GraphPane* right = w.afterPane();
        // A hotspot row names a node of the profiled (right) side.
        const NodeId fused = nodeNamed(*right->graph(), "/stem/conv/Conv");
        emit w.profilePanel()->nodeActivated(fused);
        QCOMPARE(w.afterScene()->selectedNode(), fused);
        QVERIFY(offCenter(right, fused) <= 2);
        QVERIFY(offCenter(left, nodeNamed(*left->graph(), "/stem/conv/Conv")) <= 2);
        // A rewrite of an earlier step: the BatchNorm folded into /down/conv. Its left nodes are
        // the original Conv and BatchNorm; the right one the FusedConv they ended in.
        QTreeWidgetItem* group = w.rewriteLog()->stepRow(stepOfPass(w, "fold-batchnorm"));
        QTreeWidgetItem* entry = nullptr;
        for (int i = 0; i < group->childCount(); ++i)
            if (group->child(i)->text(0).contains("'/down/bn/BatchNormalization'")) entry = group->child(i);
        QVERIFY(entry);
        group->setExpanded(true);
        QTreeWidget* tree = w.rewriteLog()->tree();
        tree->scrollToItem(entry);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(entry).center());
        const NodeId downFused = nodeNamed(*right->graph(), "/down/conv/Conv");
        const NodeId downConv = nodeNamed(*left->graph(), "/down/conv/Conv");
        QCOMPARE(w.afterScene()->selectedNode(), downFused);
        QVERIFY(offCenter(right, downFused) <= 2);
        QVERIFY(offCenter(left, downConv) <= 2);
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted),
                 QStringList({"/down/conv/Conv:Conv", "/down/bn/BatchNormalization:BatchNormalization"}));
        // Activating the same hotspot again centers both again after a pan.
        right->view()->verticalScrollBar()->setValue(right->view()->verticalScrollBar()->value() - 60);
        emit w.profilePanel()->nodeActivated(downFused);
        QVERIFY(offCenter(right, downFused) <= 2);
        QVERIFY(offCenter(left, downConv) <= 2);
    }

    void searchListsBothSidesAndJumpsToTheResultsSide() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        SearchPanel* search = w.searchPanel();
        search->query()->setText("/stem/");
        QCOMPARE(resultTexts(search), QStringList({"[before] /stem/conv/Conv  ·  Conv",
                                                   "[before] /stem/bn/BatchNormalization  ·  BatchNormalization",
                                                   "[before] /stem/relu/Relu  ·  Relu", "[after] /stem/conv/Conv  ·  Conv",
                                                   "[after] /stem/relu/Relu  ·  Relu"}));
        QCOMPARE(search->message()->text(), QString("3 nodes before · 2 nodes after"));
        // A before result selects and centers it on the before side; its provenance lights up after.
        activate(search, 1);
        const NodeId bn = nodeNamed(*w.beforePane()->graph(), "/stem/bn/BatchNormalization");
        QCOMPARE(w.beforeScene()->selectedNode(), bn);
        QVERIFY(showsWhole(w.beforePane()->view(), w.beforeScene()->itemForNode(bn)));
        QCOMPARE(w.afterScene()->selectedNode(), kNoId);
        const NodeId afterConv = nodeNamed(*w.afterPane()->graph(), "/stem/conv/Conv");
        QCOMPARE(w.afterScene()->nodeMark(afterConv), NodeMark::Highlighted);
        // An after result does the same on the after side.
        activate(search, 4);
        const NodeId afterRelu = nodeNamed(*w.afterPane()->graph(), "/stem/relu/Relu");
        QCOMPARE(w.afterScene()->selectedNode(), afterRelu);
        QVERIFY(showsWhole(w.afterPane()->view(), w.afterScene()->itemForNode(afterRelu)));
        // A side that lacks the match lists nothing for it.
        search->query()->setText("BatchNorm");
        QCOMPARE(search->message()->text(), QString("4 nodes before · 0 nodes after"));
        QCOMPARE(search->results()->count(), 4);
    }

    void searchBeforeAnyPassSelectsOnTheRightAndCentersBothSides() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w));
        SearchPanel* search = w.searchPanel();
        search->query()->setText("Gemm");
        QCOMPARE(resultTexts(search), QStringList({"[both] /head/fc/Gemm  ·  Gemm"}));
        activate(search, 0);
        const NodeId gemm = nodeNamed(*w.afterPane()->graph(), "/head/fc/Gemm");
        QCOMPARE(w.afterScene()->selectedNode(), gemm);
        QCOMPARE(w.beforeScene()->selectedNode(), kNoId);
        QCOMPARE(boxesMarked(w.beforeScene(), NodeMark::Highlighted), QStringList({"/head/fc/Gemm:Gemm"}));
        QVERIFY(offCenter(w.afterPane(), gemm) <= 2);
        QVERIFY(offCenter(w.beforePane(), gemm) <= 2);
    }

    void togglingAGroupTogglesTheSameGroupOnTheOtherSide() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        stepTo(w, "fold-batchnorm");
        GraphPane* before = w.beforePane();
        GraphPane* after = w.afterPane();
        const GroupId beforeBlock = before->scopes()->findGroup("/block1");
        const GroupId afterBlock = after->scopes()->findGroup("/block1");
        QVERIFY(beforeBlock != kNoId && afterBlock != kNoId);
        QVERIFY(before->collapsedGroups().empty() && after->collapsedGroups().empty());
        emit w.afterScene()->groupActivated(afterBlock);  // a double-click on the after side
        QVERIFY(before->layoutPending());
        QVERIFY(waitForLayout(w));
        QCOMPARE(after->collapsedGroups(), CollapsedGroups({afterBlock}));
        QCOMPARE(before->collapsedGroups(), CollapsedGroups({beforeBlock}));
        const NodeId bn1 = nodeNamed(*before->graph(), "/block1/bn1/BatchNormalization");
        QCOMPARE(w.beforeScene()->itemForNode(bn1)->key(), VisualKey::group(beforeBlock));
        // Expanding on the before side expands the after side too (both layouts cached).
        before->toggleGroup(beforeBlock);
        QVERIFY(!before->layoutPending() && !after->layoutPending());
        QVERIFY(before->collapsedGroups().empty());
        QVERIFY(after->collapsedGroups().empty());
    }

    void aGroupOnlyOneSideHasTogglesThereAlone() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        w.applyAllPasses();
        QVERIFY(waitForLayout(w));
        // The stem's Conv and Relu fused into one node: no /stem group after, one before.
        const GroupId stem = w.beforePane()->scopes()->findGroup("/stem");
        QVERIFY(stem != kNoId);
        QCOMPARE(w.afterPane()->scopes()->findGroup("/stem"), kNoId);
        const CollapsedGroups afterState = w.afterPane()->collapsedGroups();
        w.beforePane()->toggleGroup(stem);
        QVERIFY(!w.afterPane()->layoutPending());
        QVERIFY(waitForLayout(w));
        QCOMPARE(w.beforePane()->collapsedGroups(), CollapsedGroups({stem}));
        QCOMPARE(w.afterPane()->collapsedGroups(), afterState);
    }

    void selectingACollapsedGroupShowsItsSummary() {
        MainWindow w;
        QVERIFY(openAndWait(w));
        GraphPane* pane = w.afterPane();
        const GroupId block = pane->scopes()->findGroup("/block1");
        pane->toggleGroup(block);
        QVERIFY(waitForLayout(w));
        NodeItem* box = w.afterScene()->itemForKey(VisualKey::group(block));
        QVERIFY(box);
        box->setSelected(true);
        QCOMPARE(w.afterScene()->selectedGroup(), block);
        const NodeInspector* inspector = w.inspector();
        QCOMPARE(rows(inspector->section("Group")), QStringList({"name=block1", "path=/block1", "nodes=7", "sub-groups=0",
                                                                 "FLOPs=" + number(9437184)}));
        QCOMPARE(rows(inspector->section("Operators")),
                 QStringList({"BatchNormalization=2", "Conv=2", "Relu=2", "Add=1"}));
        QCOMPARE(rows(inspector->section("Parameters")),
                 QStringList({"tensors=10", "elements=" + number(4736), "bytes=" + number(18944)}));
        QVERIFY(inspector->section("Node") == nullptr);
        // A node selected next shows the node; nothing selected shows the hint.
        const NodeId gemm = nodeNamed(*pane->graph(), "/head/fc/Gemm");
        w.afterScene()->selectNode(gemm);
        QCOMPARE(w.afterScene()->selectedGroup(), kNoId);
        QVERIFY(inspector->section("Node"));
        QVERIFY(inspector->section("Group") == nullptr);
        box->setSelected(true);
        QVERIFY(inspector->section("Group"));
        w.afterScene()->clearSelection();
        QVERIFY(inspector->section("Group") == nullptr);
        QCOMPARE(inspector->topLevelItem(0)->text(0), QString("Select a node to inspect it."));
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestSplitView)
#include "tst_split_view.moc"
