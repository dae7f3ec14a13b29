// Heatmap values: profiles read by file type, mapped onto the graph by node name.
#include "app/cli/heatmap_values.h"

#include "app/cli/cli.h"
#include "app/cli/model_inputs.h"
#include "profiler/ort_profile.h"
#include "profiler/profile_session.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_item.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <stdexcept>

namespace graphlens::cli {
namespace {

NodeHeat medianMs(const std::vector<NodeProfile>& nodes) {
    NodeHeat heat;
    for (const NodeProfile& p : nodes) {
        if (fusedAway(p)) heat.fused.push_back(p.node);
        else heat.values[p.node] = p.ms.median;
    }
    return heat;
}

/// `graphlens profile --json` output: nodes[].name, kernel and median_ms.
NodeHeat ownProfileMs(const QJsonObject& json, const Graph& graph) {
    NodeHeat heat;
    for (const QJsonValue& v : json["nodes"].toArray()) {
        const auto node = graph.findNode(v["name"].toString().toStdString());
        if (!node) continue;
        NodeProfile p;
        p.kernel = v["kernel"].toString().toStdString();
        if (fusedAway(p)) heat.fused.push_back(*node);
        else heat.values[*node] = v["median_ms"].toDouble();
    }
    return heat;
}

NodeHeat profileFileMs(const QString& path, const Graph& graph) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read '" + path.toStdString() + "': " + file.errorString().toStdString());
    const QByteArray text = file.readAll();
    const QJsonDocument doc = QJsonDocument::fromJson(text);
    if (doc.isObject() && doc.object().contains("nodes")) return ownProfileMs(doc.object(), graph);
    return medianMs(profileNodes(graph, importOrtProfile(text.toStdString(), graph).events));
}

NodeHeat sessionMs(const Model& model, const QCommandLineParser& parser) {
    bool ok = false;
    const int runs = parser.value("runs").toInt(&ok);
    if (!ok || runs < 1) throw std::runtime_error("--runs must be at least 1");
    const auto feeds = feedsFromOptions(model.graph, parser);
    const CompileOptions options = compileOptionsFor(parser, feeds);
    const std::unique_ptr<Plan> plan = openBackendOrThrow(parser, true)->compile(model, options);
    return medianMs(profilePlan(*plan, graphWithShapes(model, options.inputShapes), feeds, {1, runs}).nodes);
}

NodeHeat outputBytes(const Model& model, const QCommandLineParser& parser) {
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& [name, tensor] : feedsFromOptions(model.graph, parser)) shapes[name] = tensor.dims();
    const Graph graph = graphWithShapes(model, shapes);
    NodeHeat heat;
    for (NodeId id : graph.nodeIds())
        if (const uint64_t bytes = nodeOutputBytes(graph, graph.node(id))) heat.values[id] = double(bytes);
    return heat;
}

} // namespace

void addHeatmapOptions(QCommandLineParser& parser) {
    parser.addOption({"heatmap", "color nodes by median time or by the bytes they write", "time|memory"});
    parser.addOption({"profile", "with --heatmap time: an ONNX Runtime profile or `graphlens profile --json` "
                                 "output (default: profile here)", "FILE"});
    parser.addOption({"scale", "heat scale (default log)", "linear|log", "log"});
    parser.addOption({"runs", "with --heatmap time and no --profile: measured runs (default 5)", "N", "5"});
    addRunOptions(parser);
    addDeviceOption(parser);
}

std::string heatmapProblem(const QCommandLineParser& parser) {
    const QString kind = parser.value("heatmap"), scale = parser.value("scale");
    if (parser.isSet("heatmap") && kind != "time" && kind != "memory") return "--heatmap must be time or memory";
    if (scale != "linear" && scale != "log") return "--scale must be linear or log";
    if (parser.isSet("profile") && kind != "time") return "--profile needs --heatmap time";
    return {};
}

void paintNodeHeat(GraphScene& scene, const NodeHeat& heat, const HeatScale& scale, const QString& title,
                   const QString& unit, double legendFactor) {
    std::unordered_map<NodeId, QColor> fills;
    for (const auto& [node, value] : heat.values) {
        const Rgb c = scale.color(value);
        fills[node] = QColor(c.r, c.g, c.b);
    }
    for (NodeId node : heat.fused) fills[node] = QColor(kFusedNodeColor.r, kFusedNodeColor.g, kFusedNodeColor.b);
    scene.setNodeFills(std::move(fills));
    const HeatScale legendScale(scale.low() * legendFactor, scale.high() * legendFactor, scale.kind());
    const QString shownTitle = heat.fused.empty() ? title : title + " (grey: fused into another node's kernel)";
    auto* legend = new HeatLegendItem(legendScale, shownTitle, unit, scene.style().labelFont, scene.style().text);
    scene.addItem(legend);
    legend->setPos(scene.sceneRect().left() + 20, scene.sceneRect().top() - legend->boundingRect().height());
    scene.setSceneRect(scene.sceneRect().united(legend->sceneBoundingRect().adjusted(-20, -20, 20, 0)));
}

NodeHeat heatmapValues(const Model& model, const QCommandLineParser& parser) {
    if (parser.value("heatmap") == "memory") return outputBytes(model, parser);
    if (parser.isSet("profile")) return profileFileMs(parser.value("profile"), model.graph);
    return sessionMs(model, parser);
}

} // namespace graphlens::cli
