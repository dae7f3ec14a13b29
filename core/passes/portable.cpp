// One lowering per fused op, in a table; each puts standard nodes in the fused node's place.
#include "core/passes/portable.h"

#include "core/graph/op_key.h"
#include "core/passes/fused_activation.h"
#include "core/passes/graph_query.h"
#include "core/passes/lower_activations.h"
#include "core/passes/pattern.h"
#include "core/passes/rewriter.h"

#include <functional>
#include <numeric>
#include <stdexcept>

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
                                           from, base + "_" + coreOp)).output(0);
    const Value out = rw.graph().value(rw.graph().node(node).output(0));  // every step keeps its shape
    rw.setValueInfo(v, out.dtype, out.shape);
    if (residual != kNoId && !activation) {
        rw.replaceNodes({node}, "Add", {v, residual}, {});
        return;
    }
    if (residual != kNoId) {
        v = rw.graph().node(rw.addNode("Add", {v, residual}, {base + "_sum"}, {}, from, base + "_add")).output(0);
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
    std::vector<ValueId> inputs(n.inputs().begin(), n.inputs().begin() + std::min<size_t>(3, n.inputs().size()));
    while (!inputs.empty() && inputs.back() == kNoId) inputs.pop_back();
    const ValueId z = hasInput(n, 3) ? n.input(3) : kNoId;
    lowerWithTail(rw, id, "Conv", inputs, withoutActivation(n.attributes), z, activationOf(n.attributes), opset);
}

/// FusedGemm(A, B, C) = activation(alpha * A * B + beta * C).
void lowerFusedGemm(Rewriter& rw, NodeId id, int64_t opset) {
    const Node& n = rw.graph().node(id);
    Attributes core = withoutActivation(n.attributes);
    for (const char* name : {"activation_alpha", "activation_beta", "activation_gamma"}) core.erase(name);
    lowerWithTail(rw, id, "Gemm", n.inputs(), std::move(core), kNoId, gemmActivationOf(n.attributes), opset);
}

/// FusedMatMul(A, B) = alpha * op(A) x op(B): a Transpose of the last two axes of each transposed
/// operand, MatMul, and a Mul by alpha unless it is 1.
void lowerFusedMatMul(Rewriter& rw, NodeId id, int64_t) {
    const Node n = rw.graph().node(id);  // a copy: the rewrites below change the graph
    if (n.attributes.getInt("transBatchA", 0) != 0 || n.attributes.getInt("transBatchB", 0) != 0)
        throw std::runtime_error("FusedMatMul '" + n.name + "' transposes batch axes, which has no lowering");
    const Value out = rw.graph().value(n.output(0));
    const float alpha = n.attributes.getFloat("alpha", 1.f);
    if (alpha != 1.f && out.dtype != DType::Float && out.dtype != DType::Double)
        throw std::runtime_error("FusedMatMul '" + n.name + "' scales a product that is neither float32 nor float64");
    const NodeId from[] = {id};
    std::vector<ValueId> operands = {n.input(0), n.input(1)};
    for (size_t side : {size_t(0), size_t(1)}) {
        if (n.attributes.getInt(side == 0 ? "transA" : "transB", 0) == 0) continue;
        const Value in = rw.graph().value(operands[side]);
        if (!in.shape.rankKnown())
            throw std::runtime_error("FusedMatMul '" + n.name + "' has an operand of unknown rank to transpose");
        if (in.shape.rank() < 2) continue;  // a 1-D operand is not transposed
        std::vector<int64_t> perm(in.shape.rank());
        std::iota(perm.begin(), perm.end(), 0);
        std::swap(perm[perm.size() - 2], perm.back());
        const std::string name = n.name + (side == 0 ? "_transpose_a" : "_transpose_b");
        operands[side] = rw.graph().node(rw.addNode("Transpose", {operands[side]}, {name}, {{"perm", perm}}, from, name)).output(0);
        std::vector<Dim> dims(in.shape.dims().begin(), in.shape.dims().end());
        std::swap(dims[dims.size() - 2], dims.back());
        rw.setValueInfo(operands[side], in.dtype, Shape(dims));
    }
    if (alpha == 1.f) {
        rw.replaceNodes({id}, "MatMul", operands, {});
        return;
    }
    const ValueId product =
        rw.graph().node(rw.addNode("MatMul", operands, {n.name + "_product"}, {}, from, n.name + "_MatMul")).output(0);
    rw.setValueInfo(product, out.dtype, out.shape);
    Tensor scale = out.dtype == DType::Double ? Tensor::fromVector(DType::Double, {}, std::vector<double>{alpha})
                                              : Tensor::scalar(alpha);
    rw.replaceNodes({id}, "Mul", {product, rw.addInitializer(n.name + "_alpha", std::move(scale))}, {});
}

/// SkipLayerNormalization(x, skip, gamma[, beta, bias]) = LayerNormalization(x + skip (+ bias),
/// gamma, beta) over the last axis; before opset 17 the LayerNormalization is lowered in turn.
void lowerSkipLayerNorm(Rewriter& rw, NodeId id, int64_t opset) {
    const Node n = rw.graph().node(id);  // a copy: the rewrites below change the graph
    if (laterOutputIsRead(rw.graph(), n))
        throw std::runtime_error("SkipLayerNormalization '" + n.name + "' cannot be lowered: an output after the first is read");
    const NodeId from[] = {id};
    const Value out = rw.graph().value(n.output(0));
    ValueId sum = rw.graph().node(rw.addNode("Add", {n.input(0), n.input(1)}, {n.name + "_sum"}, {}, from,
                                             n.name + "_Add")).output(0);
    rw.setValueInfo(sum, out.dtype, out.shape);
    if (hasInput(n, 4)) {
        sum = rw.graph().node(rw.addNode("Add", {sum, n.input(4)}, {n.name + "_biased"}, {}, from, n.name + "_bias")).output(0);
        rw.setValueInfo(sum, out.dtype, out.shape);
    }
    std::vector<ValueId> inputs{sum, n.input(2)};
    if (hasInput(n, 3)) inputs.push_back(n.input(3));
    Attributes attributes;
    attributes.set("axis", int64_t(-1));
    attributes.set("epsilon", n.attributes.getFloat("epsilon", 1e-12f));
    const NodeId norm = rw.replaceNodes({id}, "LayerNormalization", inputs, std::move(attributes));
    if (opset < 17) lowerLayerNormalization(rw, norm, opset);
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
        {"com.microsoft:FusedMatMul", lowerFusedMatMul, [](const Node&) { return false; }},
        {"com.microsoft:SkipLayerNormalization", lowerSkipLayerNorm, [](const Node&) { return false; }},
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
        if (isDefaultDomain(o.domain)) return false;
        for (NodeId id : model.graph.nodeIds())
            if (model.graph.node(id).domain == o.domain) return false;
        return o.domain == "com.microsoft" || o.domain == "ai.graphlens";
    });
    return lowered;
}

} // namespace graphlens
