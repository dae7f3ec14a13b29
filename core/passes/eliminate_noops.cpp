// eliminate-noops: nodes that pass their input through unchanged at inference time (Identity,
// Dropout, a Cast to the same type, a Reshape/Transpose/Pad/Slice/Expand that changes nothing,
// x+0, x-0, x*1, x/1, x^1) are removed, and stacked Relu/Clip merge into one.
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

#include <algorithm>
#include <limits>

namespace graphlens {
namespace {

/// A shape that names every dim (numbers or symbols), so equal shapes mean equal sizes.
bool fullyKnown(const Shape& s) {
    return s.rankKnown() && std::none_of(s.dims().begin(), s.dims().end(), [](const Dim& d) { return d.isUnknown(); });
}

/// Removes `root` (its output equals input 0) and commits; declines when the output is a graph
/// output that cannot move.
bool bypass(NodeId root, Rewriter& rw, const std::string& kind, const std::string& because) {
    const std::string sentence = "removed " + describe(rw.graph().node(root)) + ": " + because;
    std::string why;
    if (!rw.bypassNode(root, 0, &why)) {
        rw.decline(root, "kept: " + why);
        return false;
    }
    rw.count("numRemoved");
    rw.commit(kind, sentence);
    return true;
}

/// Identity always; Dropout when it runs in inference mode and nobody reads its mask.
class PassThrough final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Identity", "Dropout"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        if (n.outputs().empty() || !hasInput(n, 0)) return false;
        if (n.opType == "Identity") return bypass(root, rw, "eliminate-identity", "Identity passes its input through");
        if (hasInput(n, 2)) {
            const Tensor* mode = constantInput(g, n, 2);
            if (!mode || !allElementsEqual(*mode, 0)) {
                rw.decline(root, "kept: training_mode is not a constant false, so Dropout may drop values");
                return false;
            }
        }
        if (n.outputs().size() > 1 && n.output(1) != kNoId &&
            (!g.value(n.output(1)).uses().empty() || g.isGraphOutput(n.output(1)))) {
            rw.decline(root, "kept: its mask output " + quoted(g, n.output(1)) + " is read");
            return false;
        }
        return bypass(root, rw, "eliminate-dropout", "Dropout is the identity at inference time");
    }
};

/// Cast, Reshape, Transpose, Pad, Slice and Expand that leave their input as it is.
class ShapeNoOp final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override {
        return {"Cast", "Reshape", "Transpose", "Pad", "Slice", "Expand", "Squeeze", "Unsqueeze"};
    }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        if (!hasInput(n, 0) || n.outputs().size() != 1) return false;
        const Value& in = g.value(n.input(0));
        const Value& out = g.value(n.output(0));
        if (n.opType == "Cast") {
            if (in.dtype == DType::Undefined || in.dtype != DType(n.attributes.getInt("to", 0))) return false;
            return bypass(root, rw, "eliminate-noop-cast", "it casts to the type its input already has");
        }
        if (n.opType == "Transpose") {
            const std::vector<int64_t> perm = n.attributes.getInts("perm");
            for (size_t i = 0; i < perm.size(); ++i)
                if (perm[i] != int64_t(i)) return false;
            if (perm.empty()) return false;  // the default reverses the axes
            return bypass(root, rw, "eliminate-noop-transpose", "its permutation keeps every axis in place");
        }
        if (n.opType == "Pad") {
            if (!padsAreZero(g, n)) return false;
            return bypass(root, rw, "eliminate-noop-pad", "it pads nothing on any side");
        }
        // Reshape, Slice, Expand and (Un)Squeeze: a no-op when the shape is unchanged.
        if (!fullyKnown(in.shape) || in.shape != out.shape || (in.dtype != out.dtype && out.dtype != DType::Undefined))
            return false;
        if (n.opType == "Slice" && hasInput(n, 4) && !allStepsPositive(g, n)) return false;
        return bypass(root, rw, "eliminate-noop-" + lowercase(n.opType),
                      "its output has its input's shape " + in.shape.toString() + " and values");
    }

private:
    static std::string lowercase(std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return s;
    }
    static bool padsAreZero(const Graph& g, const Node& n) {
        if (n.attributes.has("pads")) return allZero(n.attributes.getInts("pads"));
        const Tensor* pads = constantInput(g, n, 1);
        return pads && allElementsEqual(*pads, 0);
    }
    static bool allZero(const std::vector<int64_t>& v) {
        return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
    }
    static bool allStepsPositive(const Graph& g, const Node& n) {
        const Tensor* steps = constantInput(g, n, 4);
        if (!steps) return false;
        for (double s : steps->toDoubles())
            if (s != 1) return false;  // a reversed slice has the same shape but other values
        return true;
    }
};

/// One row per algebraic identity: `op` with a constant equal to `element` on an allowed side.
struct NeutralElement {
    const char* op;
    double element;
    bool onLeftToo;  ///< commutative: 0 + x as well as x + 0
};

// x+0 -> x   0+x -> x   x-0 -> x   x*1 -> x   1*x -> x   x/1 -> x   x^1 -> x
constexpr NeutralElement kNeutral[] = {
    {"Add", 0, true}, {"Sub", 0, false}, {"Mul", 1, true}, {"Div", 1, false}, {"Pow", 1, false},
};

class NeutralOperand final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Add", "Sub", "Mul", "Div", "Pow"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        if (n.inputs().size() != 2 || !hasInput(n, 0) || !hasInput(n, 1)) return false;
        const NeutralElement& rule = *std::find_if(std::begin(kNeutral), std::end(kNeutral),
                                                   [&](const NeutralElement& r) { return n.opType == r.op; });
        for (int side : {1, 0}) {
            if (side == 0 && !rule.onLeftToo) break;
            const Tensor* c = constantInput(g, n, size_t(side));
            if (!c || !allElementsEqual(*c, rule.element)) continue;
            const ValueId x = n.input(size_t(1 - side));
            const Value& out = g.value(n.output(0));
            if (!fullyKnown(g.value(x).shape) || g.value(x).shape != out.shape || g.value(x).dtype != out.dtype) {
                rw.decline(root, "kept: the constant " + quoted(g, n.input(size_t(side))) +
                                     " would broadcast the other operand to a larger shape (or the shapes are unknown)");
                return false;
            }
            if (side == 0) rw.setNodeInput(root, 0, x);  // bypass reads input 0
            return bypass(root, rw, "eliminate-neutral-" + std::string(rule.op),
                          std::string("its constant operand is ") + (rule.element == 0 ? "0" : "1") +
                              " everywhere, the neutral element of " + rule.op);
        }
        return false;
    }
};

/// The bounds of a Relu (0, +inf) or a Clip (attributes before opset 11, inputs after).
std::optional<std::pair<float, float>> clipBounds(const Graph& g, const Node& n) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (n.opType == "Relu") return std::pair{0.0f, inf};
    if (n.attributes.has("min") || n.attributes.has("max"))
        return std::pair{n.attributes.getFloat("min", -inf), n.attributes.getFloat("max", inf)};
    float lo = -inf, hi = inf;
    if (hasInput(n, 1)) {
        auto v = scalarInput(g, n, 1);
        if (!v) return std::nullopt;
        lo = *v;
    }
    if (hasInput(n, 2)) {
        auto v = scalarInput(g, n, 2);
        if (!v) return std::nullopt;
        hi = *v;
    }
    return std::pair{lo, hi};
}

/// Relu(Relu(x)) -> Relu(x); Clip(Clip(x, a, b), c, d) -> Clip(x, max(a,c), min(b,d)); mixed
/// Relu/Clip stacks become one Clip.
class MergeClamps final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Relu", "Clip"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext& context) const override {
        const Graph& g = rw.graph();
        const Node& outer = g.node(root);
        const Node* inner = producerOf(g, outer.input(0));
        if (!inner || (inner->opType != "Relu" && inner->opType != "Clip") || !inner->domain.empty()) return false;
        if (g.value(inner->output(0)).dtype != DType::Float) return false;
        if (!hasSingleUse(g, inner->output(0))) {
            rw.decline(root, "kept apart from " + describe(*inner) + ": its output is read elsewhere too");
            return false;
        }
        auto a = clipBounds(g, *inner), b = clipBounds(g, outer);
        if (!a || !b) {
            rw.decline(root, "kept apart from " + describe(*inner) + ": a bound is not a constant");
            return false;
        }
        const float lo = std::max(a->first, b->first), hi = std::min(a->second, b->second);
        const std::string sentence = "merged " + describe(*inner) + " and " + describe(outer) + " into one clamp";
        const NodeId innerId = inner->id;
        if (lo == 0 && hi == std::numeric_limits<float>::infinity()) {
            rw.replaceNodes({innerId, root}, "Relu", {inner->input(0)}, {});
        } else if (context.opset < 11) {  // Clip-6 takes its bounds as attributes
            rw.replaceNodes({innerId, root}, "Clip", {inner->input(0)}, {{"min", lo}, {"max", hi}});
        } else {
            const ValueId loV = rw.addInitializer(outer.name + "_min", Tensor::scalar(lo));
            const ValueId hiV = rw.addInitializer(outer.name + "_max", Tensor::scalar(hi));
            rw.replaceNodes({innerId, root}, "Clip", {inner->input(0), loV, hiV}, {});
        }
        rw.count("numMerged");
        rw.commit("merge-clamps", sentence);
        return true;
    }
};

class EliminateNoOps final : public PatternPass {
public:
    EliminateNoOps() {
        addPattern<PassThrough>();
        addPattern<ShapeNoOp>();
        addPattern<NeutralOperand>();
        addPattern<MergeClamps>();
    }
    std::string id() const override { return "eliminate-noops"; }
    std::string title() const override { return "Remove nodes that change nothing"; }
    std::string explanation() const override {
        return "At inference time some nodes hand their input on unchanged: Identity, Dropout (it only "
               "drops values while training), a Cast to the type the tensor already has, a Reshape, "
               "Slice, Expand or zero Pad whose output shape equals its input shape, a Transpose that "
               "keeps every axis in place, and arithmetic with a neutral element (x+0, x-0, x*1, x/1, "
               "x^1). Each is removed and its consumers read its input. Stacked clamps merge: "
               "Relu(Relu(x)) is Relu(x), and Clip(Clip(x,a,b),c,d) is Clip(x,max(a,c),min(b,d)). A node "
               "stays when removing it would rename a graph output, when Dropout's mask is read or its "
               "training_mode is not constant false, or when a constant operand would broadcast x to a "
               "larger shape.";
    }
};

} // namespace

std::unique_ptr<Pass> makeEliminateNoOpsPass() { return std::make_unique<EliminateNoOps>(); }

} // namespace graphlens
