// The Profile dock's backends (offscreen): the backend combo (CPU first, then one entry per
// Vulkan device) and the button that follows it, a profile on the CPU entry, and the Backends tab
// comparing the CPU with the Vulkan device node by node; the Vulkan parts are skipped where the
// machine has no Vulkan device, and the compare button is then disabled.
#include "app/backend_compare_panel.h"
#include "app/main_window.h"
#include "app/profile_panel.h"
#include "core/onnx/loader.h"
#include "core/runtime/backend.h"
#include "core/runtime/backend_registry.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

using namespace graphlens;

namespace {

const QString kSample = QStringLiteral(GRAPHLENS_SOURCE_DIR "/resources/models/sample_cnn.onnx");
constexpr int kSampleNodes = 23;  // nodes of the original sample, each run by both backends

bool openSample(MainWindow& w) {
    return w.openModel(kSample) && QTest::qWaitFor([&w] { return !w.layoutPending(); }, 20000);
}

/// Waits until the window has listed the Vulkan devices (on a worker thread, after it opens).
bool backendsListed(const MainWindow& w) {
    return QTest::qWaitFor([&w] { return w.profilePanel()->backendsKnown(); }, 30000);
}

} // namespace

class TestBackendCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("GraphLensTests");
        QCoreApplication::setApplicationName("tst_backend_compare");
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir_.path());
    }

    void theBackendComboListsTheCpuFirstThenEachVulkanDevice() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        const QComboBox* box = w.profilePanel()->backendBox();
        const DeviceListing listing = listVulkanDevices();
        QCOMPARE(box->count(), 1 + int(listing.devices.size()));
        QCOMPARE(box->itemText(0), QString("CPU"));
        QCOMPARE(w.profilePanel()->profileButton()->text(), QString("Profile on CPU"));
        for (size_t i = 0; i < listing.devices.size(); ++i) {
            QCOMPARE(box->itemText(int(i) + 1), "Vulkan: " + QString::fromStdString(listing.devices[i].name));
            QCOMPARE(box->itemData(int(i) + 1).toInt(), listing.devices[i].index);
        }
        if (listing.devices.empty()) QVERIFY(box->toolTip().contains(QString::fromStdString(listing.problem)));
    }

    void theProfileButtonFollowsTheChosenBackend() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        QComboBox* box = w.profilePanel()->backendBox();
        if (box->count() < 2) QSKIP("no Vulkan device");
        box->setCurrentIndex(1);
        // The entry without the details in parentheses: "Profile on Vulkan: llvmpipe".
        QCOMPARE(w.profilePanel()->profileButton()->text(), "Profile on " + shortBackendName(box->itemText(1)));
        QVERIFY(!w.profilePanel()->profileButton()->text().contains('('));
        QVERIFY(w.profilePanel()->profileButton()->toolTip().contains(box->itemText(1)));
        box->setCurrentIndex(0);
        QCOMPARE(w.profilePanel()->profileButton()->text(), QString("Profile on CPU"));
    }

    void profilingOnTheCpuEntryGivesACpuProfile() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        QVERIFY(openSample(w));
        ProfilePanel* panel = w.profilePanel();
        panel->setProfileOptions({1, 3});
        panel->backendBox()->setCurrentIndex(0);
        QSignalSpy ready(panel, &ProfilePanel::profileReady);
        panel->profileButton()->click();
        QVERIFY(ready.wait(120000));
        QCOMPARE(panel->profileBackend(), std::string("cpu"));
        QCOMPARE(panel->profile()->nodes.size(), size_t(kSampleNodes));
    }

    void profilingOnAVulkanEntryGivesAVulkanProfile() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        if (w.profilePanel()->backendBox()->count() < 2) QSKIP("no Vulkan device");
        QVERIFY(openSample(w));
        ProfilePanel* panel = w.profilePanel();
        panel->setProfileOptions({1, 3});
        panel->backendBox()->setCurrentIndex(1);
        QSignalSpy ready(panel, &ProfilePanel::profileReady);
        panel->profileButton()->click();
        QVERIFY(ready.wait(120000));
        QCOMPARE(panel->profileBackend(), std::string("vulkan"));
        QCOMPARE(panel->profile()->nodes.size(), size_t(kSampleNodes));
    }

    void aBackendThatCannotBeCreatedIsReportedAndThePanelStaysUsable() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        QVERIFY(openSample(w));
        ProfilePanel* panel = w.profilePanel();
        panel->setProfileOptions({1, 3});
        panel->backendBox()->addItem("Vulkan: gone", 99);  // a device index the machine does not have
        panel->backendBox()->setCurrentIndex(panel->backendBox()->count() - 1);
        QSignalSpy failed(panel, &ProfilePanel::profileFailed);
        panel->profileButton()->click();
        QVERIFY(failed.wait(60000));
        const QString reason = failed.first().first().toString();
        // A device index the machine lacks is named as such (ErrorKind::BadDeviceIndex), not as a
        // machine without Vulkan.
        QVERIFY2(reason.startsWith("there is no Vulkan device 99 ("), qPrintable(reason));
        QCOMPARE(panel->findChild<QLabel*>("profileSummary")->text(), "Profile failed: " + reason);
        QVERIFY(!panel->running());
        QVERIFY(panel->profileButton()->isEnabled());
        QCOMPARE(panel->profile(), nullptr);
        panel->backendBox()->setCurrentIndex(0);  // and the CPU still profiles
        QSignalSpy ready(panel, &ProfilePanel::profileReady);
        panel->profileButton()->click();
        QVERIFY(ready.wait(120000));
        QCOMPARE(panel->profileBackend(), std::string("cpu"));
    }

    void theBackendsTabSitsNextToBeforeAfter() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        QTabWidget* tabs = w.profilePanel()->tabs();
        const int backends = tabs->indexOf(w.profilePanel()->backendComparePanel());
        QVERIFY(backends >= 0);
        QCOMPARE(tabs->tabText(backends), QString("Backends"));
        QCOMPARE(tabs->tabText(backends - 1), QString("Before/After"));
    }

    void comparingBackendsFillsOneRowPerNodeWithBothTimes() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        BackendComparePanel* backends = w.profilePanel()->backendComparePanel();
        if (listVulkanDevices().devices.empty()) {
            QVERIFY(!backends->compareButton()->isEnabled());
            QSKIP("no Vulkan device: the compare button is disabled");
        }
        QVERIFY(openSample(w));
        w.profilePanel()->setProfileOptions({1, 3});
        QSignalSpy ready(backends, &BackendComparePanel::comparisonReady);
        QVERIFY(backends->compareButton()->isEnabled());
        backends->compareButton()->click();
        QVERIFY(backends->running());
        QVERIFY(!backends->compareButton()->isEnabled());
        QVERIFY(ready.wait(240000));
        const BackendComparison* c = backends->comparison();
        QCOMPARE(c->nodes.size(), size_t(kSampleNodes));
        QCOMPARE(backends->table()->rowCount(), kSampleNodes);
        // The CPU plan runs a BatchNormalization or activation inside the convolution before it
        // (conv_fusion.h): such a node takes no time of its own there.
        std::set<std::string> fusedOnCpu;
        const Model sample = loadModel(kSample.toStdString());
        const std::unique_ptr<Plan> cpuPlan = makeCpuBackend()->compile(sample, {});
        for (const PlannedNode& p : cpuPlan->nodes())
            if (p.kernel.rfind("fused into ", 0) == 0 && sample.graph.hasNode(p.node))
                fusedOnCpu.insert(sample.graph.node(p.node).name);
        QVERIFY(!fusedOnCpu.empty());
        for (const BackendNodeTimes& n : c->nodes) {
            QVERIFY2(n.vulkanMs > 0 && (n.cpuMs > 0 || fusedOnCpu.count(n.name)), n.name.c_str());
            QCOMPARE(n.cpuFallback, n.vulkanKernel.rfind("cpu-fallback:", 0) == 0);
            QCOMPARE(n.cpuFallback, !n.why.empty());  // a node runs on the CPU only with a reason
        }
        for (int row = 0; row < backends->table()->rowCount(); ++row) {
            const NodeId id = backends->table()->item(row, kBackendNodeColumn)->data(Qt::UserRole).value<NodeId>();
            const auto n = std::find_if(c->nodes.begin(), c->nodes.end(), [&](const BackendNodeTimes& t) { return t.node == id; });
            QCOMPARE(backends->table()->item(row, kWhyColumn)->text(), QString::fromStdString(n->why));
        }
        // The Why column shows only when some node ran on the CPU.
        QCOMPARE(backends->table()->isColumnHidden(kWhyColumn),
                 std::none_of(c->nodes.begin(), c->nodes.end(), [](const BackendNodeTimes& n) { return n.cpuFallback; }));
        QVERIFY(c->cpuMs > 0 && c->vulkanMs > 0);
        QCOMPARE(c->ratio(), c->vulkanMs / c->cpuMs);
        const QString summary = QString("CPU %1 ms, Vulkan %2 ms (Vulkan/CPU %3)")
                                    .arg(c->cpuMs, 0, 'f', 3).arg(c->vulkanMs, 0, 'f', 3).arg(c->vulkanMs / c->cpuMs, 0, 'f', 2);
        QVERIFY2(backends->summaryLabel()->text().startsWith(summary), qPrintable(backends->summaryLabel()->text()));
        int fallbacks = 0;
        for (int row = 0; row < backends->table()->rowCount(); ++row)
            fallbacks += backends->table()->item(row, kRunsOnColumn)->text() == "CPU fallback";
        QCOMPARE(fallbacks, int(std::count_if(c->nodes.begin(), c->nodes.end(), [](const BackendNodeTimes& n) { return n.cpuFallback; })));
    }

    void aNodeTheVulkanPlanRanOnTheCpuKeepsItsReason() {
        ProfileResult cpu, vulkan;
        cpu.nodes.resize(2);
        vulkan.nodes.resize(2);
        for (int i = 0; i < 2; ++i) {
            cpu.nodes[size_t(i)].node = vulkan.nodes[size_t(i)].node = i;
            cpu.nodes[size_t(i)].ms.median = 1;
            vulkan.nodes[size_t(i)].ms.median = 2;
        }
        vulkan.nodes[0].device = "vulkan";
        vulkan.nodes[0].kernel = "vulkan:conv-texel";
        vulkan.nodes[1].device = "cpu";
        vulkan.nodes[1].kernel = "cpu-fallback:Tile [cpu:tile]";
        vulkan.nodes[1].why = "no shader for Tile";
        const BackendComparison c = compareBackends(cpu, vulkan);
        QCOMPARE(c.nodes.size(), size_t(2));
        QVERIFY(!c.nodes[0].cpuFallback);
        QCOMPARE(c.nodes[0].why, std::string());
        QVERIFY(c.nodes[1].cpuFallback);
        QCOMPARE(c.nodes[1].why, std::string("no shader for Tile"));
    }

    void aComparisonOfAStepNoLongerShownIsDropped() {
        MainWindow w;
        QVERIFY(backendsListed(w));
        BackendComparePanel* backends = w.profilePanel()->backendComparePanel();
        if (listVulkanDevices().devices.empty()) QSKIP("no Vulkan device");
        QVERIFY(openSample(w));
        w.profilePanel()->setProfileOptions({1, 3});
        QSignalSpy ready(backends, &BackendComparePanel::comparisonReady);
        backends->compareButton()->click();
        w.profilePanel()->dropProfile();  // what the window does when the after side changes
        QVERIFY(!backends->running());
        QVERIFY(!ready.wait(3000) || ready.isEmpty());
        QCOMPARE(backends->comparison(), nullptr);
        QCOMPARE(backends->table()->rowCount(), 0);
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestBackendCompare)
#include "tst_backend_compare.moc"
