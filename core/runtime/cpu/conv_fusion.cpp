// The CPU plan's kernel fusion of conv_fusion.h: the pass library's patterns, in the order of the
// default pipeline, run on the plan's copy of the graph; then each node they made is traced back,
// through provenance, to the nodes of the caller's graph it stands for.
//   x * hardsigmoid(x) -> HardSwish(x);  x * sigmoid(x) -> QuickGelu(x, 1)
//   Conv(x, W, b) -> BatchNormalization  ->  Conv(x, W * k, b * k + shift)
//   Conv(x, W, b) * c + d                 ->  Conv(x, W * c, b * c + d)   (c, d constant per channel)
//   Conv(x) + z -> [activation]          ->  FusedConv(x, W, b, Z = z, activation)
// Before them, constants an exporter routed through nodes are read where they are:
//   Identity(Identity(initializer)) -> initializer;  Constant(value) -> initializer
#include "core/runtime/cpu/conv_fusion.h"

#include "core/passes/fold_channel_affine.h"
#include "core/passes/graph_query.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/pattern.h"

#include <algorithm>

namespace graphlens {
namespace {

/// Identity nodes that pass on a constant (PyTorch routes shared BatchNorm statistics through
/// them) and Constant nodes (Clip's bounds), resolved as ONNX Runtime's session resolves them at
/// load: their readers read the tensor as an initializer, so the patterns below see constants, and
/// no kernel runs for them. A value the caller can see (a graph output, a name a sub-graph reads)
/// keeps its node. Remembers, for each node it resolved, the first node that read its tensor.
class ResolveConstantNodes final : public Pass {
public:
    std::string id() const override { return "plan-resolve-constants"; }
    std::string title() const override { return "Read constants passed on by Identity and Constant nodes directly"; }
    std::string explanation() const override {
        return "The CPU plan's own form of eliminate-noops and Constant folding: only for constants, so every "
               "node that computes something keeps a kernel.";
    }
    void run(Rewriter& rw, PassContext&) override {
        const Graph& g = rw.graph();
        const std::unordered_set<std::string> readBySubgraphs = namesReadBySubgraphs(g);
        for (NodeId id : g.topologicalOrder()) {
            const Node& n = g.node(id);
            if (!n.domain.empty() || n.outputs().size() != 1 || n.output(0) == kNoId) continue;
            const Value& out = g.value(n.output(0));
            if (g.isGraphOutput(n.output(0)) || readBySubgraphs.count(out.name) || out.uses().empty()) continue;
            const bool identity = n.opType == "Identity" && hasInput(n, 0) && g.constantValue(n.input(0));
            const Tensor* value = n.opType == "Constant" ? g.constantValue(n.output(0)) : nullptr;
            if (!identity && !value) continue;
            const std::string sentence = "read the constant " + describe(n) + " passes on where it is used";
            readers_[id] = out.uses().front().node;
            if (identity) rw.bypassNode(id, 0);
            else rw.replaceByConstants(id, {*value});
            rw.count("numResolved");
            rw.commit("plan-resolve-constants", sentence);
        }
    }
    /// A resolved node -> the first node reading its tensor that is not resolved itself.
    std::map<NodeId, NodeId> readers() const {
        std::map<NodeId, NodeId> readers;
        for (auto [node, reader] : readers_) {
            while (readers_.count(reader)) reader = readers_.at(reader);
            readers[node] = reader;
        }
        return readers;
    }

private:
    std::map<NodeId, NodeId> readers_;
};

/// BatchNormalization folded into the weights of the Conv before it, and only that: a BatchNorm
/// with nothing to fold into keeps its own kernel (fold-batchnorm would make it a Mul and an Add,
/// two kernels for one node).
class FoldBatchNormIntoConv final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"BatchNormalization"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& bn = g.node(root);
        std::string why;
        const auto affine = batchNormAffineOf(g, bn, why);
        const auto target = affine ? foldTargetOf(g, bn.input(0), why) : std::nullopt;
        if (!target || g.node(target->node).opType != "Conv" || target->channelAxis != 1 ||
            target->channels != int64_t(affine->scale.size())) {
            if (!why.empty()) rw.decline(root, why);
            return false;
        }
        const std::string sentence = "folded '" + bn.name + "' into a copy of the weights of '" + g.node(target->node).name + "'";
        if (foldIntoTarget(rw, *target, root, *affine, why) == kNoId) {
            rw.decline(root, why);
            return false;
        }
        rw.count("numFolded");
        rw.commit("plan-fold-batchnorm", sentence);
        return true;
    }
};

class FoldBatchNormIntoConvPass final : public PatternPass {
public:
    FoldBatchNormIntoConvPass() { addPattern<FoldBatchNormIntoConv>(); }
    std::string id() const override { return "plan-fold-batchnorm"; }
    std::string title() const override { return "Fold BatchNormalization into the Conv kernel before it"; }
    std::string explanation() const override {
        return "The CPU plan's own form of fold-batchnorm: only into a Conv, so every node keeps a kernel.";
    }
};

/// A constant scale or shift after a Conv (y * c, y + c, ...: PP-LCNet's learnable affine
/// blocks) folded into a copy of its weights, as fold-scale-into-conv does, into Convs only.
class FoldAffineIntoConvPass final : public PatternPass {
    /// The pass library's pattern (fold_channel_affine.h), as PatternPass holds its own.
    struct ConvOnly final : RewritePattern {
        std::unique_ptr<RewritePattern> pattern = makeFoldAffineIntoConvPattern();
        std::vector<std::string> rootOps() const override { return pattern->rootOps(); }
        bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext& context) const override {
            return pattern->matchAndRewrite(root, rw, context);
        }
    };

public:
    FoldAffineIntoConvPass() { addPattern<ConvOnly>(); }
    std::string id() const override { return "plan-fold-affine"; }
    std::string title() const override { return "Fold constant scales and shifts into the Conv kernel before them"; }
    std::string explanation() const override {
        return "The CPU plan's own form of fold-scale-into-conv: only into a Conv, so every node keeps a kernel.";
    }
};

/// The CPU plan's passes, in the default pipeline's order (conv_fusion.h).
std::vector<std::unique_ptr<Pass>> fusionPasses() {
    std::vector<std::unique_ptr<Pass>> passes = makePipeline("fuse-hardswish,fuse-silu");
    passes.push_back(std::make_unique<FoldBatchNormIntoConvPass>());
    passes.push_back(std::make_unique<FoldAffineIntoConvPass>());
    for (auto& pass : makePipeline("fuse-conv-add,fuse-conv-activation")) passes.push_back(std::move(pass));
    return passes;
}

/// A node of the graph before the fusion, as the tracing below needs it.
struct Before {
    std::string op;
    std::string domain;
    std::vector<NodeId> provenance;  ///< sorted
    std::vector<ValueId> outputs;
};

/// The nodes of `before` that `made` replaced (their provenance within its provenance), and the
/// one it reports under: the Conv (or Gemm) among them, else the one that computed its output.
void traceBack(const Graph& g, const Node& made, const std::map<NodeId, Before>& before, PlanFusions& fusions) {
    std::vector<NodeId> group;
    NodeId conv = kNoId, writer = kNoId;
    for (const auto& [id, b] : before) {
        if (g.hasNode(id) || b.provenance.empty() ||
            !std::includes(made.provenance.begin(), made.provenance.end(), b.provenance.begin(), b.provenance.end()))
            continue;
        group.push_back(id);
        if ((b.op == "Conv" || b.op == "Gemm") && b.domain.empty()) conv = id;
        if (!made.outputs().empty() && std::find(b.outputs.begin(), b.outputs.end(), made.output(0)) != b.outputs.end())
            writer = id;
    }
    const NodeId reported = conv != kNoId ? conv : writer;
    if (reported == kNoId) return;
    fusions.reportedAs[made.id] = reported;
    std::vector<NodeId>& absorbed = fusions.absorbed[reported];
    for (NodeId id : group)
        if (id != reported) absorbed.push_back(id);
}

/// "fused 3 nodes into the kernels of 2 others: 1 Add, 1 BatchNormalization, 1 Relu; ..."
std::string stepLine(const PlanFusions& fusions, const std::map<NodeId, Before>& before) {
    std::map<std::string, int> byOp;
    size_t count = 0;
    for (const auto& [reported, absorbed] : fusions.absorbed) {
        for (NodeId id : absorbed) ++byOp[before.at(id).op];
        count += absorbed.size();
    }
    std::string ops;
    for (const auto& [op, n] : byOp) ops += (ops.empty() ? "" : ", ") + std::to_string(n) + " " + op;
    const size_t kernels = fusions.absorbed.size();
    return "fused " + std::to_string(count) + " node" + (count == 1 ? "" : "s") + " into the kernels of " +
           std::to_string(kernels) + " other" + (kernels == 1 ? "" : "s") + ": " + ops +
           "; the graph keeps its nodes, whose times are those kernels'";
}

/// The node of the caller's graph whose kernel runs each node the fusion removed (`made`: what
/// it made): the Conv it went into, or its own when it is that Conv.
std::map<NodeId, NodeId> kernelsOfRemovedNodes(const PlanFusions& made) {
    std::map<NodeId, NodeId> kernelOf;
    for (const auto& [node, reported] : made.reportedAs) kernelOf[reported] = reported;
    for (const auto& [reported, absorbed] : made.absorbed)
        for (NodeId id : absorbed) kernelOf[id] = reported;
    return kernelOf;
}

/// "read the constants of 3 nodes where they are used: 1 Constant, 2 Identity; ..."
std::string resolvedLine(const std::map<NodeId, NodeId>& resolved, const std::map<NodeId, Before>& before) {
    std::map<std::string, int> byOp;
    for (const auto& [id, kernel] : resolved) ++byOp[before.at(id).op];
    std::string ops;
    for (const auto& [op, n] : byOp) ops += (ops.empty() ? "" : ", ") + std::to_string(n) + " " + op;
    return "read the constants of " + std::to_string(resolved.size()) + " node" + (resolved.size() == 1 ? "" : "s") +
           " where they are used: " + ops + "; they show as fused into the kernels that read them";
}

/// Node `id` of the caller's graph, absorbed by the kernel of `kernel`, in its place among them.
void addAbsorbed(PlanFusions& fusions, NodeId kernel, NodeId id) {
    std::vector<NodeId>& absorbed = fusions.absorbed[kernel];
    absorbed.insert(std::upper_bound(absorbed.begin(), absorbed.end(), id), id);
}

} // namespace

size_t fuseConvolutionKernels(PreparedModel& prepared, PlanFusions& fusions) {
    Graph& g = prepared.model.graph;
    std::map<NodeId, Before> before;
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        std::vector<NodeId> provenance = n.provenance;
        std::sort(provenance.begin(), provenance.end());
        before[id] = {n.opType, n.domain, std::move(provenance), n.outputs()};
    }
    PassContext context = contextFor(prepared.model);
    context.writesModel = false;
    ResolveConstantNodes resolve;
    runPass(resolve, prepared.model, context, false);
    size_t changed = 0;
    for (auto& pass : fusionPasses()) changed += runPass(*pass, prepared.model, context, false).rewrites.size();
    PlanFusions made;
    if (changed > 0)
        for (NodeId id : g.nodeIds())
            if (!before.count(id)) traceBack(g, g.node(id), before, made);
    for (auto& [id, reported] : made.reportedAs) fusions.reportedAs[id] = reported;
    size_t absorbed = 0;
    for (auto it = made.absorbed.begin(); it != made.absorbed.end();) {
        if (it->second.empty()) {
            it = made.absorbed.erase(it);
            continue;
        }
        absorbed += it->second.size();
        ++it;
    }
    if (absorbed > 0) prepared.steps.push_back(stepLine(made, before));
    for (auto& [reported, nodes] : made.absorbed)
        for (NodeId id : nodes) addAbsorbed(fusions, reported, id);
    // The resolved nodes ran nowhere: each reports with the kernel that reads its tensor.
    const std::map<NodeId, NodeId> kernelOf = kernelsOfRemovedNodes(made);
    std::map<NodeId, NodeId> resolved;
    for (const auto& [id, reader] : resolve.readers()) {
        if (g.hasNode(reader)) {
            const auto plan = fusions.reportedAs.find(reader);  // a node the QDQ fusion made
            resolved[id] = plan == fusions.reportedAs.end() ? reader : plan->second;
        } else if (const auto kernel = kernelOf.find(reader); kernel != kernelOf.end()) {
            resolved[id] = kernel->second;
        }
    }
    if (resolved.empty()) return absorbed;
    prepared.steps.push_back(resolvedLine(resolved, before));
    for (const auto& [id, kernel] : resolved) addAbsorbed(fusions, kernel, id);
    return absorbed + resolved.size();
}

} // namespace graphlens
