// fold-scale-into-conv: a constant multiply, divide, add or subtract right after a Conv,
// ConvTranspose or Gemm, with one number per output channel (or one for all), moves into the
// weights and bias: conv(x) * c is a conv with W * c and b * c, conv(x) + c one with b + c.
// A MatMul takes the scaling rows (Mul, Div) into the columns of B.
#include "core/passes/fold_channel_affine.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

#include <algorithm>

namespace graphlens {
namespace {

using math::FloatTensor;

FloatTensor filledLike(const FloatTensor& c, float v) { return FloatTensor::filled(c.dims, v); }

/// One row per operator and side: `y op c` as the affine map y -> scale * y + shift.
struct AffineRule {
    const char* op;
    bool constantOnLeft;
    const char* formula;
    PerChannelAffine (*map)(const FloatTensor& c);
};

// y * c -> W c, b c        c * y -> W c, b c        y / c -> W / c, b / c
// y + c -> W, b + c        c + y -> W, b + c        y - c -> W, b - c        c - y -> -W, c - b
const AffineRule kRules[] = {
    {"Mul", false, "y * c", [](const FloatTensor& c) { return PerChannelAffine{c, filledLike(c, 0)}; }},
    {"Mul", true, "c * y", [](const FloatTensor& c) { return PerChannelAffine{c, filledLike(c, 0)}; }},
    {"Div", false, "y / c", [](const FloatTensor& c) { return PerChannelAffine{filledLike(c, 1) / c, filledLike(c, 0)}; }},
    {"Add", false, "y + c", [](const FloatTensor& c) { return PerChannelAffine{filledLike(c, 1), c}; }},
    {"Add", true, "c + y", [](const FloatTensor& c) { return PerChannelAffine{filledLike(c, 1), c}; }},
    {"Sub", false, "y - c", [](const FloatTensor& c) { return PerChannelAffine{filledLike(c, 1), filledLike(c, 0) - c}; }},
    {"Sub", true, "c - y", [](const FloatTensor& c) { return PerChannelAffine{filledLike(c, -1), c}; }},
};

bool onlyScales(const AffineRule& rule) { return std::string_view(rule.op) == "Mul" || std::string_view(rule.op) == "Div"; }

/// The constant's values along the output channels, when it varies along no other axis of the
/// target's output (and does not add axes to it); else nullopt with `why`.
std::optional<FloatTensor> perChannel(const Graph& g, ValueId constant, const FoldTarget& t, std::string& why) {
    const Tensor& c = *g.constantValue(constant);
    auto values = FloatTensor::from(c);
    const std::string name = quoted(g, constant) + " " + Shape::ofSizes(c.dims()).toString();
    if (!values) why = "kept: the constant " + name + " is not float32";
    else if (c.rank() > t.outputRank)
        why = "kept: the constant " + name + " has more axes than the output and would broadcast it";
    for (size_t i = 0; why.empty() && i < c.rank(); ++i) {
        const size_t axis = t.outputRank - c.rank() + i;
        const int64_t d = c.dims()[i];
        if (d == 1 || (axis == t.channelAxis && d == t.channels)) continue;
        why = "kept: the constant " + name + " does not broadcast along the output channels only (it has " +
              std::to_string(d) + " values along axis " + std::to_string(axis) + ")";
    }
    if (!why.empty()) return std::nullopt;
    return FloatTensor{{int64_t(values->size())}, values->values};
}

class FoldAffineIntoConv final : public RewritePattern {
public:
    explicit FoldAffineIntoConv(bool convolutionsOnly = false) : convolutionsOnly_(convolutionsOnly) {}
    std::vector<std::string> rootOps() const override { return {"Mul", "Div", "Add", "Sub"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        if (n.inputs().size() != 2 || !hasInput(n, 0) || !hasInput(n, 1)) return false;
        for (const AffineRule& rule : kRules) {
            if (n.opType != rule.op) continue;
            const ValueId c = n.input(rule.constantOnLeft ? 0 : 1), y = n.input(rule.constantOnLeft ? 1 : 0);
            if (!g.constantValue(c) || g.constantValue(y)) continue;
            const Node* producer = producerOf(g, y);
            if (producer && producer->opType == "MatMul" && !onlyScales(rule)) continue;  // matmul-add-to-gemm's
            std::string why;
            const auto target = foldTargetOf(g, y, why);
            if (!target) {
                if (why.empty()) continue;  // nothing with weights computes y
                return declined(rw, root, "kept: " + why);
            }
            if (convolutionsOnly_ && g.node(target->node).opType != "Conv") return false;
            return fold(root, rw, rule, c, *target);
        }
        return false;
    }

private:
    static bool declined(Rewriter& rw, NodeId root, const std::string& why) {
        rw.decline(root, why);
        return false;
    }

    static bool fold(NodeId root, Rewriter& rw, const AffineRule& rule, ValueId c, const FoldTarget& target) {
        const Graph& g = rw.graph();
        std::string why;
        const auto values = perChannel(g, c, target, why);
        if (!values) return declined(rw, root, why);
        if (std::string_view(rule.op) == "Div" &&
            std::any_of(values->values.begin(), values->values.end(), [](float v) { return v == 0.0f; }))
            return declined(rw, root, "kept: the divisor " + quoted(g, c) + " has a zero");
        const std::string sentence = "folded " + describe(g.node(root)) + " (" + rule.formula + ", c = " +
                                     quoted(g, c) + ") into " + describe(g.node(target.node));
        if (foldIntoTarget(rw, target, root, rule.map(*values), why) == kNoId) return declined(rw, root, "kept: " + why);
        rw.count("numFolded");
        rw.commit("fold-scale-into-conv", sentence);
        return true;
    }

    bool convolutionsOnly_;
};

class FoldScaleIntoConvPass final : public PatternPass {
public:
    FoldScaleIntoConvPass() { addPattern<FoldAffineIntoConv>(); }
    std::string id() const override { return "fold-scale-into-conv"; }
    std::string title() const override { return "Fold constant scales and shifts into Conv and Gemm weights"; }
    std::string explanation() const override {
        return "A convolution is linear in its weights, so multiplying its output by a constant c that has one "
               "value per output channel is the same convolution with each output channel's weights and bias "
               "multiplied by c: conv(x; W, b) * c = conv(x; W * c, b * c). Dividing multiplies by 1 / c, and "
               "adding or subtracting c only changes the bias: conv(x) + c = conv(x; W, b + c), c - conv(x) = "
               "conv(x; -W, c - b). The same holds for ConvTranspose and for Gemm (c per column of the output), "
               "and a MatMul takes a scale into the columns of B. The folded weights are new initializers. It "
               "declines when the constant also varies along another axis (e.g. along H or W, or per batch "
               "item), when it would broadcast the output to a larger shape, when the divisor has a zero, when "
               "the convolution's output is read by other nodes or is a graph output, and when its weights are "
               "not float32 constants.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFoldScaleIntoConvPass() { return std::make_unique<FoldScaleIntoConvPass>(); }

std::unique_ptr<RewritePattern> makeFoldAffineIntoConvPattern() { return std::make_unique<FoldAffineIntoConv>(true); }

} // namespace graphlens
