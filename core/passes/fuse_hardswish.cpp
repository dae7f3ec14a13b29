// fuse-hardswish: HardSwish(x) = x * max(0, min(1, x/6 + 1/2)) = x * relu6(x + 3) / 6, in the
// forms exporters write it, becomes one HardSwish node (an ONNX operator from opset 14):
//   x * HardSigmoid(x, alpha=1/6, beta=1/2)                       -> HardSwish(x)
//   x * relu6(x + 3) / 6, "* (1/6)" too, the division first or last -> HardSwish(x)
// with relu6 as Clip(0, 6), Min(Relu(.), 6), Min(Max(., 0), 6), Max(Min(., 6), 0) or Relu(Min(., 6)).
#include "core/passes/fused_activation.h"

#include "core/graph/activation_kinds.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

#include <cmath>
#include <limits>

namespace graphlens {
namespace {

constexpr double kNoConstant = std::numeric_limits<double>::quiet_NaN();  ///< Relu: no constant operand

/// relu6(a) = min(max(a, 0), 6) as two nodes, outer(inner(a, innerConstant), outerConstant).
struct TwoNodeRelu6 {
    const char* outer;
    double outerConstant;
    const char* inner;
    double innerConstant;
};

constexpr TwoNodeRelu6 kTwoNodeRelu6[] = {
    {"Min", 6, "Relu", kNoConstant},  // Min(Relu(a), 6)
    {"Min", 6, "Max", 0},             // Min(Max(a, 0), 6)
    {"Max", 0, "Min", 6},             // Max(Min(a, 6), 0)
    {"Relu", kNoConstant, "Min", 6},  // Relu(Min(a, 6))
};

/// `node` is `op` of one operand and, unless Relu, the constant `c`: that operand, else kNoId.
ValueId clampOperand(const Graph& g, const Node& node, const char* op, double c) {
    if (!isOp(node, op) || node.inputs().empty()) return kNoId;
    if (std::isnan(c)) return node.inputs().size() == 1 ? node.input(0) : kNoId;
    auto s = scalarOperand(g, node);
    return s && s->constant == c ? s->other : kNoId;
}

struct Relu6 {
    ValueId input = kNoId;
    std::vector<NodeId> nodes;
};

/// The relu6 that `outer` completes, when it is one.
std::optional<Relu6> relu6Of(const Graph& g, const Node& outer) {
    if (isOp(outer, "Clip")) {
        auto a = fusableActivation(g, outer);
        if (a && a->params.size() == 2 && a->params[0] == 0 && a->params[1] == 6) return Relu6{outer.input(0), {outer.id}};
        return std::nullopt;
    }
    for (const TwoNodeRelu6& row : kTwoNodeRelu6) {
        const ValueId mid = clampOperand(g, outer, row.outer, row.outerConstant);
        const Node* inner = mid == kNoId ? nullptr : producerOf(g, mid);
        const ValueId a = inner ? clampOperand(g, *inner, row.inner, row.innerConstant) : kNoId;
        if (a != kNoId) return Relu6{a, {inner->id, outer.id}};
    }
    return std::nullopt;
}

struct HardSwishMatch {
    ValueId x = kNoId;
    std::vector<NodeId> nodes;  ///< the last one produces x * hardsigmoid(x)
    const char* form = "";
};

/// x * HardSigmoid(x) with alpha 1/6 and beta 1/2.
std::optional<HardSwishMatch> matchHardSigmoidForm(const Graph& g, const Node& hs, std::string& why) {
    const ValueId x = hs.input(0);
    auto product = matchScaledProduct(g, hs.output(0), x, 1, why);
    if (!product) return std::nullopt;
    const auto [alpha, beta] = activationParams(activationKind(ActivationId::HardSigmoid), hs.attributes);
    if (!nearlyEqual(alpha, 1.0 / 6) || !nearlyEqual(beta, 0.5)) {
        why = "HardSigmoid's alpha and beta are " + formatNumber(alpha) + " and " + formatNumber(beta) + ", not 1/6 and 1/2";
        return std::nullopt;
    }
    HardSwishMatch m{x, {hs.id}, "x * HardSigmoid(x)"};
    m.nodes.insert(m.nodes.end(), product->begin(), product->end());
    return m;
}

/// x * relu6(x + 3) / 6, rooted at the node completing the relu6.
std::optional<HardSwishMatch> matchRelu6Form(const Graph& g, const Node& outer, std::string& why) {
    auto relu6 = relu6Of(g, outer);
    const Node* shift = relu6 ? producerOf(g, relu6->input) : nullptr;
    auto three = shift && isOp(*shift, "Add") ? scalarOperand(g, *shift) : std::nullopt;
    if (!three || three->constant != 3) return std::nullopt;
    auto product = matchScaledProduct(g, outer.output(0), three->other, 1.0 / 6, why);
    if (!product) return std::nullopt;
    HardSwishMatch m{three->other, {shift->id}, "x * relu6(x + 3) / 6"};
    m.nodes.insert(m.nodes.end(), relu6->nodes.begin(), relu6->nodes.end());
    m.nodes.insert(m.nodes.end(), product->begin(), product->end());
    return m;
}

class HardSwishPattern final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"HardSigmoid", "Clip", "Min", "Max", "Relu"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext& context) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        std::string why;
        auto m = isOp(n, "HardSigmoid") ? matchHardSigmoidForm(g, n, why) : matchRelu6Form(g, n, why);
        if (m) why = unfusable(g, *m, context);
        if (!m || !why.empty()) {
            if (!why.empty()) rw.decline(root, "kept: " + why);
            return false;
        }
        const std::vector<NodeId> nodes = withConstantFeeders(g, m->nodes);
        const std::string sentence = "fused " + std::string(m->form) + " of " + quoted(g, m->x) + " (" +
                                     std::to_string(nodes.size()) + " nodes) into HardSwish '" +
                                     g.node(nodes.back()).name + "'";
        rw.replaceNodes(nodes, "HardSwish", {m->x}, {});
        if (context.opset < 14 && context.writesModel) raiseOpsetTo14(rw, context.opset);
        rw.count("numFused");
        rw.commit("fuse-hardswish", sentence);
        return true;
    }

private:
    static std::string unfusable(const Graph& g, const HardSwishMatch& m, const PassContext& context) {
        if (const ValueId leak = escapingValue(g, m.nodes); leak != kNoId)
            return quoted(g, leak) + ", inside the HardSwish, is also read elsewhere";
        if (g.value(m.x).dtype != DType::Float) return "the input " + quoted(g, m.x) + " is not float32";
        if (!context.writesModel) return {};  // a plan's copy: its HardSwish kernel runs at any opset
        const int64_t opset = context.opset;
        if (opset < 13)
            return "HardSwish is an ONNX operator from opset 14 on, and the model imports opset " + std::to_string(opset) +
                   " (only opset 13 is raised to 14: earlier operators changed meaning since)";
        if (opset == 13)
            if (const Node* bn = trainingBatchNorm(g))
                return "HardSwish needs opset 14, and raising the model from 13 would change " + describe(*bn) +
                       ", which has training outputs";
        return {};
    }

    /// A BatchNormalization-9 with more than one output: the one operator of an inference graph
    /// at opset 13 that means something else, or nothing, at opset 14.
    static const Node* trainingBatchNorm(const Graph& g) {
        for (NodeId id : g.nodeIds())
            if (const Node& n = g.node(id); isOp(n, "BatchNormalization") && n.outputs().size() > 1) return &n;
        return nullptr;
    }

    /// Every operator changed between opsets 13 and 14 (Add, Sub, Mul, Div, Relu, Identity and
    /// CumSum gained types; Reshape allowzero, GRU/LSTM/RNN layout, both defaulting to the old
    /// meaning) reads the same at 14, except a BatchNormalization with training outputs.
    static void raiseOpsetTo14(Rewriter& rw, int64_t opset) {
        if (rw.result().domainsUsed.count("")) return;  // said once per run
        rw.useDomain("", 14);
        rw.result().notes.push_back("raised the model's opset import from " + std::to_string(opset) +
                                    " to 14, where HardSwish is an operator; no operator of an inference "
                                    "graph changed meaning between 13 and 14");
    }
};

class FuseHardSwish final : public PatternPass {
public:
    FuseHardSwish() { addPattern<HardSwishPattern>(); }
    std::string id() const override { return "fuse-hardswish"; }
    std::string title() const override { return "Fuse hard-swish sub-graphs into HardSwish"; }
    std::string explanation() const override {
        return "HardSwish(x) = x * max(0, min(1, x/6 + 1/2)) = x * relu6(x + 3) / 6, the activation of "
               "MobileNetV3. Exporters write it as x * HardSigmoid(x) with alpha 1/6 and beta 1/2 "
               "(PyTorch before opset 14), or as x * Clip(x + 3, 0, 6) / 6 with the division by 6 (or "
               "the product with 1/6) first or last and relu6 as Clip, Min/Max or Relu with Min. Each "
               "form becomes one HardSwish node, one pass over the tensor instead of three or four. "
               "HardSwish is an ONNX operator from opset 14 on: a model at opset 13 (what torchvision "
               "exports by default) is raised to 14, since no inference operator changed meaning between "
               "the two, and the rewrite log says so; below 13 the pass declines. It also declines when a value inside the sub-graph is read elsewhere, when "
               "HardSigmoid's alpha and beta are not 1/6 and 1/2 (within 1e-4 relative), or when x is "
               "not float32. The CPU plan's own fusion, which never writes the model, fuses at any opset.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseHardSwishPass() { return std::make_unique<FuseHardSwish>(); }

} // namespace graphlens
