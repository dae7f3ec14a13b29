// RewriteLogPanel: one QTreeWidget, a group row per step and a child row per line; each row keeps
// its step, kind and index in item data, so the window finds the rewrite behind it in the stepper.
#include "app/rewrite_log_panel.h"

#include "app/pass_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace graphlens {
namespace {

constexpr int kStepRole = Qt::UserRole;
constexpr int kEntryRole = Qt::UserRole + 1;  ///< an Entry, on lines only
constexpr int kIndexRole = Qt::UserRole + 2;

QString plural(size_t n, const char* one, const char* many) {
    return RewriteLogPanel::tr(n == 1 ? one : many).arg(QLocale().toString(qulonglong(n)));
}

} // namespace

RewriteLogPanel::RewriteLogPanel(QWidget* parent) : QWidget(parent) {
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText(tr("Filter: node, op or pass"));
    filter_->setClearButtonEnabled(true);
    hideDeclines_ = new QCheckBox(tr("Hide declines"), this);
    hideDeclines_->setToolTip(tr("Hide the lines where a pass looked at a node and said why it did not rewrite it"));
    counts_ = new QLabel(this);
    tree_ = new QTreeWidget(this);
    tree_->setHeaderHidden(true);
    tree_->setColumnCount(1);
    tree_->setUniformRowHeights(true);
    tree_->setTextElideMode(Qt::ElideRight);
    tree_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    tree_->header()->setStretchLastSection(false);
    tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* bar = new QHBoxLayout;
    bar->addWidget(filter_, 1);
    bar->addWidget(hideDeclines_);
    bar->addWidget(counts_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(tree_);
    connect(filter_, &QLineEdit::textChanged, this, &RewriteLogPanel::applyFilter);
    connect(hideDeclines_, &QCheckBox::toggled, this, &RewriteLogPanel::applyFilter);
    connect(tree_, &QTreeWidget::itemClicked, this, &RewriteLogPanel::activate);
    connect(tree_, &QTreeWidget::itemActivated, this, &RewriteLogPanel::activate);
}

size_t RewriteLogPanel::stepOf(const QTreeWidgetItem* item) { return item->data(0, kStepRole).value<size_t>(); }
RewriteLogPanel::Entry RewriteLogPanel::entryOf(const QTreeWidgetItem* item) { return Entry(item->data(0, kEntryRole).toInt()); }
size_t RewriteLogPanel::indexOf(const QTreeWidgetItem* item) { return item->data(0, kIndexRole).value<size_t>(); }
bool RewriteLogPanel::isEntry(const QTreeWidgetItem* item) { return item && item->data(0, kEntryRole).isValid(); }

void RewriteLogPanel::showSteps(const PassStepper& stepper, bool highlightCurrent) {
    tree_->setUpdatesEnabled(false);
    tree_->clear();
    currentStep_ = stepper.step();
    for (size_t step = 1; step <= stepper.step(); ++step) addStep(stepper, step, step == stepper.step(), highlightCurrent);
    applyFilter();
    tree_->setUpdatesEnabled(true);
    if (QTreeWidgetItem* current = stepRow(currentStep_)) tree_->scrollToItem(current, QAbstractItemView::PositionAtTop);
}

void RewriteLogPanel::addStep(const PassStepper& stepper, size_t step, bool current, bool highlight) {
    const PassResult& r = stepper.resultOf(step);
    auto* group = new QTreeWidgetItem(tree_);
    QString title = tr("%1. %2").arg(step).arg(QString::fromStdString(r.passId));
    if (r.rewrites.empty() && r.declines.empty()) title += tr(" · no change");
    if (!r.rewrites.empty()) title += " · " + plural(r.rewrites.size(), "%1 rewrite", "%1 rewrites");
    if (!r.declines.empty()) title += " · " + plural(r.declines.size(), "%1 decline", "%1 declines");
    group->setText(0, title);
    group->setData(0, kStepRole, QVariant::fromValue(step));
    QFont font = group->font(0);
    font.setBold(current);
    group->setFont(0, font);
    if (r.rewrites.empty()) group->setForeground(0, palette().brush(QPalette::Disabled, QPalette::Text));
    if (current && highlight) {
        QColor mark = palette().color(QPalette::Highlight);
        mark.setAlpha(60);
        group->setBackground(0, mark);
    }
    const auto line = [group, step](const QString& text, Entry kind, size_t index) {
        auto* item = new QTreeWidgetItem(group, {text});
        item->setData(0, kStepRole, QVariant::fromValue(step));
        item->setData(0, kEntryRole, int(kind));
        item->setData(0, kIndexRole, QVariant::fromValue(index));
        item->setToolTip(0, text);
        return item;
    };
    if (const VerifyReport* v = stepper.verificationOf(step)) {
        QTreeWidgetItem* item = line(verificationText(*v), Entry::Verification, 0);
        if (!v->passed) item->setForeground(0, Qt::red);
    }
    for (size_t i = 0; i < r.rewrites.size(); ++i) line(QString::fromStdString(r.rewrites[i].sentence), Entry::Rewrite, i);
    const QBrush dim = palette().brush(QPalette::Disabled, QPalette::Text);
    for (size_t i = 0; i < r.declines.size(); ++i) {
        const Decline& d = r.declines[i];
        line(tr("declined %1: %2").arg(QString::fromStdString(d.node.name), QString::fromStdString(d.reason)), Entry::Decline, i)
            ->setForeground(0, dim);
    }
    group->setExpanded(current);
}

QTreeWidgetItem* RewriteLogPanel::stepRow(size_t step) const {
    return step >= 1 && int(step) <= tree_->topLevelItemCount() ? tree_->topLevelItem(int(step) - 1) : nullptr;
}

int RewriteLogPanel::entryCount(Entry kind) const {
    int n = 0;
    for (int g = 0; g < tree_->topLevelItemCount(); ++g)
        for (int i = 0; i < tree_->topLevelItem(g)->childCount(); ++i) n += entryOf(tree_->topLevelItem(g)->child(i)) == kind;
    return n;
}

int RewriteLogPanel::shownEntryCount() const {
    int n = 0;
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        const QTreeWidgetItem* group = tree_->topLevelItem(g);
        for (int i = 0; !group->isHidden() && i < group->childCount(); ++i)
            n += !group->child(i)->isHidden() && entryOf(group->child(i)) != Entry::Verification;
    }
    return n;
}

void RewriteLogPanel::applyFilter() {
    const QString text = filter_->text().trimmed();
    const bool hideDeclines = hideDeclines_->isChecked();
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        const bool wholePass = text.isEmpty() || group->text(0).contains(text, Qt::CaseInsensitive);
        int shown = 0;
        for (int i = 0; i < group->childCount(); ++i) {
            QTreeWidgetItem* item = group->child(i);
            const bool hidden = (hideDeclines && entryOf(item) == Entry::Decline) ||
                                (!wholePass && !item->text(0).contains(text, Qt::CaseInsensitive));
            item->setHidden(hidden);
            shown += !hidden;
        }
        group->setHidden(!text.isEmpty() && shown == 0 && !wholePass);
        group->setExpanded(text.isEmpty() ? stepOf(group) == currentStep_ : shown > 0);
    }
    const int total = entryCount(Entry::Rewrite) + entryCount(Entry::Decline);
    const QLocale locale;
    counts_->setText(text.isEmpty() && !hideDeclines ? tr("%1 lines").arg(locale.toString(total))
                                                     : tr("%1 of %2 lines").arg(locale.toString(shownEntryCount()), locale.toString(total)));
}

void RewriteLogPanel::activate(QTreeWidgetItem* item) {
    if (isEntry(item)) emit entryActivated(stepOf(item), entryOf(item), indexOf(item));
}

} // namespace graphlens
