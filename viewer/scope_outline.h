// The Outline: the name-scope groups of the shown graph as a tree (group name, node count), so a
// big model can be walked by its modules; clicking a group asks the canvas to open and show it.
#pragma once

#include "viewer/scope_tree.h"

#include <QTreeWidget>

#include <memory>
#include <vector>

namespace graphlens {

class ScopeOutline : public QTreeWidget {
    Q_OBJECT
public:
    explicit ScopeOutline(QWidget* parent = nullptr);

    /// Lists the groups of `scopes` (nothing for nullptr); the same tree again changes nothing.
    void setScopes(std::shared_ptr<const ScopeTree> scopes);
    const ScopeTree* scopes() const { return scopes_.get(); }
    /// The row of the group whose path is `path`; nullptr when there is none.
    QTreeWidgetItem* itemForPath(const QString& path) const;

signals:
    /// A group was clicked or activated: open it and show it.
    void groupActivated(const QString& path);

private:
    std::shared_ptr<const ScopeTree> scopes_;
    std::vector<QTreeWidgetItem*> items_;  ///< by GroupId
};

} // namespace graphlens
