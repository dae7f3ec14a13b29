// The pass manager.
#include "core/passes/pass_manager.h"

#include "core/onnx/shape_inference.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"

#include <chrono>

namespace graphlens {

PassContext contextFor(const Model& model) {
    PassContext context;
    if (const int64_t opset = model.opsetVersion()) context.opset = opset;
    return context;
}

namespace {

void importDomains(Model& model, const std::map<std::string, int64_t>& domains) {
    for (const auto& [domain, version] : domains) {
        bool found = false;
        for (OpsetImport& o : model.opsets)
            if (o.domain == domain) {
                o.version = std::max(o.version, version);
                found = true;
            }
        if (!found) model.opsets.push_back({domain, version});
    }
}

/// The rewrite that made the node computing `tensor` (else the pass's first), for a sentence.
std::string blamedRewrite(const PassResult& r, const Graph& graph, const std::string& tensor) {
    if (r.rewrites.empty()) return "";
    NodeId producer = kNoId;
    if (auto v = graph.findValue(tensor)) producer = graph.value(*v).producer();
    for (const Rewrite& rewrite : r.rewrites)
        for (const NodeRef& added : rewrite.added)
            if (added.id == producer) return " in the rewrite '" + rewrite.sentence + "'";
    return " (its first rewrite: '" + r.rewrites.front().sentence + "')";
}

} // namespace

namespace {

/// Whether a computed value that is read still lacks a type or a shape of numbers only: shape inference may
/// then learn something from the constants a pass made. When every one is known, it cannot (a
/// 6,000-node transformer spends 10-20 ms finding that out).
bool someComputedShapeOpen(const Graph& graph) {
    for (NodeId id : graph.nodeIds())
        for (ValueId v : graph.node(id).outputs()) {
            if (v == kNoId) continue;
            const Value& value = graph.value(v);
            if (value.uses().empty() && !graph.isGraphOutput(v)) continue;  // read by nothing: no pattern asks
            if ((value.dtype == DType::Undefined && value.opaqueType.empty()) || !value.shape.isStatic()) return true;
        }
    return false;
}

} // namespace

PassResult runPass(Pass& pass, Model& model, PassContext& context, bool refreshShapes) {
    PassResult result;
    result.passId = pass.id();
    result.lossy = pass.lossy();
    result.nodesBefore = model.graph.nodeCount();
    const auto start = std::chrono::steady_clock::now();
    {
        Rewriter rewriter(model.graph, result);
        pass.run(rewriter, context);
        // An edit never committed would change the graph with no rewrite in the log.
        if (rewriter.hasPendingChanges())
            throw PassError("the pass '" + pass.id() + "' left changes it did not commit to a rewrite");
    }
#ifndef NDEBUG
    // Debug builds check every pass leaves a well-formed graph with consistent use lists.
    if (const auto problems = model.graph.validate(); !problems.empty())
        throw PassError("the pass '" + pass.id() + "' left a broken graph: " + problems.front());
#endif
    result.nodesAfter = model.graph.nodeCount();
    importDomains(model, result.domainsUsed);
    if (refreshShapes && !result.rewrites.empty() && pass.refreshesShapes() && someComputedShapeOpen(model.graph)) {
        try {
            inferShapesForInputs(model, {});
        } catch (const std::exception&) {
            // Shapes stay as they were; patterns that need them decline and say so.
        }
    }
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

PipelineReport runPipeline(Model& model, const std::vector<std::unique_ptr<Pass>>& passes,
                           PassContext& context, const PipelineOptions& options) {
    PipelineReport report;
    report.nodesBefore = model.graph.nodeCount();
    std::optional<NumericChecker> checker;
    if (options.verify) {
        checker.emplace(options.feeds, options.verifyOptions);
        checker->setBaseline(model);
    }
    for (const auto& pass : passes) {
        // A snapshot to go back to (structure copied, tensors shared), only where a failing pass
        // is undone: copying a 6,000-node graph before each of 18 passes costs more than most passes.
        std::optional<Model> before;
        if (checker && options.skipFailing) before = model;
        PassRun run{runPass(*pass, model, context), std::nullopt, false};
        if (checker && !run.result.rewrites.empty()) {
            // A lossy pass reports the error it introduces; the tolerance binds lossless ones.
            run.verification = checker->check(model, pass->lossy());
            if (!run.verification->passed && !pass->lossy()) {
                const std::string failure = "pass '" + pass->id() + "' breaks the tolerance" +
                                            blamedRewrite(run.result, model.graph, run.verification->failingTensor) + ": " + run.verification->failure;
                if (options.skipFailing) {
                    model = std::move(*before);
                    run.reverted = true;
                } else {
                    report.failure = failure;
                }
            }
        } else if (checker) {
            run.verification = VerifyReport{};  // nothing changed: exactly equal
        }
        report.passes.push_back(run);
        if (options.onPass) options.onPass(report.passes.back());
        if (!report.failure.empty()) break;
    }
    report.nodesAfter = model.graph.nodeCount();
    return report;
}

} // namespace graphlens
