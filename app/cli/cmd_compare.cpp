// `graphlens compare A [B] [--backend-a cpu|vulkan] [--backend-b cpu|vulkan] [--input NAME=FILE.pb ...]
// [--seed N] [--dim NAME=VALUE] [--passes-b PASSES] [--tolerance REL] [--json] [--heatmap OUT.svg|png]
// [--bisect]`: two models, or one model on two backends, compared node by node (core/compare):
// matching, structural diff, per-tensor errors, the first divergence, the outputs; with --bisect,
// the first pass of --passes-b whose result diverges. Exit status 0 when nothing diverges beyond
// the tolerance, 3 when something does, 1 for bad input.
#include "app/cli/cli.h"
#include "app/cli/heatmap_values.h"
#include "app/cli/model_inputs.h"
#include "app/cli/model_report.h"
#include "core/compare/compare.h"
#include "core/compare/provenance_map.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/runtime/errors.h"
#include "viewer/graph_layout.h"
#include "viewer/graph_scene.h"
#include "viewer/scene_export.h"

#include <QApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

#include <cstdio>
#include <iostream>

namespace graphlens::cli {
namespace {

/// The status of a comparison that found a divergence beyond the tolerance.
constexpr int kDiverged = 3;

void addCompareOptions(QCommandLineParser& parser) {
    parser.setApplicationDescription("Compare two models, or one model on two backends, node by node.");
    parser.addPositionalArgument("A", "the reference model");
    parser.addPositionalArgument("B", "the model compared with it (default: A itself)", "[B]");
    parser.addOption({"backend-a", "backend running A", "cpu|vulkan", "cpu"});
    parser.addOption({"backend-b", "backend running B", "cpu|vulkan", "cpu"});
    addDeviceOption(parser);
    parser.addOption({"input", "input NAME from an ONNX TensorProto file (both models)", "NAME=FILE.pb"});
    parser.addOption({"seed", "seed of the random inputs", "N", "0"});
    parser.addOption({"dim", "size of a symbolic dimension", "NAME=VALUE"});
    parser.addOption({"passes-b", "passes applied to B (default|all|ID,...) before comparing", "PASSES"});
    parser.addOption({"tolerance", "a tensor diverges when its max relative error exceeds REL (default 1e-3)", "REL", "1e-3"});
    parser.addOption({"threads", "CPU threads (default: all cores)", "T", "0"});
    parser.addOption({"max-memory", "hold at most BYTES of A's tensors at once (K, M, G, T suffixes; "
                                    "default: no limit, one round)", "BYTES"});
    parser.addOption({"structure", "matching and structural diff only: run nothing"});
    parser.addOption({"json", "print JSON instead of tables"});
    parser.addOption({"heatmap", "draw B's graph with each node's max relative error as a heat overlay", "OUT.svg|png"});
    parser.addOption({"bisect", "apply --passes-b one pass at a time and name the first whose result diverges"});
}

double number(const QCommandLineParser& parser, const QString& name, double low) {
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || !(value >= low)) throw std::runtime_error("--" + name.toStdString() + " must be a number, at least " + std::to_string(int(low)));
    return value;
}

/// The comparison settings from the options; throws std::runtime_error with one sentence.
CompareOptions compareOptions(const QCommandLineParser& parser, const Model& a) {
    CompareOptions options;
    options.backendA = parser.value("backend-a").toStdString();
    options.backendB = parser.value("backend-b").toStdString();
    for (const std::string& name : {options.backendA, options.backendB})
        if (name != "cpu" && name != "vulkan") throw std::runtime_error("the backend '" + name + "' is not known; use cpu or vulkan");
    bool ok = false;
    options.deviceA = options.deviceB = parser.value("device").toInt(&ok);
    if (!ok || options.deviceA < -1) throw std::runtime_error("--device takes a device index from `graphlens devices`");
    options.tolerance = number(parser, "tolerance", 0);
    options.threads = int(number(parser, "threads", 0));
    options.memoryBudget = maxMemoryFromOptions(parser);
    options.numeric = !parser.isSet("structure");
    bool seedOk = false;
    const uint64_t seed = parser.value("seed").toULongLong(&seedOk);
    if (!seedOk) throw std::runtime_error("--seed must be a non-negative whole number");
    if (options.numeric) options.feeds = makeFeeds(a.graph, parser.values("input"), parser.values("dim"), seed);
    return options;
}

/// Composes B -> B0 (in memory) with B0 -> A (metadata): B made from a saved B0 by passes here.
ProvenanceMap compose(const ProvenanceMap& bToB0, const ProvenanceMap& b0ToA) {
    ProvenanceMap map;
    for (const auto& [node, from] : bToB0) {
        std::set<NodeId> group;
        for (NodeId b0 : from)
            if (auto it = b0ToA.find(b0); it != b0ToA.end()) group.insert(it->second.begin(), it->second.end());
        if (!group.empty()) map[node] = {group.begin(), group.end()};
    }
    return map;
}

void applyPasses(Model& model, const std::string& spec) {
    PassContext context = contextFor(model);
    runPipeline(model, makePipeline(spec), context, {});
}

QJsonValue finite(double value) { return std::isfinite(value) ? QJsonValue(value) : QJsonValue(); }

QJsonArray nodeNames(const Graph& g, const std::vector<NodeId>& ids) {
    QJsonArray names;
    for (NodeId id : ids) names.append(QString::fromStdString(nodeDisplayName(g, id)));
    return names;
}

QJsonObject errorJson(const TensorError& e) {
    QJsonObject json{{"max_abs_error", finite(e.maxAbsError)}, {"max_rel_error", finite(e.maxRelError)}, {"cosine", finite(e.cosine)}};
    if (!e.problem.empty()) json["problem"] = QString::fromStdString(e.problem);
    return json;
}

QJsonObject nodeJson(const ComparisonReport& r, const NodeError& e, const Graph& a) {
    const NodeMatch& m = r.matching.matches[e.match];
    QJsonObject json{{"name_a", QString::fromStdString(e.nameA)}, {"name_b", QString::fromStdString(e.nameB)},
                     {"op", QString::fromStdString(e.op)}, {"method", matchMethodName(m.method)}, {"compared", e.compared}};
    if (m.groupA.size() > 1) json["group_a"] = nodeNames(a, m.groupA);
    if (e.compared) {
        const QJsonObject error = errorJson(e.error);
        for (auto it = error.begin(); it != error.end(); ++it) json[it.key()] = it.value();
        json["diverges"] = r.diverges(e.error);
    } else {
        json["note"] = QString::fromStdString(e.note);
    }
    return json;
}

QJsonArray changedJson(const ComparisonReport& r, const Graph& a, const Graph& b) {
    QJsonArray changed;
    for (const NodeChange& c : r.changed) {
        QJsonArray attributes, weights;
        for (const std::string& text : c.attributes) attributes.append(QString::fromStdString(text));
        for (const WeightChange& w : c.weights)
            weights.append(QJsonObject{{"input", w.input}, {"name_a", QString::fromStdString(w.nameA)},
                                       {"name_b", QString::fromStdString(w.nameB)}, {"max_abs_difference", w.maxAbsDifference},
                                       {"relative_l2", w.relativeL2}, {"shape_change", QString::fromStdString(w.shapeChange)}});
        changed.append(QJsonObject{{"name_a", QString::fromStdString(nodeDisplayName(a, c.a))},
                                   {"name_b", QString::fromStdString(nodeDisplayName(b, c.b))},
                                   {"op_change", QString::fromStdString(c.opChange)}, {"attributes", attributes}, {"weights", weights}});
    }
    return changed;
}

QJsonObject reportJson(const ComparisonReport& r, const Model& a, const Model& b) {
    QJsonArray nodes, outputs;
    if (r.numeric)
        for (const NodeError& e : r.nodes) nodes.append(nodeJson(r, e, a.graph));
    for (const OutputError& o : r.outputs) {
        QJsonObject json = errorJson(o.error);
        json["name_a"] = QString::fromStdString(o.nameA);
        json["name_b"] = QString::fromStdString(o.nameB);
        json["diverges"] = r.diverges(o.error);
        outputs.append(json);
    }
    QJsonObject json{{"matched", qint64(r.matching.matches.size())}, {"only_a", nodeNames(a.graph, r.matching.onlyA)},
                     {"folded_a", nodeNames(a.graph, r.matching.foldedA)},
                     {"only_b", nodeNames(b.graph, r.matching.onlyB)}, {"changed", changedJson(r, a.graph, b.graph)},
                     {"nodes", nodes}, {"outputs", outputs}, {"tolerance", r.tolerance},
                     {"first_divergence", r.firstDivergence ? QJsonValue(nodeJson(r, r.nodes[*r.firstDivergence], a.graph)) : QJsonValue()},
                     {"peak_bytes", qint64(r.peakBytes)}, {"intermediate_bytes", qint64(r.intermediateBytes)}, {"rounds", r.rounds}};
    return json;
}

QJsonObject bisectJson(const BisectReport& r, const Model& a, const Model& b) {
    QJsonArray steps, nodesA, nodesB;
    for (const BisectStep& s : r.steps)
        steps.append(QJsonObject{{"pass", QString::fromStdString(s.passId)}, {"rewrites", qint64(s.rewrites)}, {"compared", s.compared},
                                 {"diverges", s.diverged}, {"max_rel_error", finite(s.maxRelError)}});
    for (const std::string& n : r.nodesA) nodesA.append(QString::fromStdString(n));
    for (const std::string& n : r.nodesB) nodesB.append(QString::fromStdString(n));
    QJsonObject json{{"steps", steps}, {"sentence", QString::fromStdString(r.sentence)}, {"nodes_a", nodesA}, {"nodes_b", nodesB},
                     {"pass", r.divergentStep ? QJsonValue(QString::fromStdString(r.steps[*r.divergentStep].passId)) : QJsonValue()},
                     {"rewrite", r.rewrite ? QJsonValue(QString::fromStdString(r.rewrite->sentence)) : QJsonValue()}};
    if (r.divergentStep) json["comparison"] = reportJson(r.comparison, a, b);
    return json;
}

std::string errorColumns(const TensorError& e) {
    char line[96];
    std::snprintf(line, sizeof line, "%10.3g %10.3g %10.6f", e.maxAbsError, e.maxRelError, e.cosine);
    return line;
}

/// The table of matched nodes in B's order: '!' marks a node beyond tolerance, '<- worst' the
/// largest relative error.
void printNodes(const ComparisonReport& r) {
    std::optional<size_t> worst;
    for (size_t i = 0; i < r.nodes.size(); ++i)
        if (r.nodes[i].compared && (!worst || r.nodes[i].error.maxRelError > r.nodes[worst.value()].error.maxRelError)) worst = i;
    std::printf("  %-40s %-20s %10s %10s %10s\n", "node (B)", "op", "max abs", "max rel", "cosine");
    for (size_t i = 0; i < r.nodes.size(); ++i) {
        const NodeError& e = r.nodes[i];
        const std::string name = e.nameB + (e.nameA != e.nameB ? " ~ " + e.nameA : "");
        const char mark = e.compared && r.diverges(e.error) ? '!' : ' ';
        if (!e.compared) std::printf("%c %-40s %-20s %s\n", mark, name.c_str(), e.op.c_str(), e.note.c_str());
        else std::printf("%c %-40s %-20s %s%s\n", mark, name.c_str(), e.op.c_str(), errorColumns(e.error).c_str(), worst == i ? "  <- worst" : "");
    }
}

void printStructure(const ComparisonReport& r, const Model& a, const Model& b) {
    if (!r.matching.onlyA.empty()) {
        std::printf("only in A:");
        for (NodeId id : r.matching.onlyA) std::printf(" %s (%s)", nodeDisplayName(a.graph, id).c_str(), a.graph.node(id).opType.c_str());
        std::printf("\n");
    }
    if (!r.matching.onlyB.empty()) {
        std::printf("only in B:");
        for (NodeId id : r.matching.onlyB) std::printf(" %s (%s)", nodeDisplayName(b.graph, id).c_str(), b.graph.node(id).opType.c_str());
        std::printf("\n");
    }
    for (const NodeChange& c : r.changed) {
        std::printf("changed %s:", nodeDisplayName(b.graph, c.b).c_str());
        if (!c.opChange.empty()) std::printf(" op %s;", c.opChange.c_str());
        for (const std::string& text : c.attributes) std::printf(" %s;", text.c_str());
        for (const WeightChange& w : c.weights) {
            if (w.shapeChange == "added" || w.shapeChange == "removed") std::printf(" input %d %s;", w.input, w.shapeChange.c_str());
            else std::printf(" input %d max abs %.3g, relative L2 %.3g%s;", w.input, w.maxAbsDifference, w.relativeL2,
                             w.shapeChange.empty() ? "" : (" (" + w.shapeChange + ")").c_str());
        }
        std::printf("\n");
    }
}

void printReport(const ComparisonReport& r, const Model& a, const Model& b) {
    size_t byMethod[3] = {0, 0, 0};
    for (const NodeMatch& m : r.matching.matches) ++byMethod[int(m.method)];
    const std::string folded = r.matching.foldedA.empty()
                                   ? std::string()
                                   : " (" + std::to_string(r.matching.foldedA.size()) + " of them folded or fused into a B node)";
    std::printf("matched %zu nodes (%zu by provenance, %zu by name, %zu by structure), %zu only in A%s, %zu only in B, %zu changed\n",
                r.matching.matches.size(), byMethod[0], byMethod[1], byMethod[2], r.matching.onlyA.size(), folded.c_str(),
                r.matching.onlyB.size(), r.changed.size());
    if (r.numeric) printNodes(r);
    printStructure(r, a, b);
    if (!r.numeric) return;
    if (r.firstDivergence) {
        const NodeError& e = r.nodes[*r.firstDivergence];
        std::printf("first divergence: %s (%s), max relative error %.3g > tolerance %.3g\n", e.nameB.c_str(), e.op.c_str(),
                    e.error.maxRelError, r.tolerance);
    } else {
        std::printf("first divergence: none beyond tolerance %.3g\n", r.tolerance);
    }
    for (const OutputError& o : r.outputs)
        std::printf("output %s:%s%s\n", o.nameB.c_str(), errorColumns(o.error).c_str(), r.diverges(o.error) ? "  beyond tolerance" : "");
    std::printf("peak %s held by the comparison (every intermediate of both runs: %s), %d round%s\n",
                humanCount(double(r.peakBytes), "B").toStdString().c_str(), humanCount(double(r.intermediateBytes), "B").toStdString().c_str(),
                r.rounds, r.rounds == 1 ? "" : "s");
}

/// Draws B's graph with each compared node's max relative error (log scale from 1e-7).
void writeHeatmap(const QString& path, const ComparisonReport& r, const Model& b) {
    std::unordered_map<NodeId, double> values;
    double largest = 1;
    for (const NodeError& e : r.nodes)
        if (e.compared) {
            values[r.matching.matches[e.match].b] = e.error.maxRelError;
            largest = std::max(largest, std::isfinite(e.error.maxRelError) ? e.error.maxRelError : 1.0);
        }
    GraphScene scene;
    GraphLayoutRequest request;
    request.measure = scene.textMeasure();
    scene.showGraph(layoutGraph(b.graph, request));
    paintNodeHeat(scene, {values, {}}, HeatScale(1e-7, largest, HeatScaleKind::Log), "max relative error per node (B against A)", "");
    writeSceneImage(scene, path, QFileInfo(path).fileName());
}

struct Inputs {
    Model a, b;
    ProvenanceMap provenance;
};

/// A and B as the arguments say: B defaults to A (with identical provenance), --passes-b applies
/// to B; provenance from memory or from B's metadata. nullopt after printing an error.
std::optional<Inputs> loadModels(const QCommandLineParser& parser) {
    const QStringList positional = parser.positionalArguments();
    auto a = loadOrReport(positional[0]);
    if (!a) return std::nullopt;
    Inputs in{*a, *a, {}};
    if (positional.size() == 2) {
        auto b = loadOrReport(positional[1]);
        if (!b) return std::nullopt;
        in.b = std::move(*b);
        in.provenance = provenanceFromMetadata(in.b, in.a.graph);
    } else {
        for (NodeId id : in.a.graph.nodeIds()) in.provenance[id] = {id};
    }
    if (parser.isSet("passes-b") && !parser.isSet("bisect")) {
        const Model before = in.b;
        applyPasses(in.b, parser.value("passes-b").toStdString());
        in.provenance = compose(provenanceBetween(before.graph, in.b.graph), in.provenance);
    }
    return in;
}

std::string problemWithArguments(const QCommandLineParser& parser) {
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty() || positional.size() > 2) return "compare takes a model A and optionally a model B";
    if (parser.isSet("bisect") && !parser.isSet("passes-b")) return "--bisect needs the pipeline to bisect: --passes-b PASSES";
    if (parser.isSet("bisect") && positional.size() == 2) return "--bisect compares A with A after each pass: give one model";
    if (parser.isSet("structure") && (parser.isSet("bisect") || parser.isSet("heatmap")))
        return "--structure runs nothing: it cannot go with --bisect or --heatmap";
    if (parser.isSet("heatmap") && !imageFormatOf(parser.value("heatmap")))
        return "cannot write '" + parser.value("heatmap").toStdString() + "': the file name must end in .svg or .png";
    if (parser.isSet("heatmap") && !qobject_cast<QApplication*>(QCoreApplication::instance()))
        return "--heatmap needs the Qt widgets library, which could not start";
    return {};
}

int runBisect(const QCommandLineParser& parser, const Inputs& in, const CompareOptions& options) {
    const BisectReport r = bisectPasses(in.a, makePipeline(parser.value("passes-b").toStdString()), options);
    if (parser.isSet("json")) {
        std::cout << QJsonDocument(bisectJson(r, in.a, r.model)).toJson(QJsonDocument::Indented).toStdString();
    } else {
        for (const BisectStep& s : r.steps) {
            const std::string verdict = !s.compared ? std::string("unchanged")
                                                    : (s.diverged ? "DIVERGES, max rel " : "ok, max rel ") +
                                                          QString::number(s.maxRelError, 'g', 3).toStdString();
            std::printf("%-34s %4zu rewrites  %s\n", s.passId.c_str(), s.rewrites, verdict.c_str());
        }
        std::printf("%s\n", r.sentence.c_str());
        if (!r.nodesA.empty() || !r.nodesB.empty()) {
            std::printf("nodes involved: A");
            for (const std::string& n : r.nodesA) std::printf(" %s", n.c_str());
            std::printf("; B");
            for (const std::string& n : r.nodesB) std::printf(" %s", n.c_str());
            std::printf("\n");
        }
    }
    return r.divergentStep ? kDiverged : 0;
}

} // namespace

int runCompare(const QStringList& args) {
    QCommandLineParser parser;
    addCompareOptions(parser);
    if (auto status = parseArguments(parser, args)) return *status;
    if (const std::string problem = problemWithArguments(parser); !problem.empty()) return fail(problem);
    try {
        auto in = loadModels(parser);
        if (!in) return 1;
        const CompareOptions options = compareOptions(parser, in->a);
        if (parser.isSet("bisect")) return runBisect(parser, *in, options);
        const ComparisonReport r = compareModels(in->a, in->b, in->provenance, options);
        if (parser.isSet("json")) std::cout << QJsonDocument(reportJson(r, in->a, in->b)).toJson(QJsonDocument::Indented).toStdString();
        else printReport(r, in->a, in->b);
        if (parser.isSet("heatmap")) writeHeatmap(parser.value("heatmap"), r, in->b);
        return r.firstDivergence || r.firstDivergentOutput() ? kDiverged : 0;
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

} // namespace graphlens::cli
