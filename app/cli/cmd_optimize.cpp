// `graphlens optimize MODEL -o OUT [--passes ...] [--verify] [--skip-failing] [--portable] [--sparsity S] [--reduce-range]
// [--calibration DIR] [--fsync] [--json]`:
// runs a pass pipeline, optionally proving each pass numerically, and writes the result.
// `graphlens passes [ID] [--json]`: the pass library with each pass's explanation.
#include "app/cli/cli.h"
#include "app/cli/heap_huge_pages.h"
#include "app/cli/model_inputs.h"
#include "app/cli/model_report.h"
#include "app/cli/pass_options.h"
#include "core/compare/provenance_map.h"
#include "core/onnx/exporter.h"
#include "core/onnx/onnx_error.h"
#include "core/passes/pass_registry.h"
#include "core/passes/portable.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>

#include <iostream>

namespace graphlens::cli {
namespace {

void addOptimizeOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription("Optimize an ONNX model and write the result.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    parser.addOption({{"o", "output"}, "where to write the optimized model", "OUT"});
    addPassOption(parser, "default");
    parser.addOption({"verify", "run the graph before and after each pass on the same inputs and compare "
                                "outputs and provenance-matched intermediates"});
    parser.addOption({"skip-failing", "with --verify: undo a pass that breaks the tolerance and go on"});
    parser.addOption({"rtol", "verification: relative tolerance (default 1e-3)", "R", "1e-3"});
    parser.addOption({"atol", "verification: absolute tolerance (default 1e-4)", "A", "1e-4"});
    parser.addOption({"portable", "write standard ONNX operators only (no com.microsoft fused ops)"});
    parser.addOption({"log", "list every rewrite and why patterns declined"});
    parser.addOption({"json", "print JSON instead of a table"});
    parser.addOption({"fsync", "wait until the written model is on the disk before renaming it into place "
                               "(default: rename without waiting for the disk, as onnx.save does)"});
    parser.addOption({"input", "verification input NAME from an ONNX TensorProto file", "NAME=FILE.pb"});
    parser.addOption({"dim", "size of a symbolic dimension", "NAME=VALUE"});
    parser.addOption({"seed", "seed of the random verification inputs", "N", "0"});
    parser.addOption({"threads", "CPU threads for verification (default: all cores)", "T", "0"});
    parser.addOption({"max-memory", "verification: refuse to run a graph whose plan needs more than BYTES "
                                    "(K, M, G, T suffixes; default: the memory available)", "BYTES"});
    parser.addOption({"sparsity", "prune-magnitude: fraction of each weight tensor set to zero (default 0.5)", "S", "0.5"});
    parser.addOption({"reduce-range", "quantize-int8: weights within [-63, 63] (7 bits), which the int8 products of "
                                      "machines without VNNI cannot saturate (ONNX Runtime's reduce_range)"});
}

/// Pipeline options (and the pass settings in `context`) from the command line; throws
/// std::runtime_error with one sentence.
PipelineOptions pipelineOptions(const QCommandLineParser& parser, const Model& model, PassContext& context) {
    bool sparsityOk = false;
    context.pruneSparsity = parser.value("sparsity").toDouble(&sparsityOk);
    if (!sparsityOk || context.pruneSparsity < 0 || context.pruneSparsity >= 1)
        throw std::runtime_error("--sparsity must be a number from 0 up to (not including) 1");
    context.reduceRange = parser.isSet("reduce-range");
    PipelineOptions options;
    options.verify = parser.isSet("verify");
    options.skipFailing = parser.isSet("skip-failing");
    if (options.skipFailing && !options.verify) throw std::runtime_error("--skip-failing needs --verify");
    bool rtolOk = false, atolOk = false;
    options.verifyOptions.rtol = parser.value("rtol").toDouble(&rtolOk);
    options.verifyOptions.atol = parser.value("atol").toDouble(&atolOk);
    if (!rtolOk || !atolOk || options.verifyOptions.rtol < 0 || options.verifyOptions.atol < 0)
        throw std::runtime_error("--rtol and --atol must be non-negative numbers");
    options.verifyOptions.threads = parser.value("threads").toInt();
    options.verifyOptions.maxMemory = maxMemoryFromOptions(parser);
    context.calibration.threads = options.verifyOptions.threads;
    applyCalibrationOption(context, model, parser);
    if (options.verify) options.feeds = feedsFromOptions(model, parser);
    return options;
}

void printLog(const PipelineReport& report) {
    for (const PassRun& run : report.passes) {
        for (const Rewrite& w : run.result.rewrites) std::cout << "  [" << run.result.passId << "] " << w.sentence << "\n";
        for (const std::string& note : run.result.notes) std::cout << "  [" << run.result.passId << "] note: " << note << "\n";
        for (const Decline& d : run.result.declines)
            std::cout << "  [" << run.result.passId << "] " << (d.node.name.empty() ? d.node.opType : d.node.name)
                      << ": " << d.reason << "\n";
    }
}

/// Wall-clock milliseconds of each phase of one `optimize`: what the pipeline row of
/// bench/compare_ort.py sets against ONNX Runtime's session creation.
struct PhaseTimes {
    double loadMs = 0;      ///< read, parse, check, infer shapes
    double pipelineMs = 0;  ///< the passes, with their snapshots and shape refreshes
    double writeMs = 0;     ///< lowering for ONNX Runtime, provenance, the file
    double totalMs = 0;     ///< all of it, from the start of the load
};

void printReport(const QCommandLineParser& parser, const PipelineReport& report, const QString& model,
                 const PhaseTimes& times) {
    if (parser.isSet("json")) {
        QJsonArray passes;
        for (const PassRun& run : report.passes) passes.append(passRunJson(run, parser.isSet("log")));
        QJsonObject json{{"model", model},
                         {"output", parser.value("output")},
                         {"nodes_before", qint64(report.nodesBefore)},
                         {"nodes_after", qint64(report.nodesAfter)},
                         {"passes", passes},
                         {"load_ms", times.loadMs},
                         {"pipeline_ms", times.pipelineMs},
                         {"write_ms", times.writeMs},
                         {"total_ms", times.totalMs}};
        if (!report.failure.empty()) json["failure"] = QString::fromStdString(report.failure);
        std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
        return;
    }
    std::cout << passTable(report, parser.isSet("verify"));
    if (parser.isSet("log")) printLog(report);
}

} // namespace

int runOptimize(const QStringList& args) {
    QCommandLineParser parser;
    addOptimizeOptions(parser);
    if (auto status = parseArguments(parser, args)) return *status;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return fail("optimize takes exactly one MODEL argument");
    if (!parser.isSet("output")) return fail("optimize needs an output file: -o OUT");
    QElapsedTimer timer;
    timer.start();
    backHeapWithHugePages();  // one short run that allocates a lot: parse, graph, shape inference
    PhaseTimes times;
    auto lap = [&timer, last = 0.0]() mutable {
        const double now = double(timer.nsecsElapsed()) / 1e6, since = now - last;
        last = now;
        return since;
    };
    auto model = loadOrReport(positional[0]);
    if (!model) return 1;
    times.loadMs = lap();
    // A snapshot for the provenance the output records: nodes and names, not the weights, which
    // stay the model's alone (fold-constants then transposes a weight over its own bytes).
    Graph original = model->graph;
    for (ValueId v : original.initializers()) original.setInitializer(v, std::nullopt);
    PipelineReport report;
    try {
        const auto passes = makePipeline(parser.value("passes").toStdString());
        PassContext context = contextFor(*model);
        const PipelineOptions options = pipelineOptions(parser, *model, context);
        report = runPipeline(*model, passes, context, options);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    times.pipelineMs = lap();
    if (report.failure.empty()) {
        try {
            lowerFusedOps(*model, parser.isSet("portable") ? Lowering::StandardOnly : Lowering::ForOnnxRuntime);
            recordProvenance(*model, original);  // `graphlens compare` matches the nodes through it
            SaveOptions save;
            save.waitForDisk = parser.isSet("fsync");
            saveModel(*model, parser.value("output").toStdString(), save);
        } catch (const std::exception& e) {
            return fail(e.what());
        }
    }
    times.writeMs = lap();
    times.totalMs = double(timer.nsecsElapsed()) / 1e6;
    printReport(parser, report, positional[0], times);
    if (!report.failure.empty()) return fail(report.failure + "; nothing was written");
    return 0;
}

int runPasses(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("List the optimization passes, or explain one.");
    parser.addPositionalArgument("ID", "a pass id to explain", "[ID]");
    parser.addOption({"json", "print JSON"});
    if (auto status = parseArguments(parser, args)) return *status;
    const QStringList ids = parser.positionalArguments();
    QJsonArray json;
    bool found = ids.isEmpty();
    for (const auto& pass : makeAllPasses()) {
        if (!ids.isEmpty() && !ids.contains(QString::fromStdString(pass->id()))) continue;
        found = true;
        json.append(QJsonObject{{"id", QString::fromStdString(pass->id())},
                                {"title", QString::fromStdString(pass->title())},
                                {"lossy", pass->lossy()},
                                {"in_default", !pass->lossy()},
                                {"explanation", QString::fromStdString(pass->explanation())}});
        if (parser.isSet("json")) continue;
        std::printf("%-34s %s%s\n", pass->id().c_str(), pass->title().c_str(), pass->lossy() ? "  (lossy, not in default)" : "");
        if (!ids.isEmpty()) std::printf("\n%s\n", pass->explanation().c_str());
    }
    if (!found) return fail("unknown pass '" + ids.first().toStdString() + "'; `graphlens passes` lists them");
    if (parser.isSet("json")) std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
    return 0;
}

} // namespace graphlens::cli
