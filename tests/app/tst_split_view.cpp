// The split view of the main window (offscreen): search over both sides with each result tagged
// by its side and jumping there, group toggles followed by the other side where it has a group
// of the same path, and the inspector's summary of a selected collapsed group.
#include "app/main_window.h"
#include "viewer/graph_pane.h"
#include "viewer/graph_scene.h"
#include "viewer/graph_view.h"
#include "viewer/node_inspector.h"
#include "viewer/node_item.h"
#include "viewer/search_panel.h"

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QSettings>
#include <QTemporaryDir>
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

} // namespace

class TestSplitView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_split_view");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
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

    void searchBeforeAnyPassSelectsOnBothSides() {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w));
        SearchPanel* search = w.searchPanel();
        search->query()->setText("Gemm");
        QCOMPARE(resultTexts(search), QStringList({"[both] /head/fc/Gemm  ·  Gemm"}));
        activate(search, 0);
        const NodeId gemm = nodeNamed(*w.afterPane()->graph(), "/head/fc/Gemm");
        QCOMPARE(w.beforeScene()->selectedNode(), gemm);
        QCOMPARE(w.afterScene()->selectedNode(), gemm);
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
