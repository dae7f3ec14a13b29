// PassPanel: the pass work is a TaskRunner task that reads a snapshot of the current step and
// hands its steps back to commitSteps() on the UI thread.
#include "app/pass_panel.h"

#include "app/task_runner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLocale>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include <cstdlib>
#include <limits>
#include <utility>

namespace graphlens {

QString verificationText(const VerifyReport& v) {
    if (!v.passed) return PassPanel::tr("verification failed: %1").arg(QString::fromStdString(v.failure));
    return PassPanel::tr("verified: max abs error %1, max rel error %2 (%3 outputs, %4 intermediates compared)")
        .arg(v.maxAbsError, 0, 'g', 3)
        .arg(v.maxRelError, 0, 'g', 3)
        .arg(v.outputsCompared)
        .arg(v.intermediatesCompared);
}

PassPanel::PassPanel(TaskRunner* tasks, QWidget* parent) : QWidget(parent), tasks_(tasks) {
    auto* layout = new QVBoxLayout(this);
    compareBox_ = new QComboBox(this);
    compareBox_->addItem(tr("Original"));  // in CompareWith order
    compareBox_->addItem(tr("Previous step"));
    compareBox_->setToolTip(tr("What the left pane shows against the current step on the right: the model as loaded "
                               "(what all the passes so far changed) or the step before (what the last pass changed)"));
    auto* compareRow = new QFormLayout;
    compareRow->addRow(tr("Compare with:"), compareBox_);
    layout->addLayout(compareRow);
    connect(compareBox_, &QComboBox::currentIndexChanged, this, [this](int index) { emit compareWithChanged(CompareWith(index)); });
    bisect_ = new QPushButton(tr("Bisect the pipeline"), this);
    bisect_->setObjectName("bisectButton");
    bisect_->setToolTip(tr("Apply the enabled passes to the loaded model one at a time, compare each result with it "
                           "tensor by tensor, and select the first pass whose result diverges beyond 1e-3 relative error"));
    connect(bisect_, &QPushButton::clicked, this, &PassPanel::bisectRequested);
    layout->addWidget(bisect_);
    passList_ = new QListWidget(this);
    layout->addWidget(passList_);
    verifyBox_ = new QCheckBox(tr("Verify each step"), this);
    verifyBox_->setToolTip(tr("Run the graph before and after each pass on the same random inputs and show the largest error"));
    layout->addWidget(verifyBox_);
    // Two rows of buttons as narrow as their labels, so the dock can be a narrow column.
    auto* buttons = new QGridLayout;
    int column = 0;
    for (auto [label, slot] : {std::pair{tr("Next"), &PassPanel::applyNext}, std::pair{tr("All"), &PassPanel::applyAll},
                               std::pair{tr("Back"), &PassPanel::stepBack}, std::pair{tr("Forward"), &PassPanel::stepForward},
                               std::pair{tr("Reset"), &PassPanel::reset}}) {
        auto* b = new QPushButton(label, this);
        b->setMinimumWidth(b->fontMetrics().horizontalAdvance(label) + 24);
        connect(b, &QPushButton::clicked, this, slot);
        const bool firstRow = column < 2;  // Next, All | Back, Forward, Reset
        buttons->addWidget(b, firstRow ? 0 : 1, firstRow ? column * 3 : (column - 2) * 2, 1, firstRow ? 3 : 2);
        ++column;
    }
    layout->addLayout(buttons);
    connect(passList_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        stepper_.setEnabled(size_t(passList_->row(item)), item->checkState() == Qt::Checked);
    });
    connect(this, &PassPanel::stepChanged, this, &PassPanel::markSteps);  // before the window shows the step
}

CompareWith PassPanel::compareWith() const { return CompareWith(compareBox_->currentIndex()); }
void PassPanel::setCompareWith(CompareWith with) { compareBox_->setCurrentIndex(int(with)); }

QString PassPanel::passLabel(const PassStepper& stepper, size_t pass) {
    QString label = QString::fromStdString(stepper.passIds().at(pass));
    for (size_t step = 1; step <= stepper.step(); ++step) {
        if (stepper.passOfStep(step) != pass) continue;
        const size_t rewrites = stepper.resultOf(step).rewrites.size();
        if (rewrites == 0) return label + tr(" · no change");
        label += rewrites == 1 ? tr(" · 1 rewrite") : tr(" · %1 rewrites").arg(QLocale().toString(qulonglong(rewrites)));
        const auto delta = qlonglong(stepper.snapshot(step).graph.nodeCount()) - qlonglong(stepper.snapshot(step - 1).graph.nodeCount());
        if (delta != 0) label += tr(" · %1%2 nodes").arg(delta > 0 ? "+" : "\u2212").arg(QLocale().toString(std::abs(delta)));
        return label;
    }
    return label;
}

void PassPanel::markSteps() {
    const QSignalBlocker block(passList_);  // the check boxes do not change
    const size_t currentPass = stepper_.step() == 0 ? size_t(-1) : stepper_.passOfStep(stepper_.step());
    std::vector<bool> ran(stepper_.passIds().size(), false);
    for (size_t step = 1; step <= stepper_.step(); ++step) ran[stepper_.passOfStep(step)] = true;
    for (int row = 0; row < passList_->count(); ++row) {
        QListWidgetItem* item = passList_->item(row);
        const auto pass = size_t(row);
        const QString label = passLabel(stepper_, pass);
        const bool current = pass == currentPass;
        item->setText(current ? tr("\u25B6 %1").arg(label) : label);
        QFont font = item->font();
        font.setBold(current);
        item->setFont(font);
        const bool nothing = ran[pass] && label.endsWith(tr(" · no change"));
        item->setForeground(nothing ? palette().brush(QPalette::Disabled, QPalette::Text) : palette().brush(QPalette::Text));
        QColor mark = palette().color(QPalette::Highlight);
        mark.setAlpha(50);
        item->setBackground(current ? QBrush(mark) : QBrush());
    }
}

bool PassPanel::verifySteps() const { return verifyBox_->isChecked(); }
void PassPanel::setVerifySteps(bool on) { verifyBox_->setChecked(on); }

bool PassPanel::idleWithModel() const { return hasModel_ && !tasks_->running(); }

void PassPanel::startOver(const Model& original) {
    hasModel_ = true;
    stepper_.reset(original);
    fillPassList();
    emit stepChanged();
}

void PassPanel::reset() {
    if (!idleWithModel()) return;
    const Model original = stepper_.original();  // reset() replaces the snapshot it is read from
    startOver(original);
}

void PassPanel::fillPassList() {
    const QSignalBlocker block(passList_);
    passList_->clear();
    for (size_t i = 0; i < stepper_.passIds().size(); ++i) {
        auto* item = new QListWidgetItem(QString::fromStdString(stepper_.passIds()[i]), passList_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
        item->setToolTip(QString::fromStdString(stepper_.title(i) + "\n\n" + stepper_.explanation(i)));
    }
}

void PassPanel::moveGuarded(const std::function<void()>& move) {
    if (!idleWithModel()) return;
    try {
        move();
    } catch (const std::exception& e) {
        QMessageBox::critical(window(), tr("Pass failed"), QString::fromUtf8(e.what()));
    }
    emit stepChanged();
}

void PassPanel::stepBack() { moveGuarded([this] { stepper_.stepBack(); }); }
void PassPanel::stepForward() { moveGuarded([this] { stepper_.stepForward(); }); }

void PassPanel::applyNext() { startApplying(1); }
void PassPanel::applyAll() { startApplying(std::numeric_limits<size_t>::max()); }

void PassPanel::startApplying(size_t count) {
    if (!idleWithModel()) return;
    std::vector<PassToRun> passes;
    for (size_t pass : stepper_.pendingPasses())
        if (passes.size() < count) passes.push_back({pass, stepper_.passIds()[pass]});
    if (passes.empty()) return emit statusMessage(tr("No pass left to apply."), 5000);
    emit applyStarted();
    const QString title = passes.size() == 1 ? tr("Applying %1").arg(QString::fromStdString(passes.front().id))
                                             : tr("Applying %1 passes").arg(passes.size());
    std::shared_ptr<const Model> from = stepper_.sharedCurrent();
    // The work only reads its captures; `this` is used by the completion, on the UI thread.
    tasks_->start(title, [this, from, passes, verify = verifySteps()](const TaskRunner::Control& control) {
        auto applied = std::make_shared<AppliedSteps>(applyPasses(*from, passes, verify, control));
        return TaskRunner::Completion([this, applied] { commitSteps(std::move(*applied)); });
    });
}

void PassPanel::commitSteps(AppliedSteps applied) {
    const int kept = int(applied.steps.size());
    for (PassStep& step : applied.steps) stepper_.commit(std::move(step));
    if (kept > 0) emit stepChanged();
    if (applied.cancelled) emit statusMessage(tr("Cancelled: %1 of %2 passes applied.").arg(kept).arg(applied.asked), 10000);
    else if (!applied.verifyError.isEmpty()) emit statusMessage(applied.verifyError, 10000);
    else if (!applied.verifyNote.isEmpty()) emit statusMessage(applied.verifyNote, 10000);
    emit passesApplied(kept);
    if (!applied.error.isEmpty()) QMessageBox::critical(window(), tr("Pass failed"), applied.error);
}

} // namespace graphlens
