// ModelDiff: the worker side (compareModels with the window's progress and cancel, then each
// side's tensor statistics from a tapped run) and what the canvas and the dock make of a result.
#include "app/model_diff.h"

#include "app/cli/model_inputs.h"
#include "core/compare/tapped_run.h"

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <set>

namespace graphlens {
namespace {

constexpr double kLowestError = 1e-7;

QString sci(double v) { return std::isfinite(v) ? QString::number(v, 'g', 3) : QStringLiteral("∞"); }

/// The value's name, empty for a missing value.
std::string valueName(const Graph& g, ValueId v) { return v != kNoId && g.hasValue(v) ? g.value(v).name : std::string(); }

/// B's feeds: A's feed of the input of the same name, else of the input at the same position.
std::map<std::string, Tensor> feedsOfB(const Graph& a, const Graph& b, const std::map<std::string, Tensor>& feeds) {
    std::map<std::string, Tensor> fed;
    for (size_t i = 0; i < b.inputs().size(); ++i) {
        const std::string& name = b.value(b.inputs()[i]).name;
        if (auto it = feeds.find(name); it != feeds.end()) fed[name] = it->second;
        else if (i < a.inputs().size())
            if (auto at = feeds.find(a.value(a.inputs()[i]).name); at != feeds.end()) fed[name] = at->second;
    }
    return fed;
}

} // namespace

QStringList symbolicDimsAsOne(const Graph& graph) {
    QStringList specs;
    for (ValueId v : graph.inputs())
        for (const Dim& d : graph.value(v).shape.dims())
            if (d.isSymbolic() && !specs.contains(QString::fromStdString(d.symbol()) + "=1")) specs << QString::fromStdString(d.symbol()) + "=1";
    return specs;
}

HeatScale errorScale() { return HeatScale(kLowestError, 1.0, HeatScaleKind::Log); }

QColor errorColor(double maxRelError) {
    const double v = std::isnan(maxRelError) ? 1.0 : std::max(maxRelError, kLowestError);
    const Rgb c = errorScale().color(v);
    return QColor(c.r, c.g, c.b);
}

QColor neutralErrorFill(bool dark) { return dark ? QColor(88, 88, 92) : QColor(214, 214, 218); }

DiffMarks diffMarks(const ModelDiff& diff) {
    DiffMarks marks;
    const ComparisonReport& r = diff.report;
    marks.onlyA = r.matching.onlyA;
    marks.onlyB = r.matching.onlyB;
    for (const NodeChange& c : r.changed) {
        if (c.a != kNoId) marks.changedA.push_back(c.a);
        if (c.b != kNoId) marks.changedB.push_back(c.b);
    }
    for (const NodeError& e : r.nodes) {
        if (!e.compared) continue;
        const NodeMatch& m = r.matching.matches[e.match];
        const double error = e.error.comparable() ? e.error.maxRelError : INFINITY;
        marks.errorB[m.b] = error;
        std::vector<NodeId> group = m.groupA;
        if (group.empty()) group.push_back(m.boundaryA != kNoId ? m.boundaryA : m.a);
        for (NodeId a : group) {
            auto [it, fresh] = marks.errorA.emplace(a, error);
            if (!fresh) it->second = std::max(it->second, error);
        }
    }
    return marks;
}

std::unordered_map<NodeId, QColor> errorFills(const Graph& graph, const std::unordered_map<NodeId, double>& errors, bool dark) {
    std::unordered_map<NodeId, QColor> fills;
    for (NodeId n : graph.nodeIds()) {
        const auto it = errors.find(n);
        fills[n] = it == errors.end() ? neutralErrorFill(dark) : errorColor(it->second);
    }
    return fills;
}

std::optional<size_t> matchOfNode(const ModelDiff& diff, NodeId a, NodeId b) {
    const auto& matches = diff.report.matching.matches;
    for (size_t i = 0; i < matches.size(); ++i) {
        const NodeMatch& m = matches[i];
        if (b != kNoId ? m.b == b
                       : (m.a == a || m.boundaryA == a || std::find(m.groupA.begin(), m.groupA.end(), a) != m.groupA.end()))
            return i;
    }
    return std::nullopt;
}

const NodeError* nodeErrorOf(const ModelDiff& diff, size_t match) {
    for (const NodeError& e : diff.report.nodes)
        if (e.match == match) return &e;
    return nullptr;
}

QString diffSummary(const ModelDiff& diff) {
    const ComparisonReport& r = diff.report;
    QStringList lines;
    if (!diff.sentence.isEmpty()) lines << diff.sentence;
    lines << QObject::tr("A: %1 (%2 nodes) · B: %3 (%4 nodes)")
                 .arg(diff.nameA).arg(diff.a->graph.nodeCount()).arg(diff.nameB).arg(diff.b->graph.nodeCount());
    if (!diff.symbolicDims.isEmpty()) lines << QObject::tr("inputs: seeded random values, %1").arg(diff.symbolicDims.join(", "));
    const QString folded = r.matching.foldedA.empty()
                               ? QString()
                               : QObject::tr(" (%1 folded into B nodes)").arg(r.matching.foldedA.size());
    lines << QObject::tr("matched %1 · only in A %2%3 · only in B %4 · changed %5")
                 .arg(r.matching.matches.size()).arg(r.matching.onlyA.size()).arg(folded).arg(r.matching.onlyB.size()).arg(r.changed.size());
    if (r.numeric) {
        if (r.firstDivergence) {
            const NodeError& e = r.nodes[*r.firstDivergence];
            lines << QObject::tr("first divergence: %1 (%2), max rel error %3 > %4")
                         .arg(QString::fromStdString(e.nameB), QString::fromStdString(e.op), sci(e.error.maxRelError), sci(r.tolerance));
        } else {
            lines << QObject::tr("first divergence: none beyond tolerance %1").arg(sci(r.tolerance));
        }
        for (const OutputError& o : r.outputs)
            lines << QObject::tr("output %1: max abs %2, max rel %3, cosine %4%5")
                         .arg(QString::fromStdString(o.nameB), sci(o.error.maxAbsError), sci(o.error.maxRelError),
                              QString::number(o.error.cosine, 'f', 6), r.diverges(o.error) ? QObject::tr(" (beyond tolerance)") : QString());
    }
    return lines.join('\n');
}

CompareOptions diffOptions(const DiffRequest& request) {
    CompareOptions options;
    options.backendA = request.backendA;
    options.backendB = request.backendB;
    options.deviceB = request.deviceB;
    options.feeds = cli::makeFeeds(request.a->graph, {}, symbolicDimsAsOne(request.a->graph), 0);
    return options;
}

void collectPairStats(ModelDiff& diff, const CompareOptions& options) {
    const auto& matches = diff.report.matching.matches;
    std::map<std::string, size_t> wantedA, wantedB;  // value name -> match
    for (const NodeError& e : diff.report.nodes) {
        if (!e.compared || matches[e.match].values.empty()) continue;
        const auto [va, vb] = matches[e.match].values.front();
        TensorPairStats& s = diff.stats[e.match];
        s.valueA = valueName(diff.a->graph, va);
        s.valueB = valueName(diff.b->graph, vb);
        if (!s.valueA.empty()) wantedA[s.valueA] = e.match;
        if (!s.valueB.empty()) wantedB[s.valueB] = e.match;
    }
    const auto run = [&](const Model& model, const std::string& backend, int device, const std::map<std::string, size_t>& wanted, bool sideA) {
        const std::map<std::string, Tensor> feeds = sideA ? options.feeds : feedsOfB(diff.a->graph, diff.b->graph, options.feeds);
        std::set<std::string> names;
        for (const auto& [name, match] : wanted) names.insert(name);
        if (names.empty()) return;
        TappedRun tapped(model, backend, device, feeds, options.threads);
        tapped.run(names, [&](const std::string& name, const Tensor& tensor) {
            const auto it = wanted.find(name);
            if (it == wanted.end()) return;
            TensorPairStats& s = diff.stats[it->second];
            (sideA ? s.a : s.b) = weightStats(tensor);
        });
    };
    run(*diff.a, options.backendA, options.deviceA, wantedA, true);
    run(*diff.b, options.backendB, options.deviceB, wantedB, false);
}

ModelDiff computeDiff(const DiffRequest& request, const TaskRunner::Control& control) {
    CompareOptions options = diffOptions(request);
    options.progress = [&control](const std::string& stage, double fraction) {
        control.report(int(std::lround(fraction * 90)), 100, QString::fromStdString(stage));
        return !control.cancelled();
    };
    ModelDiff diff;
    diff.kind = request.kind;
    diff.a = request.a;
    diff.b = request.b;
    diff.nameA = request.nameA;
    diff.nameB = request.nameB;
    diff.symbolicDims = symbolicDimsAsOne(request.a->graph);
    diff.report = compareModels(*request.a, *request.b, request.provenance, options);
    control.report(90, 100, QObject::tr("statistics of both sides"));
    if (control.cancelled()) throw CompareCancelled();
    collectPairStats(diff, options);
    return diff;
}

} // namespace graphlens
