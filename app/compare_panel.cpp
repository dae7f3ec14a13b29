// ComparePanel: like ProfilePanel, work runs in the profile thread and comes back tagged with a
// generation, so a comparison of sides no longer shown is dropped.
#include "app/compare_panel.h"

#include "app/background_profile.h"
#include "app/cli/profile_report.h"
#include "app/panel_orientation.h"
#include "app/pass_stepper.h"
#include "profiler/heat_scale.h"
#include "viewer/speedup_legend.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTableWidget>
#include <QThreadPool>
#include <QBoxLayout>

#include <algorithm>

namespace graphlens {
namespace {

constexpr int kControlsWidth = 300;  ///< the controls' column beside the table

/// Runs in the profile thread.
ProfileComparison compareOnCpu(const Model& original, const Model& before, const Model& after, const ProfileOptions& options) {
    const BackendProfile b = profileOnCpu(before, options);
    const BackendProfile a = profileOnCpu(after, options);
    return compareProfiles(graphWithShapes(original, b.inputShapes), before.graph, b.result, after.graph, a.result);
}

QTableWidgetItem* numberItem(double value, int decimals) {
    auto* item = new QTableWidgetItem;
    item->setData(Qt::DisplayRole, QString::number(value, 'f', decimals).toDouble());
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

/// Names of a group's original nodes, "a, b +3 more".
QString originNames(const ProfileComparison& c, size_t group) {
    QStringList names;
    for (const OriginCost& row : c.origins)
        if (row.group == group) names << QString::fromStdString(row.name);
    if (names.size() <= 2) return names.join(", ");
    return QStringLiteral("%1, %2 +%3 more").arg(names[0], names[1]).arg(names.size() - 2);
}

/// "the original graph" for step 0, "step 2" otherwise.
QString stepName(size_t step) {
    return step == 0 ? ComparePanel::tr("the original graph") : ComparePanel::tr("step %1").arg(step);
}

} // namespace

QString panelSummary(const ProfileComparison& comparison) {
    return QString::fromStdString(cli::comparisonSummary(comparison)).trimmed().replace(QStringLiteral("; "), QStringLiteral("\n"));
}

void ComparePanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    orientControls(*layout_, *controls_, size(), kControlsWidth);
}

bool ComparePanel::controlsBeside() const { return layout_->direction() == QBoxLayout::LeftToRight; }

CompareSides compareSides(const PassStepper& stepper, CompareBaseline baseline, size_t shownStep) {
    const size_t step = stepper.step();
    const size_t beforeStep = baseline == CompareBaseline::Original || step == 0 ? 0 : step - 1;
    return {stepper.sharedSnapshot(0), stepper.sharedSnapshot(beforeStep), stepper.sharedCurrent(), stepName(beforeStep),
            beforeStep == shownStep};
}

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
    button_ = new QPushButton(tr("Profile before and after"), this);
    summary_ = new QLabel(tr("Profiles both sides on the CPU and shows the speedup of each original node group."), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    baseline_ = new QComboBox(this);
    baseline_->addItem(tr("Original vs current step"));  // in CompareBaseline order
    baseline_->addItem(tr("Previous step vs current step"));
    baseline_->setToolTip(tr("What the current step is compared with: the model as loaded (what the passes so far "
                             "bought) or the step before it (what the last pass bought)"));
    overlay_ = new QCheckBox(tr("Color the before side by speedup"), this);
    overlay_->setToolTip(tr("Fills the compared graph's nodes by the speedup of their group: green faster, red slower"));
    overlay_->setChecked(true);
    perNode_ = new QCheckBox(tr("Per original node"), this);
    perNode_->setToolTip(tr("One row per node of the original graph with its share of each side's time, "
                            "instead of one row per group"));
    legend_ = new SpeedupLegend(this);
    colors_ = new QLabel(this);
    colors_->setWordWrap(true);
    table_ = new QTableWidget(0, kCompareColumns, this);
    table_->setHorizontalHeaderLabels({tr("Speedup"), tr("Before ms"), tr("After ms"), tr("Original nodes"), tr("Now")});
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setTextElideMode(Qt::ElideMiddle);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    // The figures take their width, the names share what is left: no sideways scrolling.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(kOriginalColumn, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(kNowColumn, QHeaderView::Stretch);
    // Room for a few rows even when the controls stack above the table in a short dock.
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() + 3 * table_->verticalHeader()->defaultSectionSize() + 4);
    table_->setToolTip(tr("A fused node's time is split among its original nodes by their FLOPs; "
                          "the speedup is that of the whole group (before ms / after ms)."));

    controls_ = new QWidget(this);
    auto* controls = new QVBoxLayout(controls_);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->setSpacing(4);
    for (QWidget* w : std::initializer_list<QWidget*>{baseline_, button_, summary_, overlay_, legend_, colors_, perNode_}) {
        w->setParent(controls_);
        controls->addWidget(w);
    }
    controls->addStretch(1);
    layout_ = arrangeControlsAndContent(*this, *controls_, *table_);
    connect(button_, &QPushButton::clicked, this, &ComparePanel::compareRequested);
    connect(overlay_, &QCheckBox::toggled, this, &ComparePanel::updateFills);
    connect(perNode_, &QCheckBox::toggled, this, [this] {
        if (comparison_) fillTable();
    });
    connect(overlay_, &QCheckBox::toggled, legend_, &QWidget::setVisible);  // the legend of the overlay
    connect(baseline_, &QComboBox::currentIndexChanged, this, &ComparePanel::dropComparison);  // another comparison
    updateColorsText();
    connect(table_, &QTableWidget::cellClicked, this, &ComparePanel::activateRow);
    connect(table_, &QTableWidget::cellActivated, this, &ComparePanel::activateRow);
}

void ComparePanel::setSpeedupOverlay(bool on) { overlay_->setChecked(on); }
bool ComparePanel::speedupOverlay() const { return overlay_->isChecked(); }
void ComparePanel::setPerNodeRows(bool on) { perNode_->setChecked(on); }
bool ComparePanel::perNodeRows() const { return perNode_->isChecked(); }
size_t ComparePanel::groupOfRow(int row) const {
    return perNode_->isChecked() ? comparison_->origins.at(size_t(row)).group : size_t(row);
}
CompareBaseline ComparePanel::baseline() const { return CompareBaseline(baseline_->currentIndex()); }
void ComparePanel::setBaseline(CompareBaseline baseline) { baseline_->setCurrentIndex(int(baseline)); }

void ComparePanel::startCompare(CompareSides sides) {
    const int generation = ++generation_;
    running_ = true;
    button_->setEnabled(false);
    summary_->setText(tr("Profiling %1 and the current step...").arg(sides.beforeName));
    beforeName_ = sides.beforeName;
    beforeShown_ = sides.beforeShown;
    runOnProfileThread<ProfileComparison>(
        this, generation,
        [original = std::move(sides.original), before = std::move(sides.before), after = std::move(sides.after),
         options = options_] { return compareOnCpu(*original, *before, *after, options); },
        &ComparePanel::finish);
}

void ComparePanel::finish(int generation, std::shared_ptr<std::optional<ProfileComparison>> result, const QString& error) {
    if (generation != generation_) return;
    running_ = false;
    button_->setEnabled(true);
    if (!*result) {
        summary_->setText(tr("Comparison failed: %1").arg(error));
        emit comparisonFailed(error);
        return;
    }
    comparison_ = std::move(*result);
    summary_->setText(panelSummary(*comparison_));
    fillTable();
    updateFills();
    emit comparisonReady();
}

void ComparePanel::dropComparison() {
    ++generation_;
    running_ = false;
    button_->setEnabled(true);
    const bool had = comparison_.has_value();
    comparison_.reset();
    table_->setRowCount(0);
    summary_->setText(tr("Profiles both sides on the CPU and shows the speedup of each original node group."));
    if (had) updateFills();
    updateColorsText();
}

void ComparePanel::updateColorsText() {
    if (!comparison_) colors_->setText(tr("Colors the compared graph's nodes by the speedup of their group."));
    else if (beforeShown_) colors_->setText(tr("The colors on the before side are for %1.").arg(beforeName_));
    else
        colors_->setText(tr("The colors are for %1, which the before side does not show now, so it is left uncolored; "
                            "step back to step 1, or compare with the previous step, to see them.").arg(beforeName_));
}

void ComparePanel::updateFills() {
    fills_.clear();
    updateColorsText();
    if (comparison_ && overlay_->isChecked() && beforeShown_)
        for (const auto& [node, group] : comparison_->groupOfBefore) {
            const Rgb c = speedupColor(comparison_->groups[group].speedup());
            fills_[node] = QColor(c.r, c.g, c.b);
        }
    emit beforeFillsChanged();
}

void ComparePanel::fillTable() {
    const ProfileComparison& c = *comparison_;
    const bool perNode = perNode_->isChecked();
    table_->setRowCount(int(perNode ? c.origins.size() : c.groups.size()));
    for (int row = 0; row < table_->rowCount(); ++row) {
        const size_t group = groupOfRow(row);
        const CostGroup& g = c.groups[group];
        // Per node, the group's figures go on its first row only (as the CLI prints them).
        const bool groupRow = !perNode || row == 0 || groupOfRow(row - 1) != group;
        QString original = originNames(c, group);
        double beforeMs = g.beforeMs, afterMs = g.afterMs;
        if (perNode) {
            const OriginCost& o = c.origins[size_t(row)];
            original = QStringLiteral("%1 (%2)").arg(QString::fromStdString(o.name), QString::fromStdString(o.op));
            beforeMs = o.beforeMs, afterMs = o.afterMs;
        }
        auto* names = new QTableWidgetItem(original);
        names->setToolTip(original);
        names->setData(Qt::UserRole, g.beforeNodes.empty() ? kNoId : g.beforeNodes.front());
        table_->setItem(row, kOriginalColumn, names);
        QString now = g.afterLabels.empty() ? tr("(gone)") : QString::fromStdString(g.afterLabels.front());
        if (g.afterLabels.size() > 1) now += tr(" +%1 more").arg(g.afterLabels.size() - 1);
        table_->setItem(row, kNowColumn, new QTableWidgetItem(groupRow ? now : QString()));
        table_->setItem(row, kBeforeMsColumn, numberItem(beforeMs, 4));
        table_->setItem(row, kAfterMsColumn, numberItem(afterMs, 4));
        auto* speedup = new QTableWidgetItem(groupRow ? QString::fromStdString(speedupText(g.speedup())) : QString());
        speedup->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, kSpeedupColumn, speedup);
    }
}

void ComparePanel::activateRow(int row) {
    if (!comparison_ || row < 0 || row >= table_->rowCount()) return;
    const CostGroup& g = comparison_->groups[groupOfRow(row)];
    // A per-node row focuses its own node where the before side has it.
    const NodeId own = perNode_->isChecked() ? comparison_->origins[size_t(row)].origin : kNoId;
    if (beforeShown_ && std::find(g.beforeNodes.begin(), g.beforeNodes.end(), own) != g.beforeNodes.end())
        emit nodeActivated(own);
    else if (beforeShown_ && !g.beforeNodes.empty()) emit nodeActivated(g.beforeNodes.front());
    else if (!beforeShown_ && !g.afterNodes.empty()) emit afterNodeActivated(g.afterNodes.front());
}

} // namespace graphlens
