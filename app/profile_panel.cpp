// ProfilePanel: profiles run on their own worker thread and come back to the UI thread tagged with
// a generation, so a profile of a graph no longer shown is dropped; the heatmap and the hotspot
// table are rebuilt from the kept ProfileResult.
#include "app/profile_panel.h"

#include "app/backend_compare_panel.h"
#include "app/background_profile.h"
#include "app/compare_panel.h"
#include "app/panel_orientation.h"
#include "profiler/run_timeline.h"
#include "viewer/heat_legend_widget.h"
#include "viewer/memory_chart.h"
#include "viewer/timeline_view.h"

#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QThreadPool>
#include <QVBoxLayout>

namespace graphlens {
namespace {

constexpr int kControlsWidth = 270;  ///< the controls' column beside the tabs
constexpr int kNarrowTable = 480;    ///< a hotspot table narrower than this hides GFLOP/s

/// Whether `overlay` shows a figure of the node's own run, which a node that ran inside another
/// node's kernel does not have.
bool measuredOverlay(HeatOverlay overlay) { return overlay == HeatOverlay::Time || overlay == HeatOverlay::Gflops; }

/// The value `overlay` reads from `p`; empty when the node has none.
std::optional<double> overlayValue(HeatOverlay overlay, const NodeProfile& p) {
    if (measuredOverlay(overlay) && fusedAway(p)) return std::nullopt;
    switch (overlay) {
    case HeatOverlay::None: return std::nullopt;
    case HeatOverlay::Error: return std::nullopt;  // not a profile figure
    case HeatOverlay::Time: return p.ms.median / 1000;
    case HeatOverlay::Memory: return double(p.outputBytes);
    case HeatOverlay::Flops: return p.flops ? std::optional<double>(double(*p.flops)) : std::nullopt;
    case HeatOverlay::Gflops: return p.flops ? std::optional<double>(p.gflops() * 1e9) : std::nullopt;
    }
    return std::nullopt;
}

/// Legend title and unit of each overlay, in HeatOverlay order.
struct OverlayText {
    const char* label;
    const char* title;
    const char* unit;
};
constexpr OverlayText kOverlays[] = {
    {"None", "", ""},
    {"Time", "median time per node", "s"},
    {"Memory", "output bytes per node", "B"},
    {"FLOPs", "FLOPs per node", "FLOP"},
    {"GFLOP/s", "achieved throughput", "FLOP/s"},
    {"Error", "max relative error per node (Comparison)", ""},
};

/// A table cell that sorts by `value` and shows it rounded to `decimals`.
QTableWidgetItem* numberItem(double value, int decimals) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, QString::number(value, 'f', decimals).toDouble());
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

/// The Hotspots table: the node's name takes the room left by the op and the figures, each sized
/// to its contents, so Median and Share stay in view in a narrow column; long names elide.
void setUpHotspotTable(QTableWidget& table) {
    table.setHorizontalHeaderLabels({ProfilePanel::tr("Node"), ProfilePanel::tr("Op"), ProfilePanel::tr("Median ms"),
                                     ProfilePanel::tr("Share %"), ProfilePanel::tr("GFLOP/s")});
    table.horizontalHeaderItem(kMedianColumn)->setToolTip(ProfilePanel::tr("Median time of the node over the runs"));
    table.horizontalHeaderItem(kShareColumn)->setToolTip(ProfilePanel::tr("The node's share of the sum of the node times"));
    table.setEditTriggers(QAbstractItemView::NoEditTriggers);
    table.setSelectionBehavior(QAbstractItemView::SelectRows);
    table.setSelectionMode(QAbstractItemView::SingleSelection);
    table.setTextElideMode(Qt::ElideLeft);  // "…layer4.2/conv3/Conv": a scoped name's end says most
    table.setWordWrap(false);
    table.verticalHeader()->hide();
    table.verticalHeader()->setDefaultSectionSize(table.fontMetrics().height() + 6);
    QHeaderView* header = table.horizontalHeader();
    header->setMinimumSectionSize(48);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(kNodeColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(kOpColumn, QHeaderView::Interactive);  // fitHotspotColumns() caps it
}

} // namespace

/// "FusedConv" for "com.microsoft:FusedConv": the domain goes to the tooltip.
QString bareOp(const std::string& op) {
    const size_t colon = op.rfind(':');
    return QString::fromStdString(colon == std::string::npos ? op : op.substr(colon + 1));
}

ProfilePanel::ProfilePanel(QWidget* parent) : QWidget(parent) {
    controls_ = new QWidget(this);
    backend_ = new QComboBox(controls_);
    // A long device name must not widen the dock: the combo shows its start, the list all of it.
    backend_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    backend_->setMinimumContentsLength(8);
    runButton_ = new QPushButton(tr("Profile on CPU"), controls_);
    busy_ = new QProgressBar(controls_);
    busy_->setRange(0, 0);  // busy: no known progress
    busy_->setTextVisible(false);
    busy_->setMaximumHeight(8);
    busy_->hide();
    summary_ = new QLabel(tr("No profile"), controls_);
    summary_->setObjectName("profileSummary");
    summary_->setWordWrap(true);
    overlay_ = new QComboBox(controls_);
    for (const OverlayText& o : kOverlays) overlay_->addItem(tr(o.label));
    overlay_->setToolTip(tr("The per-node figure the after side is colored by"));
    scale_ = new QComboBox(controls_);
    scale_->addItem(tr("Linear"));
    scale_->addItem(tr("Log"));
    scale_->setCurrentIndex(1);
    scale_->setToolTip(tr("How the colors map the figure: linear or logarithmic"));
    legend_ = new HeatLegendWidget(controls_);
    hotspots_ = new QTableWidget(0, kHotspotColumns, this);
    setUpHotspotTable(*hotspots_);
    hotspots_->viewport()->installEventFilter(this);

    auto* controlsLayout = new QVBoxLayout(controls_);
    controlsLayout->setContentsMargins(0, 0, 0, 0);
    auto* backendRow = new QHBoxLayout;
    backendRow->addWidget(new QLabel(tr("Backend"), controls_));
    backendRow->addWidget(backend_, 1);
    controlsLayout->addLayout(backendRow);
    controlsLayout->addWidget(runButton_);
    controlsLayout->addWidget(busy_);
    controlsLayout->addWidget(summary_);
    auto* heatRow = new QHBoxLayout;  // figure and scale on one row: height is scarce below the graphs
    heatRow->addWidget(new QLabel(tr("Heatmap"), controls_));
    heatRow->addWidget(overlay_, 1);
    heatRow->addWidget(scale_);
    controlsLayout->addLayout(heatRow);
    controlsLayout->addWidget(legend_);
    controlsLayout->addStretch(1);

    timeline_ = new TimelineView(this);
    memoryChart_ = new MemoryChart(this);
    compare_ = new ComparePanel(this);
    backendCompare_ = new BackendComparePanel(this);
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    tabs_->addTab(hotspots_, tr("Hotspots"));
    tabs_->addTab(timeline_, tr("Timeline"));
    tabs_->addTab(memoryChart_, tr("Memory"));
    tabs_->addTab(compare_, tr("Before/After"));
    tabs_->addTab(backendCompare_, tr("Backends"));
    layout_ = arrangeControlsAndContent(*this, *controls_, *tabs_);

    fillBackends();
    connect(backend_, &QComboBox::currentIndexChanged, this, &ProfilePanel::backendChosen);
    connect(backendCompare_, &BackendComparePanel::nodeActivated, this, &ProfilePanel::nodeActivated);
    connect(runButton_, &QPushButton::clicked, this, &ProfilePanel::profileRequested);
    connect(overlay_, &QComboBox::currentIndexChanged, this, &ProfilePanel::updateHeatmap);
    connect(scale_, &QComboBox::currentIndexChanged, this, &ProfilePanel::updateHeatmap);
    connect(hotspots_, &QTableWidget::cellClicked, this, &ProfilePanel::activateRow);
    connect(hotspots_, &QTableWidget::cellActivated, this, &ProfilePanel::activateRow);
    connect(timeline_, &TimelineView::nodeClicked, this, &ProfilePanel::nodeActivated);
    connect(memoryChart_, &MemoryChart::nodeClicked, this, &ProfilePanel::nodeActivated);
}

QString shortBackendName(const QString& name) {
    const qsizetype paren = name.indexOf(QStringLiteral(" ("));
    return paren < 0 ? name : name.left(paren);
}

void ProfilePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    orientControls(*layout_, *controls_, size(), kControlsWidth);
}

bool ProfilePanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == hotspots_->viewport() && event->type() == QEvent::Resize) fitHotspotColumns();
    return QWidget::eventFilter(watched, event);
}

void ProfilePanel::fitHotspotColumns() {
    const int width = hotspots_->viewport()->width();
    // In a narrow column the figures that matter most keep their room: GFLOP/s goes first.
    hotspots_->setColumnHidden(kGflopsColumn, width < kNarrowTable);
    const int op = std::max(opColumnWidth_, hotspots_->horizontalHeader()->sectionSizeHint(kOpColumn));
    hotspots_->horizontalHeader()->resizeSection(kOpColumn, std::min(op, width * 3 / 10));
}

bool ProfilePanel::controlsBeside() const { return layout_->direction() == QBoxLayout::LeftToRight; }

void ProfilePanel::setProfileOptions(ProfileOptions options) {
    options_ = options;
    compare_->setProfileOptions(options);
    backendCompare_->setProfileOptions(options);
}

void ProfilePanel::fillBackends() {
    backend_->addItem(tr("CPU"), -1);  // item data: the Vulkan device index, -1 for the CPU
    backend_->setToolTip(tr("Looking for Vulkan devices..."));
    // Creating a Vulkan instance takes ~0.2 s (lavapipe): off the UI thread, so the window and
    // the model's first frame do not wait for it.
    QPointer<ProfilePanel> self(this);
    QThread* lister = QThread::create([self] {
        (void)vulkanDevicesOnce();
        QMetaObject::invokeMethod(qApp, [self] {
            if (self) self->addVulkanDevices();
        }, Qt::QueuedConnection);
    });
    connect(lister, &QThread::finished, lister, &QObject::deleteLater);
    lister_ = lister;
    lister->start();
}

ProfilePanel::~ProfilePanel() {
    if (lister_) lister_->wait();
}

void ProfilePanel::addVulkanDevices() {
    const DeviceListing& listing = vulkanDevicesOnce();
    for (const ComputeDevice& d : listing.devices)
        backend_->addItem(tr("Vulkan: %1").arg(QString::fromStdString(d.name)), d.index);
    if (listing.devices.empty())
        backend_->setToolTip(tr("Only the CPU: %1").arg(QString::fromStdString(listing.problem)));
    else
        backend_->setToolTip(tr("The backend profiles run on; Backends compares the CPU with the Vulkan device chosen "
                                "here (the first one while the CPU is chosen)"));
    const int device = backend_->currentData().toInt();
    backendCompare_->setVulkanDevice(device >= 0 ? device : 0);
    backendsListed_ = true;
    emit backendsListed();
}

void ProfilePanel::backendChosen(int index) {
    runButton_->setText(tr("Profile on %1").arg(shortBackendName(backend_->itemText(index))));
    runButton_->setToolTip(tr("Profile the graph after the current step on %1").arg(backend_->itemText(index)));
    const int device = backend_->itemData(index).toInt();
    if (device >= 0) backendCompare_->setVulkanDevice(device);
}

HeatOverlay ProfilePanel::overlay() const { return HeatOverlay(overlay_->currentIndex()); }
void ProfilePanel::setOverlay(HeatOverlay overlay) { overlay_->setCurrentIndex(int(overlay)); }
HeatScaleKind ProfilePanel::scaleKind() const { return scale_->currentIndex() == 0 ? HeatScaleKind::Linear : HeatScaleKind::Log; }
void ProfilePanel::setScaleKind(HeatScaleKind kind) { scale_->setCurrentIndex(kind == HeatScaleKind::Linear ? 0 : 1); }

void ProfilePanel::startProfile(std::shared_ptr<const Model> model) {
    const int generation = ++generation_;
    setBusy(true);
    summary_->setText(tr("Profiling..."));
    const int device = backend_->currentData().toInt();
    const BackendChoice choice = device < 0 ? BackendChoice{"cpu", -1} : BackendChoice{"vulkan", device};
    runOnProfileThread<BackendProfile>(
        this, generation, [model = std::move(model), choice, options = options_] { return profileOn(*model, choice, options); },
        &ProfilePanel::finishProfile);
}

void ProfilePanel::finishProfile(int generation, std::shared_ptr<std::optional<BackendProfile>> result, const QString& error) {
    if (generation != generation_) return;  // a newer profile was asked for, or the graph changed
    setBusy(false);
    if (!*result) {
        summary_->setText(tr("Profile failed: %1").arg(error));
        emit profileFailed(error);
        return;
    }
    profileBackend_ = (*result)->backend;
    profile_ = std::move((*result)->result);
    const auto fused = std::count_if(profile_->nodes.begin(), profile_->nodes.end(), fusedAway);
    summary_->setText(tr("%1 nodes · run median %2 ms · %3 runs on %4")
                          .arg(profile_->nodes.size())
                          .arg(profile_->runMs.median, 0, 'f', 3)
                          .arg(profile_->runs)
                          .arg(QString::fromStdString(profileBackend_)) +
                      (fused ? tr(" · %1 ran inside other nodes' kernels (grey on the heatmap)").arg(fused) : QString()));
    fillHotspots();
    fillTimelineAndMemory();
    if (overlay() == HeatOverlay::None) setOverlay(HeatOverlay::Time);  // calls updateHeatmap()
    else updateHeatmap();
    emit profileReady();
}

void ProfilePanel::dropProfile() {
    ++generation_;
    setBusy(false);
    profile_.reset();
    profileBackend_.clear();
    summary_->setText(tr("No profile"));
    hotspots_->setRowCount(0);
    timeline_->clear();
    memoryChart_->clear();
    compare_->dropComparison();
    backendCompare_->dropComparison();
    updateHeatmap();
}

void ProfilePanel::setBusy(bool busy) {
    running_ = busy;
    busy_->setVisible(busy);
    runButton_->setEnabled(!busy);
}

std::unordered_map<NodeId, double> ProfilePanel::overlayValues() const {
    std::unordered_map<NodeId, double> values;
    if (!profile_) return values;
    for (const NodeProfile& p : profile_->nodes)
        if (const auto v = overlayValue(overlay(), p)) values[p.node] = *v;
    return values;
}

void ProfilePanel::updateHeatmap() {
    fills_.clear();
    if (overlay() == HeatOverlay::Error) {
        const OverlayText& text = kOverlays[int(HeatOverlay::Error)];
        legend_->setScale(HeatScale(1e-7, 1.0, HeatScaleKind::Log), tr(text.title), QString());
        emit nodeFillsChanged();
        emit errorOverlayChosen();
        return;
    }
    const std::unordered_map<NodeId, double> values = overlayValues();
    if (values.empty()) {
        legend_->clear();
    } else {
        std::vector<double> all;
        for (const auto& [node, value] : values) all.push_back(value);
        const HeatScale scale = HeatScale::spanning(all, scaleKind());
        for (const auto& [node, value] : values) {
            const Rgb c = scale.color(value);
            fills_[node] = QColor(c.r, c.g, c.b);
        }
        // Nodes the backend ran inside another node's kernel (an activation in its convolution's)
        // have no time of their own: grey, off the ramp; the summary line says how many.
        if (measuredOverlay(overlay()))
            for (const NodeProfile& p : profile_->nodes)
                if (fusedAway(p)) fills_[p.node] = QColor(kFusedNodeColor.r, kFusedNodeColor.g, kFusedNodeColor.b);
        const OverlayText& text = kOverlays[int(overlay())];
        legend_->setScale(scale, tr(text.title), QString::fromUtf8(text.unit));
    }
    emit nodeFillsChanged();
}

void ProfilePanel::fillHotspots() {
    hotspots_->setSortingEnabled(false);
    hotspots_->setRowCount(int(profile_->nodes.size()));
    opColumnWidth_ = 0;
    for (int row = 0; row < int(profile_->nodes.size()); ++row) {
        const NodeProfile& p = profile_->nodes[size_t(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(p.name));
        name->setData(Qt::UserRole, p.node);
        name->setToolTip(name->text());
        hotspots_->setItem(row, kNodeColumn, name);
        auto* op = new QTableWidgetItem(bareOp(p.op));
        opColumnWidth_ = std::max(opColumnWidth_, hotspots_->fontMetrics().horizontalAdvance(op->text()) + 12);
        op->setToolTip(QString::fromStdString(p.op));  // with its domain: "com.microsoft:FusedConv"
        hotspots_->setItem(row, kOpColumn, op);
        hotspots_->setItem(row, kMedianColumn, numberItem(p.ms.median, 4));
        hotspots_->setItem(row, kShareColumn, numberItem(p.share * 100, 1));
        hotspots_->setItem(row, kGflopsColumn, numberItem(p.gflops(), 2));
    }
    hotspots_->setSortingEnabled(true);
    hotspots_->sortItems(kMedianColumn, Qt::DescendingOrder);
    fitHotspotColumns();
}

void ProfilePanel::fillTimelineAndMemory() {
    const std::vector<std::vector<NodeEvent>> runs = splitRuns(profile_->events);
    const size_t run = medianRun(runs);
    if (runs.empty()) timeline_->clear();
    else
        timeline_->setBars(timelineBars(runs[run], profile_->nodes),
                           tr("run %1 of %2 (median span %3 ms)").arg(run + 1).arg(runs.size()).arg(runSpanMs(runs[run]), 0, 'f', 3));
    memoryChart_->setSteps(profile_->memorySteps, profile_->memory.arenaBytes, profile_->memory.naiveBytes);
    selectNode(selectedNode_);
}

void ProfilePanel::selectNode(NodeId node) {
    selectedNode_ = node;
    timeline_->selectNode(node);
    memoryChart_->selectNode(node);
}

void ProfilePanel::activateRow(int row) {
    if (const QTableWidgetItem* name = hotspots_->item(row, kNodeColumn))
        emit nodeActivated(name->data(Qt::UserRole).value<NodeId>());
}

} // namespace graphlens
