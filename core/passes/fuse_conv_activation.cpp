// fuse-conv-activation: an activation right after a Conv or Gemm runs inside it, as ONNX
// Runtime's com.microsoft FusedConv (activation, activation_params) and FusedGemm (activation,
// activation_alpha, activation_beta): Y = activation(Conv(X, W, B) [+ Z]), Y = activation(A * B + C).
#include "core/passes/fused_activation.h"

#include "core/graph/activation_kinds.h"
#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

namespace graphlens {
namespace {

bool inDefaultDomain(const Node& n) { return isDefaultDomain(n.domain); }

/// Conv, a FusedConv without an activation yet (e.g. one with a residual Z), or Gemm.
bool canCarryActivation(const Node& n) {
    if (n.opType == "FusedConv" && n.domain == "com.microsoft") return true;
    return inDefaultDomain(n) && (n.opType == "Conv" || n.opType == "Gemm");
}

class FuseActivation final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override {
        std::vector<std::string> ops;  // every fusable kind of core/graph/activations.def
        for (const ActivationKind& kind : kActivationKinds)
            if (kind.has(kActFusable)) ops.push_back(OpKey(kind.domain, kind.name).toString());
        return ops;
    }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& act = g.node(root);
        if (!hasInput(act, 0)) return false;  // fusableActivation() below checks the domain
        const Node* p = producerOf(g, act.input(0));
        if (!p || !canCarryActivation(*p)) return false;
        const auto activation = fusableActivation(g, act);
        if (const std::string why = whyNot(g, *p, activation.has_value(), act); !why.empty()) {
            rw.decline(root, why);
            return false;
        }
        const bool gemm = p->opType == "Gemm";
        Attributes attributes = p->attributes;
        if (gemm) setGemmActivationAttributes(attributes, *activation);
        else setActivationAttributes(attributes, *activation);
        const std::string fused = gemm ? "FusedGemm" : "FusedConv";
        const std::string sentence = "fused " + describe(act) + " into " + describe(*p) + " as one " + fused;
        const std::vector<ValueId> bounds = act.inputs();  // a Clip's min and max
        rw.replaceNodes({p->id, root}, fused, p->inputs(), std::move(attributes), "com.microsoft",
                        Rewriter::KeepName::OfFirst);
        for (NodeId dead : deadConstantNodes(g, bounds)) rw.removeNode(dead);
        rw.useDomain("com.microsoft", 1);
        rw.count(gemm ? "numFusedGemm" : "numFusedConv");
        rw.commit("fuse-" + std::string(gemm ? "gemm" : "conv") + "-activation", sentence);
        return true;
    }

private:
    /// DequantizeLinear -> p -> act -> QuantizeLinear: a quantized model's op (qdq_fusion.h).
    static bool isQdq(const Graph& g, const Node& p, const Node& act) {
        const Node* in = hasInput(p, 0) ? producerOf(g, p.input(0)) : nullptr;
        if (!in || in->opType != "DequantizeLinear" || act.outputs().empty()) return false;
        const auto& uses = g.value(act.output(0)).uses();
        return uses.size() == 1 && g.node(uses[0].node).opType == "QuantizeLinear";
    }

    /// Why the activation cannot join producer `p` (empty when it can).
    static std::string whyNot(const Graph& g, const Node& p, bool fusable, const Node& act) {
        const ValueId y = p.output(0);
        if (!fusable) return "kept: a Clip bound is not a constant";
        if (isQdq(g, p, act)) return "kept: a QDQ (int8) " + p.opType + ", which the CPU plan runs as one int8 kernel";
        if (activationOf(p.attributes)) return "kept: " + describe(p) + " already applies an activation";
        if (const std::string shared = whyOutputIsShared(g, p); !shared.empty()) return "kept: " + shared;
        if (g.value(y).dtype != DType::Float) return "kept: only float32 " + p.opType + " is fused";
        return {};
    }
};

class FuseConvActivationPass final : public PatternPass {
public:
    FuseConvActivationPass() { addPattern<FuseActivation>(); }
    std::string id() const override { return "fuse-conv-activation"; }
    std::string title() const override { return "Fuse activations into Conv and Gemm"; }
    std::string explanation() const override {
        return "An activation applied to every output of a convolution or a Gemm can be applied while that "
               "output is written, instead of in a second pass over the tensor: Relu(Conv(x)) becomes one "
               "com.microsoft FusedConv with activation = Relu, and Relu(Gemm(a, b, c)) one FusedGemm, the "
               "operators ONNX Runtime itself fuses into. Relu, Clip with constant bounds (ReLU6), LeakyRelu, "
               "Sigmoid, HardSigmoid, HardSwish and Tanh are fused; a FusedConv with a residual Z and no "
               "activation yet takes one too, so conv -> add -> relu is one node. FusedConv keeps the "
               "activation's numbers in activation_params (Clip: min, max; LeakyRelu: alpha; HardSigmoid: "
               "alpha, beta), FusedGemm in activation_alpha and activation_beta. ONNX Runtime cannot run a "
               "HardSwish FusedConv nor a Clip or HardSwish FusedGemm: exports for it lower those back to the "
               "standard pair. It declines when the convolution's output is read by other nodes or is a graph "
               "output, when a Clip bound is computed at run time, and for element types other than float32.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseConvActivationPass() { return std::make_unique<FuseConvActivationPass>(); }

} // namespace graphlens
