// Running a graph with every intermediate kept, and comparing two runs value by value.
#include "core/passes/verify.h"

#include "core/runtime/backend.h"
#include "core/runtime/executor.h"
#include "core/runtime/tensor_compare.h"

#include <algorithm>

namespace graphlens {

NumericChecker::NumericChecker(std::map<std::string, Tensor> feeds, VerifyOptions options)
    : feeds_(std::move(feeds)), options_(options) {}

void NumericChecker::setBaseline(const Model& model) { baseline_ = runAll(model); }

NumericChecker::Computed NumericChecker::runAll(const Model& model) const {
    // Every produced value becomes a graph output of a copy, so the plan keeps it.
    Model copy = model;
    Graph& g = copy.graph;
    Computed computed;
    for (ValueId v : g.outputs()) computed.outputs.push_back(g.value(v).name);
    std::vector<ValueId> outputs = g.outputs();
    if (options_.intermediates) {
        for (NodeId id : g.nodeIds()) {
            const Node& n = g.node(id);
            if (n.opType == "Constant") continue;
            for (ValueId out : n.outputs()) {
                if (out == kNoId || g.isGraphOutput(out) || !g.value(out).opaqueType.empty()) continue;
                outputs.push_back(out);
            }
        }
        g.setOutputs(outputs);
    }
    CompileOptions compile;
    compile.threads = options_.threads;
    compile.maxMemory = options_.maxMemory;
    for (const auto& [name, tensor] : feeds_) compile.inputShapes[name] = tensor.dims();
    std::vector<Tensor> results = makeCpuBackend()->compile(copy, compile)->run(feeds_);
    for (size_t i = 0; i < outputs.size() && i < results.size(); ++i) {
        const Value& v = g.value(outputs[i]);
        computed.tensors[v.name] = results[i];
        if (v.producer() != kNoId) computed.provenance[v.name] = g.node(v.producer()).provenance;
    }
    for (NodeId id : g.topologicalOrder())
        for (ValueId out : g.node(id).outputs())
            if (out != kNoId && computed.tensors.count(g.value(out).name)) computed.order.push_back(g.value(out).name);
    // Graph outputs no node computes (an initializer after constant folding) are compared too.
    for (const std::string& name : computed.outputs)
        if (std::find(computed.order.begin(), computed.order.end(), name) == computed.order.end()) computed.order.push_back(name);
    return computed;
}

namespace {

/// True when every node `before` came from is also among the nodes `after` came from.
bool provenanceCovers(const std::vector<NodeId>& after, const std::vector<NodeId>& before) {
    return std::includes(after.begin(), after.end(), before.begin(), before.end());
}

void record(VerifyReport& report, const std::string& what, const std::string& name,
            const TensorComparison& c) {
    if (c.maxAbsError > report.maxAbsError) report.worstTensor = name;
    report.maxAbsError = std::max(report.maxAbsError, c.maxAbsError);
    report.maxRelError = std::max(report.maxRelError, c.maxRelError);
    if (!c.matches && report.passed) {
        report.passed = false;
        report.failure = what + " '" + name + "' differs: " + c.mismatch;
        report.failingTensor = name;
    }
}

} // namespace

VerifyReport NumericChecker::check(const Model& after, bool adoptAnyway) {
    VerifyReport report;
    Computed now;
    try {
        now = runAll(after);
    } catch (const std::exception& e) {
        report.passed = false;
        report.failure = std::string("the rewritten graph does not run: ") + e.what();
        return report;
    }
    // Outputs first in the count, but failures are found in execution order.
    for (const std::string& name : now.order) {
        auto before = baseline_.tensors.find(name);
        if (before == baseline_.tensors.end()) continue;
        const bool output = std::find(now.outputs.begin(), now.outputs.end(), name) != now.outputs.end();
        if (!output && !provenanceCovers(now.provenance[name], baseline_.provenance[name])) continue;
        record(report, output ? "output" : "intermediate", name,
               compareTensors(now.tensors[name], before->second, options_.rtol, options_.atol));
        ++(output ? report.outputsCompared : report.intermediatesCompared);
    }
    if (report.passed || adoptAnyway) baseline_ = std::move(now);
    return report;
}

} // namespace graphlens
