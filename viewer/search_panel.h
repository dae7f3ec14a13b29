// The Search dock: a query line (a piece of a node name or op type, or a regular expression),
// a line saying how many nodes match on each side of the split view or why the expression is
// invalid, and the matching nodes tagged with their side; activating one asks the window to
// select and center it on that side.
#pragma once

#include "core/graph/graph.h"
#include "viewer/node_search.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;

namespace graphlens {

class SearchPanel : public QWidget {
    Q_OBJECT
public:
    explicit SearchPanel(QWidget* parent = nullptr);

    /// Searches both sides from now on (the query is run again); pass the same graph twice when
    /// both sides show it.
    void setGraphs(std::shared_ptr<const Graph> before, std::shared_ptr<const Graph> after);
    /// Focuses the query line with its text selected (Ctrl+F).
    void focusQuery();

    QLineEdit* query() const { return query_; }
    QCheckBox* regex() const { return regex_; }
    QLabel* message() const { return message_; }
    QListWidget* results() const { return results_; }

signals:
    /// A result was clicked or activated (or Return pressed in the query: the first result).
    void nodeActivated(graphlens::SearchSide side, graphlens::NodeId node);

private:
    void runQuery();
    void activate(QListWidgetItem* item);

    std::shared_ptr<const Graph> before_;
    std::shared_ptr<const Graph> after_;
    QLineEdit* query_ = nullptr;
    QCheckBox* regex_ = nullptr;
    QLabel* message_ = nullptr;
    QListWidget* results_ = nullptr;
};

} // namespace graphlens
