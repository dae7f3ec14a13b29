// Pass bisection: a pipeline applied one pass at a time, each result compared with the original.
#include "core/compare/compare.h"

#include "core/passes/pass_manager.h"

#include <algorithm>

namespace graphlens {
namespace {

double worstError(const ComparisonReport& report) {
    double worst = 0;
    for (const NodeError& e : report.nodes)
        if (e.compared) worst = std::max(worst, e.error.maxRelError);
    for (const OutputError& o : report.outputs) worst = std::max(worst, o.error.maxRelError);
    return worst;
}

bool mentions(const std::vector<NodeRef>& refs, NodeId id, const std::string& name) {
    return std::any_of(refs.begin(), refs.end(), [&](const NodeRef& r) { return r.id == id || (!name.empty() && r.name == name); });
}

/// The rewrite of `result` that made or changed B's node `b` (or that removed one of the A nodes
/// it stands for); else the pass's first rewrite.
const Rewrite* blame(const PassResult& result, const Graph& b, NodeId node, const Graph& a, const NodeMatch& match) {
    for (const Rewrite& w : result.rewrites)
        if (mentions(w.added, node, b.node(node).name)) return &w;
    for (const Rewrite& w : result.rewrites)
        for (NodeId original : match.groupA)
            if (mentions(w.removed, kNoId, a.node(original).name)) return &w;
    return result.rewrites.empty() ? nullptr : &result.rewrites.front();
}

void describeDivergence(const Model& a, const Model& b, const PassResult& result, BisectReport& report) {
    const ComparisonReport& c = report.comparison;
    std::string where;
    if (c.firstDivergence) {
        const NodeError& e = c.nodes[*c.firstDivergence];
        const NodeMatch& m = c.matching.matches[e.match];
        for (NodeId id : m.groupA) report.nodesA.push_back(nodeDisplayName(a.graph, id));
        report.nodesB.push_back(e.nameB);
        if (const Rewrite* w = blame(result, b.graph, m.b, a.graph, m)) report.rewrite = *w;
        where = " first at node '" + e.nameB + "' (max relative error " + std::to_string(e.error.maxRelError) + ")";
    } else if (auto o = c.firstDivergentOutput()) {
        if (!result.rewrites.empty()) report.rewrite = result.rewrites.front();
        where = " at output '" + c.outputs[*o].nameB + "' (max relative error " + std::to_string(c.outputs[*o].error.maxRelError) + ")";
    }
    if (report.rewrite) {
        for (const NodeRef& r : report.rewrite->removed)
            if (std::find(report.nodesA.begin(), report.nodesA.end(), r.name) == report.nodesA.end()) report.nodesA.push_back(r.name);
        for (const NodeRef& r : report.rewrite->added)
            if (std::find(report.nodesB.begin(), report.nodesB.end(), r.name) == report.nodesB.end()) report.nodesB.push_back(r.name);
    }
    report.sentence = "pass '" + result.passId + "' diverges beyond the tolerance" + where +
                      (report.rewrite ? " in the rewrite '" + report.rewrite->sentence + "'" : std::string());
}

} // namespace

BisectReport bisectPasses(const Model& a, const std::vector<std::unique_ptr<Pass>>& passes, const CompareOptions& options) {
    BisectReport report;
    Model b = a;  // a snapshot: weights shared
    PassContext context = contextFor(b);
    for (size_t i = 0; i < passes.size(); ++i) {
        if (options.progress && !options.progress("pass " + passes[i]->id(), double(i) / double(passes.size())))
            throw CompareCancelled();
        const PassResult result = runPass(*passes[i], b, context);
        BisectStep step;
        step.passId = result.passId;
        step.rewrites = result.rewrites.size();
        if (result.rewrites.empty()) {
            report.steps.push_back(step);
            continue;
        }
        CompareOptions once = options;
        once.progress = nullptr;
        report.comparison = compareModels(a, b, provenanceBetween(a.graph, b.graph), once);
        step.compared = true;
        step.maxRelError = worstError(report.comparison);
        step.diverged = report.comparison.firstDivergence || report.comparison.firstDivergentOutput();
        report.steps.push_back(step);
        if (step.diverged) {
            report.divergentStep = report.steps.size() - 1;
            describeDivergence(a, b, result, report);
            report.model = std::move(b);
            return report;
        }
    }
    report.sentence = "no pass diverges beyond the tolerance";
    report.model = std::move(b);
    return report;
}

} // namespace graphlens
