// `graphlens render MODEL -o FILE.svg|png [--passes ...] [--collapse-depth N] [--heatmap time|memory
// [--profile FILE | --backend cpu|vulkan] [--scale linear|log]]`: lays the graph out as the window does (Graphviz,
// name-scope groups), optionally colors nodes by time or memory, and writes an image, headless.
#include "app/cli/cli.h"
#include "app/cli/heatmap_values.h"
#include "app/cli/model_report.h"
#include "app/cli/pass_options.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/heat_legend_item.h"
#include "viewer/scene_export.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QApplication>

#include <iostream>

namespace graphlens::cli {
namespace {

void addRenderOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription("Draw a model's graph as the window shows it, into an SVG or PNG file.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    parser.addOption({{"o", "output"}, "the image to write: FILE.svg (labels stay text) or FILE.png", "FILE"});
    addPassOption(parser, "none");
    parser.addOption({"collapse-depth",
                      "show N levels of name-scope groups open and collapse the deeper ones (0: every "
                      "top-level group collapsed, -1: all open); by default a graph of more than "
                      "1,000 nodes starts collapsed just enough to stay under that",
                      "N"});
    addHeatmapOptions(parser);
}

/// Fills each node with a value on the heat scale and puts the legend above the graph; returns
/// a sentence for the summary line.
std::string paintHeatmap(GraphScene& scene, const Model& model, const QCommandLineParser& parser) {
    const NodeHeat heat = heatmapValues(model, parser);
    std::vector<double> all;
    for (const auto& [node, value] : heat.values) all.push_back(value);
    const HeatScale scale = HeatScale::spanning(all, parser.value("scale") == "log" ? HeatScaleKind::Log : HeatScaleKind::Linear);
    const bool time = parser.value("heatmap") == "time";  // values in ms, the legend in seconds
    paintNodeHeat(scene, heat, scale, time ? "median time per node" : "bytes written per node", time ? "s" : "B",
                  time ? 1e-3 : 1);
    const std::string fused = heat.fused.empty() ? "" : " (" + std::to_string(heat.fused.size()) + " more grey: fused into another node's kernel)";
    return ", " + std::to_string(heat.values.size()) + " nodes colored by " + parser.value("heatmap").toStdString() + fused;
}

/// The layout request from the options; throws std::runtime_error with one sentence.
GraphLayoutRequest layoutRequest(const QCommandLineParser& parser, const GraphScene& scene) {
    GraphLayoutRequest request;
    request.measure = scene.textMeasure();
    if (parser.isSet("collapse-depth")) {
        bool ok = false;
        request.collapseDepth = parser.value("collapse-depth").toInt(&ok);
        if (!ok || *request.collapseDepth < -1)
            throw std::runtime_error("--collapse-depth must be a whole number, -1 or more");
    }
    return request;
}

} // namespace

int runRender(const QStringList& args) {
    QCommandLineParser parser;
    addRenderOptions(parser);
    if (auto status = parseArguments(parser, args)) return *status;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return fail("render takes exactly one MODEL argument");
    if (!parser.isSet("output")) return fail("render needs an output file: -o FILE.svg or -o FILE.png");
    const QString output = parser.value("output");
    if (!imageFormatOf(output))
        return fail("cannot write '" + output.toStdString() + "': the file name must end in .svg or .png");
    if (const std::string problem = heatmapProblem(parser); !problem.empty()) return fail(problem);
    if (!qobject_cast<QApplication*>(QCoreApplication::instance()))
        return fail("render needs the Qt widgets library, which could not start");
    auto model = loadOrReport(positional[0]);
    if (!model) return 1;
    try {
        GraphScene scene;
        const GraphLayoutRequest request = layoutRequest(parser, scene);
        applyPassOption(*model, parser);
        QElapsedTimer timer;
        timer.start();
        scene.showGraph(layoutGraph(model->graph, request));
        const qint64 layoutMs = timer.elapsed();
        const std::string heatmap = parser.isSet("heatmap") ? paintHeatmap(scene, *model, parser) : std::string();
        writeSceneImage(scene, output, QFileInfo(positional[0]).fileName());
        std::cout << "wrote " << output.toStdString() << ": " << scene.nodeItems().size() << " boxes, "
                  << scene.edgeItems().size() << " edges, layout " << layoutMs << " ms" << heatmap << std::endl;
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

} // namespace graphlens::cli
