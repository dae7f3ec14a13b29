// A tree view of a model's interface and contents: inputs, outputs, operators, nodes, warnings.
#pragma once

#include "core/graph/model.h"
#include "core/graph/model_summary.h"

#include <QTreeWidget>

#include <string>
#include <utility>
#include <vector>

namespace graphlens {

class ModelOverview : public QTreeWidget {
    Q_OBJECT
public:
    explicit ModelOverview(QWidget* parent = nullptr);

    /// Replaces the shown content with `model`'s.
    void showModel(const Model& model);
    /// The same with `summary` = summarize(model) already made (in a worker thread).
    void showModel(const Model& model, const ModelSummary& summary);

    /// Updates the FLOPs line (a count made after the rest of the summary).
    void showFlops(const ModelSummary& summary);

    /// Number of node rows listed under "Nodes" (those of a big graph are made when it is opened).
    int nodeRowCount() const;

private:
    QTreeWidgetItem* addSection(const QString& title, const QString& detail);
    void addPendingNodeRows();

    static constexpr size_t kEagerNodeRows = 2000;  ///< more node rows wait until "Nodes" is opened
    QTreeWidgetItem* nodesItem_ = nullptr;
    QTreeWidgetItem* flopsItem_ = nullptr;
    std::vector<std::pair<std::string, std::string>> pendingNodeRows_;  ///< name, op; not made into items yet
};

} // namespace graphlens
