// ScopeOutline: one row per group, children under their parent, the path kept in the row.
#include "viewer/scope_outline.h"

#include <QHeaderView>

#include <vector>

namespace graphlens {
namespace {

constexpr int kPathRole = Qt::UserRole;

} // namespace

ScopeOutline::ScopeOutline(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(2);
    setHeaderLabels({tr("Group"), tr("Nodes")});
    header()->setStretchLastSection(false);
    header()->setSectionResizeMode(0, QHeaderView::Stretch);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    setUniformRowHeights(true);
    setToolTip(tr("Name-scope groups: click one to open it on the canvas"));
    connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        item->setExpanded(true);  // its sub-groups, as the canvas opens it
        emit groupActivated(item->data(0, kPathRole).toString());
    });
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        emit groupActivated(item->data(0, kPathRole).toString());
    });
}

void ScopeOutline::setScopes(std::shared_ptr<const ScopeTree> scopes) {
    if (scopes == scopes_) return;
    scopes_ = std::move(scopes);
    clear();
    items_.clear();
    if (!scopes_) return;
    std::vector<QTreeWidgetItem*>& items = items_;
    items.assign(scopes_->groups().size(), nullptr);
    for (const ScopeGroup& g : scopes_->groups()) {  // parents come before their children
        auto* item = g.parent == kNoId ? new QTreeWidgetItem(this) : new QTreeWidgetItem(items[size_t(g.parent)]);
        item->setText(0, QString::fromStdString(g.name));
        item->setText(1, QString::number(g.totalNodes));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(0, QString::fromStdString(g.path));
        item->setData(0, kPathRole, QString::fromStdString(g.path));
        items[size_t(g.id)] = item;
    }
}

QTreeWidgetItem* ScopeOutline::itemForPath(const QString& path) const {
    const GroupId id = scopes_ ? scopes_->findGroup(path.toStdString()) : kNoId;
    return id == kNoId ? nullptr : items_[size_t(id)];
}

} // namespace graphlens
