// BackendComparePanel: like the other profile panels, work runs in the profile thread and comes
// back tagged with a generation, so a comparison of a step no longer shown is dropped.
#include "app/backend_compare_panel.h"

#include "app/background_profile.h"
#include "app/panel_orientation.h"
#include "app/profile_panel.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTableWidget>
#include <QThreadPool>
#include <QBoxLayout>

#include <algorithm>
#include <unordered_map>

namespace graphlens {
namespace {

QTableWidgetItem* numberItem(double value, int decimals) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, QString::number(value, 'f', decimals).toDouble());
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString idleText() {
    return BackendComparePanel::tr("Profiles the current step on the CPU and on the Vulkan device and shows the "
                                   "median time of each node on both.");
}

/// Runs in the profile thread: the CPU first, then Vulkan, one after the other.
BackendComparison profileBothBackends(const Model& model, int device, const ProfileOptions& options) {
    const BackendProfile cpu = profileOn(model, {"cpu", -1}, options);
    const BackendProfile vulkan = profileOn(model, {"vulkan", device}, options);
    BackendComparison c = compareBackends(cpu.result, vulkan.result);
    for (const ComputeDevice& d : vulkanDevicesOnce().devices)
        if (d.index == device) c.device = d.name;
    return c;
}

} // namespace

BackendComparison compareBackends(const ProfileResult& cpu, const ProfileResult& vulkan) {
    std::unordered_map<NodeId, const NodeProfile*> onVulkan;
    for (const NodeProfile& p : vulkan.nodes) onVulkan[p.node] = &p;
    BackendComparison c;
    c.cpuMs = cpu.runMs.median;
    c.vulkanMs = vulkan.runMs.median;
    for (const NodeProfile& p : cpu.nodes) {
        const auto v = onVulkan.find(p.node);
        if (v == onVulkan.end()) continue;
        const NodeProfile& onGpu = *v->second;
        c.nodes.push_back({p.node, p.name, p.op, p.ms.median, onGpu.ms.median, onGpu.device == "cpu", onGpu.kernel, onGpu.why});
    }
    return c;
}

void BackendComparePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    orientControls(*layout_, *controls_, size(), 240);
}

BackendComparePanel::BackendComparePanel(QWidget* parent) : QWidget(parent) {
    button_ = new QPushButton(tr("Compare backends"), this);
    summary_ = new QLabel(idleText(), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_ = new QTableWidget(0, kBackendColumns, this);
    table_->setHorizontalHeaderLabels({tr("Node"), tr("Op"), tr("CPU ms"), tr("Vulkan ms"),
                                       tr("Vulkan/CPU"), tr("On Vulkan"), tr("Why")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(kBackendNodeColumn, QHeaderView::Stretch);
    // Reasons can be long: the column keeps a readable width and the tooltip has the sentence.
    table_->horizontalHeader()->setSectionResizeMode(kWhyColumn, QHeaderView::Interactive);
    table_->setColumnWidth(kWhyColumn, 16 * table_->fontMetrics().averageCharWidth());

    controls_ = new QWidget(this);
    auto* controls = new QVBoxLayout(controls_);
    controls->setContentsMargins(0, 0, 0, 0);
    button_->setParent(controls_);
    summary_->setParent(controls_);
    controls->addWidget(button_);
    controls->addWidget(summary_);
    controls->addStretch(1);
    layout_ = arrangeControlsAndContent(*this, *controls_, *table_);
    connect(button_, &QPushButton::clicked, this, &BackendComparePanel::compareRequested);
    connect(table_, &QTableWidget::cellClicked, this, &BackendComparePanel::activateRow);
    connect(table_, &QTableWidget::cellActivated, this, &BackendComparePanel::activateRow);
    // Disabled until the Vulkan devices are listed (ProfilePanel calls setVulkanDevice() then).
    button_->setEnabled(false);
    button_->setToolTip(tr("Looking for Vulkan devices..."));
}

void BackendComparePanel::setVulkanDevice(int index) {
    device_ = index;
    const DeviceListing& listing = vulkanDevicesOnce();
    haveDevice_ = !listing.devices.empty();
    if (listing.devices.empty()) {
        button_->setToolTip(tr("No Vulkan device to compare with: %1").arg(QString::fromStdString(listing.problem)));
    } else {
        QString name;
        for (const ComputeDevice& d : listing.devices)
            if (d.index == index) name = QString::fromStdString(d.name);
        button_->setToolTip(tr("Profiles the current step on the CPU, then on %1").arg(name));
    }
    setRunning(running_);
}

void BackendComparePanel::setRunning(bool running) {
    running_ = running;
    button_->setEnabled(!running && haveDevice_);
}

void BackendComparePanel::startCompare(std::shared_ptr<const Model> model) {
    const int generation = ++generation_;
    setRunning(true);
    summary_->setText(tr("Profiling on the CPU, then on Vulkan..."));
    runOnProfileThread<BackendComparison>(
        this, generation,
        [model = std::move(model), device = device_, options = options_] { return profileBothBackends(*model, device, options); },
        &BackendComparePanel::finish);
}

void BackendComparePanel::finish(int generation, std::shared_ptr<std::optional<BackendComparison>> result, const QString& error) {
    if (generation != generation_) return;
    setRunning(false);
    if (!*result) {
        summary_->setText(tr("Comparison failed: %1").arg(error));
        emit comparisonFailed(error);
        return;
    }
    comparison_ = std::move(*result);
    summary_->setText(tr("CPU %1 ms, Vulkan %2 ms (Vulkan/CPU %3) on %4")
                          .arg(comparison_->cpuMs, 0, 'f', 3)
                          .arg(comparison_->vulkanMs, 0, 'f', 3)
                          .arg(comparison_->ratio(), 0, 'f', 2)
                          .arg(QString::fromStdString(comparison_->device)));
    fillTable();
    emit comparisonReady();
}

void BackendComparePanel::dropComparison() {
    ++generation_;
    setRunning(false);
    comparison_.reset();
    table_->setRowCount(0);
    summary_->setText(idleText());
}

void BackendComparePanel::fillTable() {
    const std::vector<BackendNodeTimes>& nodes = comparison_->nodes;
    table_->setSortingEnabled(false);
    table_->setRowCount(int(nodes.size()));
    for (int row = 0; row < int(nodes.size()); ++row) {
        const BackendNodeTimes& n = nodes[size_t(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(n.name));
        name->setData(Qt::UserRole, n.node);
        name->setToolTip(name->text());
        table_->setItem(row, kBackendNodeColumn, name);
        auto* op = new QTableWidgetItem(bareOp(n.op));
        op->setToolTip(QString::fromStdString(n.op));
        table_->setItem(row, kBackendOpColumn, op);
        table_->setItem(row, kCpuMsColumn, numberItem(n.cpuMs, 4));
        table_->setItem(row, kVulkanMsColumn, numberItem(n.vulkanMs, 4));
        table_->setItem(row, kRatioColumn, numberItem(n.ratio(), 2));
        auto* runsOn = new QTableWidgetItem(n.cpuFallback ? tr("CPU fallback") : tr("shader"));
        runsOn->setToolTip(QString::fromStdString(n.vulkanKernel));
        if (n.cpuFallback) runsOn->setForeground(QColor(0xb0, 0x40, 0x00));
        table_->setItem(row, kRunsOnColumn, runsOn);
        auto* why = new QTableWidgetItem(QString::fromStdString(n.why));
        why->setToolTip(why->text());
        table_->setItem(row, kWhyColumn, why);
    }
    // The reasons take room only when some node ran on the CPU: otherwise the node names get it.
    table_->setColumnHidden(kWhyColumn, std::none_of(nodes.begin(), nodes.end(), [](const BackendNodeTimes& n) { return n.cpuFallback; }));
    table_->setSortingEnabled(true);
}

void BackendComparePanel::activateRow(int row) {
    if (const QTableWidgetItem* name = table_->item(row, kBackendNodeColumn))
        emit nodeActivated(name->data(Qt::UserRole).value<NodeId>());
}

} // namespace graphlens
