// `graphlens run MODEL [--backend cpu|vulkan] [--device N] [--input NAME=FILE.pb ...] [--seed N]
// [--dim NAME=VALUE] [--output-dir DIR]`: runs the model once; writes output_K.pb (graph-output
// order) into DIR.
#include "app/cli/cli.h"
#include "app/cli/model_inputs.h"
#include "app/cli/model_report.h"
#include "app/cli/pass_options.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/tensor_file.h"
#include "core/runtime/backend.h"
#include "core/runtime/executor.h"

#include <QCommandLineParser>
#include <QDir>

#include <algorithm>
#include <iostream>

namespace graphlens::cli {
namespace {

std::string describe(const std::string& name, const Tensor& t) {
    if (t.isSequence() || t.isOptional()) {
        std::string line = name + ": " + (t.isSequence() ? "sequence of " + std::to_string(t.elements().size()) + " tensors"
                                                          : t.elements().empty() ? std::string("optional, no value") : std::string("optional"));
        for (const Tensor& e : t.elements()) line += "\n  " + describe(t.isSequence() ? "[" + std::to_string(&e - t.elements().data()) + "]" : "value", e);
        return line;
    }
    std::string line = name + ": " + std::string(dtypeName(t.dtype())) + " " + Shape::ofSizes(t.dims()).toString();
    const std::vector<double> v = t.toDoubles();
    if (!v.empty()) {
        const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
        double sum = 0;
        for (double x : v) sum += x;
        line += "  min " + std::to_string(*lo) + "  max " + std::to_string(*hi) + "  mean " +
                std::to_string(sum / double(v.size()));
    }
    return line;
}

} // namespace

int runRun(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Run a model once.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    addRunOptions(parser);
    addDeviceOption(parser);
    addPassOption(parser, "none");
    parser.addOption({"output-dir", "write output_K.pb files here", "DIR"});
    parser.addOption({"save-inputs", "also write the inputs used as input_K.pb into DIR", "DIR"});
    if (auto status = parseArguments(parser, args)) return *status;
    if (parser.positionalArguments().size() != 1) return fail("run takes exactly one MODEL argument");
    auto model = loadOrReport(parser.positionalArguments()[0]);
    if (!model) return 1;
    const std::unique_ptr<Backend> backend = openBackend(parser, true);
    if (!backend) return 1;
    const Graph& g = model->graph;
    try {
        applyPassOption(*model, parser);
        const auto feeds = feedsFromOptions(*model, parser);
        if (const QString dir = parser.value("save-inputs"); !dir.isEmpty()) {
            if (!QDir().mkpath(dir)) return fail("cannot create the folder '" + dir.toStdString() + "'");
            int k = 0;
            for (ValueId v : g.inputs())
                if (auto it = feeds.find(g.value(v).name); it != feeds.end())
                    writeTensorFile(QDir(dir).filePath(QString("input_%1.pb").arg(k++)).toStdString(), it->second, it->first);
        }
        const std::unique_ptr<Plan> plan = backend->compile(*model, compileOptionsFor(parser, feeds));
        const std::vector<Tensor> outputs = plan->run(feeds);
        const QString outDir = parser.value("output-dir");
        if (!outDir.isEmpty() && !QDir().mkpath(outDir))
            return fail("cannot create the folder '" + outDir.toStdString() + "'");
        for (size_t k = 0; k < outputs.size(); ++k) {
            const std::string& name = g.value(g.outputs()[k]).name;
            std::cout << describe(name, outputs[k]) << "\n";
            if (!outDir.isEmpty())
                writeTensorFile(QDir(outDir).filePath(QString("output_%1.pb").arg(k)).toStdString(), outputs[k], name);
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

} // namespace graphlens::cli
