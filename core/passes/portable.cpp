// One lowering per fused op, in a table; each puts standard nodes in the fused node's place.
#include "core/passes/portable.h"

#include "core/passes/fused_activation.h"
#include "core/passes/graph_query.h"
#include "core/passes/lower_activations.h"
#include "core/passes/pattern.h"
#include "core/passes/rewriter.h"

#include <functional>

namespace graphlens {
namespace {

/// `core(inputs)` [+ residual] [-> activation], replacing `node` (which keeps its outputs).
void lowerWithTail(Rewriter& rw, NodeId node, const std::string& coreOp, std::vector<ValueId> inputs,
                   Attributes attributes, ValueId residual, const std::optional<FusedActivation>& activation,
                   int64_t opset) {
    if (residual == kNoId && !activation) {
        rw.replaceNodes({node}, coreOp, std::move(inputs), std::move(attributes));
        return;
    }
    const std::string base = rw.graph().node(node).name;
    const NodeId from[] = {node};
    ValueId v = rw.graph().node(rw.addNode(coreOp, std::move(inputs), {base + "_" + coreOp}, std::move(attributes),
                                           from, base + "_" + coreOp)).outputs[0];
    const Value out = rw.graph().value(rw.graph().node(node).outputs[0]);  // every step keeps its shape
    rw.setValueInfo(v, out.dtype, out.shape);
    if (residual != kNoId && !activation) {
        rw.replaceNodes({node}, "Add", {v, residual}, {});
        return;
    }
    if (residual != kNoId) {
        v = rw.graph().node(rw.addNode("Add", {v, residual}, {base + "_sum"}, {}, from, base + "_add")).outputs[0];
        rw.setValueInfo(v, out.dtype, out.shape);
    }
    replaceWithActivation(rw, node, *activation, v, opset);
}

/// The node's attributes without the fused activation's.
Attributes withoutActivation(const Attributes& attributes) {
    Attributes out = attributes;
    out.erase("activation");
    out.erase("activation_params");
    return out;
}

/// FusedConv(X, W, B, Z) = activation(Conv(X, W, B) + Z).
void lowerFusedConv(Rewriter& rw, NodeId id, int64_t opset) {
    const Node& n = rw.graph().node(id);
    std::vector<ValueId> inputs(n.inputs.begin(), n.inputs.begin() + std::min<size_t>(3, n.inputs.size()));
    while (!inputs.empty() && inputs.back() == kNoId) inputs.pop_back();
    const ValueId z = hasInput(n, 3) ? n.inputs[3] : kNoId;
    lowerWithTail(rw, id, "Conv", inputs, withoutActivation(n.attributes), z, activationOf(n.attributes), opset);
}

/// FusedGemm(A, B, C) = activation(alpha * A * B + beta * C).
void lowerFusedGemm(Rewriter& rw, NodeId id, int64_t opset) {
    const Node& n = rw.graph().node(id);
    Attributes core = withoutActivation(n.attributes);
    for (const char* name : {"activation_alpha", "activation_beta", "activation_gamma"}) core.erase(name);
    lowerWithTail(rw, id, "Gemm", n.inputs, std::move(core), kNoId, gemmActivationOf(n.attributes), opset);
}

struct LoweringRule {
    const char* op;  ///< opKey() form
    std::function<void(Rewriter&, NodeId, int64_t)> lower;
    /// True when ONNX Runtime cannot run this node as it is.
    std::function<bool(const Node&)> onnxRuntimeLacks;
    /// For a default-domain op: the opset from which ONNX defines it (it is lowered only in
    /// models before that opset); 0 for ops outside the default domain.
    int64_t standardFromOpset = 0;
};

const std::vector<LoweringRule>& rules() {
    static const std::vector<LoweringRule> table = {
        {"com.microsoft:FusedConv", lowerFusedConv,
         [](const Node& n) {
             auto a = activationOf(n.attributes);
             return a && !onnxRuntimeFusesActivation(*a);
         }},
        {"com.microsoft:FusedGemm", lowerFusedGemm,
         [](const Node& n) {
             auto a = gemmActivationOf(n.attributes);
             return a && !onnxRuntimeFusesGemmActivation(*a);
         }},
        {"com.microsoft:Gelu", lowerGelu, [](const Node&) { return false; }},
        {"com.microsoft:BiasGelu", lowerBiasGelu, [](const Node&) { return false; }},
        {"com.microsoft:FastGelu", lowerFastGelu, [](const Node&) { return false; }},
        {"com.microsoft:QuickGelu", lowerQuickGelu, [](const Node&) { return false; }},
        {"LayerNormalization", lowerLayerNormalization, [](const Node&) { return false; }, 17},
        // @@ lowering rules
    };
    return table;
}

} // namespace

size_t lowerFusedOps(Model& model, Lowering what) {
    PassResult log;
    log.passId = "lower-fused-ops";
    size_t lowered = 0;
    const int64_t opset = model.opsetVersion();
    {
        Rewriter rw(model.graph, log);
        for (NodeId id : model.graph.topologicalOrder()) {
            const Node& n = model.graph.node(id);
            const std::string key = opKey(n);
            for (const LoweringRule& rule : rules()) {
                if (key != rule.op) continue;
                if (what == Lowering::ForOnnxRuntime && !rule.onnxRuntimeLacks(n)) break;
                if (rule.standardFromOpset != 0 && opset >= rule.standardFromOpset) break;
                rule.lower(rw, id, opset);
                rw.commit("lower", "lowered " + key);
                ++lowered;
                break;
            }
        }
    }
    // Drop imports of domains no node uses any more (nested graphs keep theirs).
    std::erase_if(model.opsets, [&](const OpsetImport& o) {
        if (o.domain.empty() || o.domain == "ai.onnx") return false;
        for (NodeId id : model.graph.nodeIds())
            if (model.graph.node(id).domain == o.domain) return false;
        return o.domain == "com.microsoft" || o.domain == "ai.graphlens";
    });
    return lowered;
}

} // namespace graphlens
