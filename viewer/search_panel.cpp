// SearchPanel: the query runs on every edit (searchNodes() over a few thousand nodes takes a
// few milliseconds); each result row keeps its node id.
#include "viewer/search_panel.h"

#include "viewer/node_search.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace graphlens {

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

void SearchPanel::setGraph(std::shared_ptr<const Graph> graph) {
    graph_ = std::move(graph);
    runQuery();
}

void SearchPanel::focusQuery() {
    query_->setFocus(Qt::ShortcutFocusReason);
    query_->selectAll();
}

void SearchPanel::runQuery() {
    results_->clear();
    message_->setStyleSheet(QString());
    if (!graph_ || query_->text().isEmpty()) return message_->clear();
    const NodeSearch found = searchNodes(*graph_, query_->text(), regex_->isChecked());
    if (!found.error.isEmpty()) {
        message_->setStyleSheet(QStringLiteral("color: #c62828"));
        return message_->setText(found.error);
    }
    message_->setText(found.nodes.size() == 1 ? tr("1 node") : tr("%1 nodes").arg(found.nodes.size()));
    for (NodeId id : found.nodes) {
        const Node& node = graph_->node(id);
        const QString name = node.name.empty() ? tr("(unnamed)") : QString::fromStdString(node.name);
        auto* item = new QListWidgetItem(QStringLiteral("%1  ·  %2").arg(name, QString::fromStdString(node.opType)), results_);
        item->setData(Qt::UserRole, id);
    }
}

void SearchPanel::activate(QListWidgetItem* item) {
    if (item) emit nodeActivated(item->data(Qt::UserRole).value<NodeId>());
}

} // namespace graphlens
