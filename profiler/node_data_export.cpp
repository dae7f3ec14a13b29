// Model Explorer node data export (the ModelNodeData form of its node_data_builder).
#include "profiler/node_data_export.h"

#include "profiler/heat_scale.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace graphlens {

std::string modelExplorerNodeData(const std::vector<std::pair<std::string, double>>& values,
                                  const std::string& graphId) {
    QJsonObject results;
    for (const auto& [node, value] : values) results[QString::fromStdString(node)] = QJsonObject{{"value", value}};
    const QJsonArray gradient{QJsonObject{{"stop", 0}, {"bgColor", QString::fromStdString(hexColor(heatColor(0)))}},
                              QJsonObject{{"stop", 1}, {"bgColor", QString::fromStdString(hexColor(heatColor(1)))}}};
    const QJsonObject graph{{"results", results}, {"gradient", gradient}};
    return QJsonDocument(QJsonObject{{QString::fromStdString(graphId), graph}}).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace graphlens
