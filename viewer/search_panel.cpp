// SearchPanel: the query runs on every edit (searchNodes() over a few thousand nodes takes a
// few milliseconds per side); each result row keeps its side and node id.
#include "viewer/search_panel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace graphlens {
namespace {

constexpr int kNodeRole = Qt::UserRole;
constexpr int kSideRole = Qt::UserRole + 1;

QString nodeCount(size_t n) { return n == 1 ? SearchPanel::tr("1 node") : SearchPanel::tr("%1 nodes").arg(n); }

} // namespace

SearchPanel::SearchPanel(QWidget* parent) : QWidget(parent) {
    query_ = new QLineEdit(this);
    query_->setPlaceholderText(tr("Node name or op type"));
    query_->setClearButtonEnabled(true);
    regex_ = new QCheckBox(tr("Regex"), this);
    regex_->setToolTip(tr("Match a regular expression against node names and op types"));
    message_ = new QLabel(this);
    message_->setWordWrap(true);
    results_ = new QListWidget(this);
    auto* line = new QHBoxLayout;
    line->addWidget(query_);
    line->addWidget(regex_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(line);
    layout->addWidget(message_);
    layout->addWidget(results_);
    connect(query_, &QLineEdit::textChanged, this, &SearchPanel::runQuery);
    connect(regex_, &QCheckBox::toggled, this, &SearchPanel::runQuery);
    connect(query_, &QLineEdit::returnPressed, this, [this] { activate(results_->item(0)); });
    connect(results_, &QListWidget::itemClicked, this, &SearchPanel::activate);
    connect(results_, &QListWidget::itemActivated, this, &SearchPanel::activate);
}

void SearchPanel::setGraphs(std::shared_ptr<const Graph> before, std::shared_ptr<const Graph> after) {
    before_ = std::move(before);
    after_ = std::move(after);
    runQuery();
}

void SearchPanel::focusQuery() {
    query_->setFocus(Qt::ShortcutFocusReason);
    query_->selectAll();
}

void SearchPanel::runQuery() {
    results_->clear();
    message_->setStyleSheet(QString());
    if (!before_ || !after_ || query_->text().isEmpty()) return message_->clear();
    const SplitSearch found = searchBothSides(*before_, *after_, query_->text(), regex_->isChecked());
    if (!found.error.isEmpty()) {
        message_->setStyleSheet(QStringLiteral("color: #c62828"));
        return message_->setText(found.error);
    }
    message_->setText(before_ == after_ ? nodeCount(found.afterCount)
                                        : tr("%1 before · %2 after").arg(nodeCount(found.beforeCount), nodeCount(found.afterCount)));
    for (const SearchHit& hit : found.hits) {
        const Node& node = (hit.side == SearchSide::Before ? before_ : after_)->node(hit.node);
        const QString name = node.name.empty() ? tr("(unnamed)") : QString::fromStdString(node.name);
        auto* item = new QListWidgetItem(QStringLiteral("[%1] %2  ·  %3").arg(sideName(hit.side), name, QString::fromStdString(node.opType)), results_);
        item->setData(kNodeRole, hit.node);
        item->setData(kSideRole, int(hit.side));
    }
}

void SearchPanel::activate(QListWidgetItem* item) {
    if (item) emit nodeActivated(SearchSide(item->data(kSideRole).toInt()), item->data(kNodeRole).value<NodeId>());
}

} // namespace graphlens
