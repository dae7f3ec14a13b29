// `graphlens optimize MODEL -o OUT [--passes ...] [--json]`. The pass library arrives with the
// passes issue; until then the only pipeline is `none`, which writes the model back unchanged.
#include "app/cli/cli.h"
#include "app/cli/model_report.h"
#include "core/onnx/exporter.h"
#include "core/onnx/onnx_error.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

#include <iostream>

namespace graphlens::cli {

int runOptimize(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Optimize an ONNX model and write the result.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    parser.addOption({{"o", "output"}, "where to write the optimized model", "OUT"});
    parser.addOption({"passes", "pipeline: none (more with the pass library)", "PASSES", "none"});
    parser.addOption({"json", "print JSON instead of a table"});
    if (!parser.parse(args)) return fail(parser.errorText().toStdString());
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return fail("optimize takes exactly one MODEL argument");
    if (!parser.isSet("output")) return fail("optimize needs an output file: -o OUT");
    const QString passes = parser.value("passes");
    if (passes != "none")
        return fail("the pass pipeline '" + passes.toStdString() +
                    "' is not available in this build; only 'none' is");
    auto model = loadOrReport(positional[0]);
    if (!model) return 1;
    const size_t nodes = model->graph.nodeCount();
    QElapsedTimer timer;
    timer.start();
    try {
        saveModel(*model, parser.value("output").toStdString());
    } catch (const OnnxError& e) {
        return fail(e.what());
    }
    if (parser.isSet("json")) {
        QJsonObject json{{"model", positional[0]},
                         {"output", parser.value("output")},
                         {"nodes_before", qint64(nodes)},
                         {"nodes_after", qint64(model->graph.nodeCount())},
                         {"passes", QJsonArray()},
                         {"write_ms", double(timer.nsecsElapsed()) / 1e6}};
        std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
    } else {
        std::cout << "nodes: " << nodes << " -> " << model->graph.nodeCount() << "\n"
                  << "wrote " << parser.value("output").toStdString() << "\n";
    }
    return 0;
}

} // namespace graphlens::cli
