// A tree view of a model's interface and contents: inputs, outputs, operators, nodes, warnings.
#pragma once

#include "core/graph/model.h"
#include "core/graph/model_summary.h"

#include <QTreeWidget>

namespace graphlens {

class ModelOverview : public QTreeWidget {
    Q_OBJECT
public:
    explicit ModelOverview(QWidget* parent = nullptr);

    /// Replaces the shown content with `model`'s.
    void showModel(const Model& model);
    /// The same with `summary` = summarize(model) already made (in a worker thread).
    void showModel(const Model& model, const ModelSummary& summary);

    /// Number of node rows listed under "Nodes".
    int nodeRowCount() const;

private:
    QTreeWidgetItem* addSection(const QString& title, const QString& detail);
};

} // namespace graphlens
