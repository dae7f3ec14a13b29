// `graphlens profile MODEL [--backend cpu] [--passes ...] [--compare] [--runs N] [--warmup W]
// [--threads T] [--trace FILE.json] [--csv FILE] [--node-data FILE] [--json] [--ort-profile FILE]`:
// per-node times, FLOPs and bytes of a profiling session (or of an imported ONNX Runtime profile),
// the hotspots on stdout and the per-node figures as a Chrome trace, CSV or Model Explorer node
// data. With --compare it profiles the model without and with the passes and prints what each
// original node costs before and after (profile_compare.h).
#include "app/cli/cli.h"
#include "app/cli/model_inputs.h"
#include "app/cli/model_report.h"
#include "app/cli/pass_options.h"
#include "app/cli/profile_report.h"
#include "core/onnx/atomic_file.h"
#include "profiler/chrome_trace.h"
#include "profiler/node_data_export.h"
#include "profiler/profile_compare.h"
#include "profiler/profile_csv.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <iostream>
#include <memory>

namespace graphlens::cli {
namespace {

void addProfileOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription("Profile a model node by node.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    addRunOptions(parser);
    addDeviceOption(parser);
    addPassOption(parser, "none");
    parser.addOption({"runs", "measured runs, with and without per-node events each (default 10)", "N", "10"});
    parser.addOption({"warmup", "runs before measuring (default 3)", "W", "3"});
    parser.addOption({"trace", "write a Chrome trace (opens in Perfetto)", "FILE.json"});
    parser.addOption({"csv", "write per-node statistics as CSV", "FILE"});
    parser.addOption({"node-data", "write median ms per node as Model Explorer node data", "FILE.json"});
    parser.addOption({"top", "hotspot rows to print (default 15)", "N", "15"});
    parser.addOption({"json", "print JSON instead of the table"});
    parser.addOption({"ort-profile", "read this ONNX Runtime profile instead of running the model", "FILE.json"});
    parser.addOption({"compare", "also profile the model without the passes and print the time of each original "
                                 "node before and after, the speedup per fused group and in total"});
}

/// The files to write, opened (as temporaries) before any run, so a bad path fails fast.
struct Outputs {
    std::unique_ptr<AtomicFile> trace, csv, nodeData;

    explicit Outputs(const QCommandLineParser& parser) {
        auto open = [&](const char* option) {
            const QString path = parser.value(option);
            return path.isEmpty() ? nullptr : std::make_unique<AtomicFile>(path.toStdString());
        };
        trace = open("trace");
        csv = open("csv");
        nodeData = open("node-data");
    }

    void write(const std::vector<NodeProfile>& nodes, const std::vector<NodeEvent>& events, const std::string& process,
               const std::vector<MemoryStep>& memory = {}) {
        auto commit = [](AtomicFile& file, const std::string& text) {
            file.write(text.data(), text.size());
            file.commit();
        };
        if (trace) commit(*trace, chromeTraceJson(events, nodes, process, memory));
        if (csv) commit(*csv, nodeProfileCsv(nodes));
        if (nodeData) {
            std::vector<std::pair<std::string, double>> values;
            for (const NodeProfile& p : nodes) values.emplace_back(p.name, p.ms.median);
            commit(*nodeData, modelExplorerNodeData(values));
        }
    }
};

std::optional<int> countOption(const QCommandLineParser& parser, const char* name, int minimum) {
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    return ok && value >= minimum ? std::optional<int>(value) : std::nullopt;
}

void print(const QJsonObject& json) { std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString(); }

int importOrt(const QCommandLineParser& parser, const Model& model, const Graph& graph, Outputs& outputs, int top) {
    const QString path = parser.value("ort-profile");
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return fail("cannot read '" + path.toStdString() + "': " + file.errorString().toStdString());
    const OrtProfileImport import = importOrtProfile(file.readAll().toStdString(), graph);
    const std::vector<NodeProfile> nodes = profileNodes(graph, import.events);
    outputs.write(nodes, import.events, "onnxruntime " + model.graph.name);
    if (parser.isSet("json")) print(importJson(import, nodes));
    else std::cout << importSummary(import, nodes) << hotspotTable(nodes, top);
    return 0;
}

/// A profiled model: the graph with shapes (what FLOPs read) and the session's result.
struct ProfiledModel {
    Graph graph;
    ProfileResult result;
};

ProfiledModel profileModel(const QCommandLineParser& parser, const Model& model, Backend& backend,
                           const std::map<std::string, Tensor>& feeds) {
    const CompileOptions options = compileOptionsFor(parser, feeds);
    const std::unique_ptr<Plan> plan = backend.compile(model, options);
    Graph graph = graphWithShapes(model, options.inputShapes);
    ProfileResult result = profilePlan(*plan, graph, feeds, {*countOption(parser, "warmup", 0), *countOption(parser, "runs", 1)});
    return {std::move(graph), std::move(result)};
}

QJsonObject profileJson(const QCommandLineParser& parser, const ProfileResult& result, const std::string& backend) {
    QJsonObject json = sessionJson(result);
    json["model"] = parser.positionalArguments()[0];
    json["backend"] = QString::fromStdString(backend);
    json["warmup"] = *countOption(parser, "warmup", 0);
    json["threads"] = parser.value("threads").toInt();
    return json;
}

std::string runsLine(const QCommandLineParser& parser, const std::string& backend) {
    const int runs = *countOption(parser, "runs", 1);
    return "profiled " + parser.positionalArguments()[0].toStdString() + " on " + backend + ": " + std::to_string(runs) +
           " runs with and " + std::to_string(runs) + " without per-node events, after " +
           std::to_string(*countOption(parser, "warmup", 0)) + " warm-up\n";
}

int profileRuns(const QCommandLineParser& parser, Model& model, const std::map<std::string, Tensor>& feeds,
                Outputs& outputs, int top) {
    const std::unique_ptr<Backend> backend = openBackend(parser, true);
    if (!backend) return 1;
    const ProfileResult result = profileModel(parser, model, *backend, feeds).result;
    outputs.write(result.nodes, result.events, "graphlens " + backend->name() + " " + QFileInfo(parser.positionalArguments()[0]).fileName().toStdString(),
                  result.memorySteps);
    if (parser.isSet("json")) print(profileJson(parser, result, backend->name()));
    else std::cout << runsLine(parser, backend->name()) << hotspotTable(result.nodes, top) << sessionSummary(result);
    return 0;
}

/// --compare: `original` without passes against `optimized` with them; the trace, CSV and
/// node data are the optimized model's.
int compareRuns(const QCommandLineParser& parser, const Model& original, const Model& optimized,
                const std::map<std::string, Tensor>& feeds, Outputs& outputs) {
    const std::unique_ptr<Backend> backend = openBackend(parser, true);
    if (!backend) return 1;
    const ProfiledModel before = profileModel(parser, original, *backend, feeds);
    const ProfiledModel after = profileModel(parser, optimized, *backend, feeds);
    const ProfileComparison comparison = compareProfiles(before.graph, before.graph, before.result, after.graph, after.result);
    outputs.write(after.result.nodes, after.result.events, "graphlens " + backend->name() + " " + QFileInfo(parser.positionalArguments()[0]).fileName().toStdString(),
                  after.result.memorySteps);
    const QString passes = parser.value("passes");
    if (parser.isSet("json")) {
        QJsonObject json = comparisonJson(comparison);
        json["passes"] = passes;
        json["before"] = profileJson(parser, before.result, backend->name());
        json["after"] = profileJson(parser, after.result, backend->name());
        print(json);
    } else {
        std::cout << runsLine(parser, backend->name()) << "before: no passes; after: --passes " << passes.toStdString() << "\n"
                  << comparisonTable(comparison) << comparisonSummary(comparison);
    }
    return 0;
}

} // namespace

int runProfile(const QStringList& args) {
    QCommandLineParser parser;
    addProfileOptions(parser);
    if (auto status = parseArguments(parser, args)) return *status;
    if (parser.positionalArguments().size() != 1) return fail("profile takes exactly one MODEL argument");
    if (!countOption(parser, "runs", 1) || !countOption(parser, "warmup", 0))
        return fail("--runs must be at least 1 and --warmup at least 0");
    const std::optional<int> top = countOption(parser, "top", 0);
    if (!top) return fail("--top must be 0 or more");
    if (parser.isSet("compare") && parser.isSet("ort-profile")) return fail("--compare runs the model; it does not go with --ort-profile");
    auto model = loadOrReport(parser.positionalArguments()[0]);
    if (!model) return 1;
    try {
        const Model original = *model;  // a snapshot: weights shared
        applyPassOption(*model, parser);
        const auto feeds = feedsFromOptions(*model, parser);
        Outputs outputs(parser);
        if (parser.isSet("ort-profile")) {
            std::map<std::string, std::vector<int64_t>> shapes;
            for (const auto& [name, tensor] : feeds) shapes[name] = tensor.dims();
            return importOrt(parser, *model, graphWithShapes(*model, shapes), outputs, *top);
        }
        if (parser.isSet("compare")) return compareRuns(parser, original, *model, feeds, outputs);
        return profileRuns(parser, *model, feeds, outputs, *top);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

} // namespace graphlens::cli
