// fuse-layernorm: the LayerNorm that exporters write out op by op over the last axis,
//   mean = ReduceMean(x);  d = x - mean;  var = ReduceMean(d^2);  y = d / sqrt(var + eps) * gamma + beta
// -> LayerNormalization(x, gamma, beta, axis=-1, epsilon=eps).
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

#include <algorithm>

namespace graphlens {
namespace {

/// The axes a ReduceMean reduces, in [0, rank), sorted; nullopt when they are not constant.
std::optional<std::vector<int64_t>> reducedAxes(const Graph& g, const Node& n, int64_t rank) {
    std::vector<int64_t> axes = n.attributes.getInts("axes");
    if (hasInput(n, 1)) {  // opset 18: the axes are an input
        const Tensor* t = constantInput(g, n, 1);
        if (!t) return std::nullopt;
        for (double a : t->toDoubles()) axes.push_back(int64_t(a));
    }
    if (axes.empty() && n.attributes.getInt("noop_with_empty_axes", 0) == 0)
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    for (int64_t& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    return axes;
}

struct LayerNormMatch {
    ValueId x = kNoId;
    NodeId mean = kNoId, variance = kNoId;
    float epsilon = 0;
    ValueId gamma = kNoId, beta = kNoId;
    std::vector<NodeId> nodes;  ///< the last one produces y
};

/// d = x - mean, var = ReduceMean(d^2), y = d / sqrt(var + eps): the nodes after `mean`.
std::optional<LayerNormMatch> matchNormalization(const Graph& g, const Node& mean, std::string& why) {
    const ValueId x = mean.input(0), m = mean.output(0);
    const Node* sub = onlyReader(g, m, [&](const Node& n) {
        return isOp(n, "Sub") && n.inputs().size() == 2 && n.input(0) == x && n.input(1) == m;
    }, why);
    if (!sub) return std::nullopt;
    const ValueId d = sub->output(0);
    const Node* square = nullptr;
    for (const Use& u : g.value(d).uses()) {
        const Node& n = g.node(u.node);
        auto e = isOp(n, "Pow") && n.input(0) == d ? scalarInput(g, n, 1) : std::nullopt;
        if ((e && *e == 2) || (isOp(n, "Mul") && n.inputs().size() == 2 && n.input(0) == d && n.input(1) == d)) square = &n;
    }
    if (!square) return std::nullopt;  // centering alone, not a LayerNorm
    const Node* variance = onlyReader(g, square->output(0), [](const Node& n) { return isOp(n, "ReduceMean"); }, why);
    const Node* plusEps = variance ? onlyReader(g, variance->output(0), [&](const Node& n) {
        return isOp(n, "Add") && scalarOperand(g, n).has_value();
    }, why) : nullptr;
    auto isSqrt = [](const Node& n) { return isOp(n, "Sqrt"); };
    const Node* root = plusEps ? onlyReader(g, plusEps->output(0), isSqrt, why) : nullptr;
    const Node* div = root ? onlyReader(g, root->output(0), [&](const Node& n) {
        return isOp(n, "Div") && n.inputs().size() == 2 && n.input(0) == d && n.input(1) == root->output(0);
    }, why) : nullptr;
    if (!div) return std::nullopt;
    LayerNormMatch match{x, mean.id, variance->id, float(scalarOperand(g, *plusEps)->constant), kNoId, kNoId,
                         {mean.id, sub->id, square->id, variance->id, plusEps->id, root->id, div->id}};
    if (!onlyReadBy(g, d, match.nodes)) {
        why = quoted(g, d) + " (x - mean) is also read elsewhere";
        return std::nullopt;
    }
    return match;
}

/// A value holding one number per position of the last axis (width `c`): [c] or [1, ..., c].
bool alongLastAxis(const Graph& g, ValueId v, int64_t c, size_t rank) {
    const auto dims = g.value(v).shape.sizes();
    if (!dims || dims->empty() || dims->size() > rank || dims->back() != c) return false;
    return std::all_of(dims->begin(), dims->end() - 1, [](int64_t d) { return d == 1; });
}

/// y * gamma + beta after the normalization, either factor optional: appended to `m`.
void matchAffine(const Graph& g, LayerNormMatch& m, int64_t c, size_t rank) {
    std::string ignored;  // a Mul or Add of something else simply stays after the LayerNormalization
    auto step = [&](const char* op, ValueId& operand) {
        const ValueId y = g.node(m.nodes.back()).output(0);
        const Node* n = onlyReader(g, y, [&](const Node& r) {
            const ValueId other = isOp(r, op) ? otherInput(r, y) : kNoId;
            if (other == kNoId || other == y || g.value(other).dtype != DType::Float) return false;
            return alongLastAxis(g, other, c, rank) && (g.value(other).shape == Shape::ofSizes({c}) || g.constantValue(other));
        }, ignored);
        if (!n) return;
        operand = otherInput(*n, y);
        m.nodes.push_back(n->id);
    };
    step("Mul", m.gamma);
    step("Add", m.beta);
}

/// `v` as a [c] tensor: itself when it has that shape and outlives the fused `nodes` (paddle2onnx
/// writes gamma and beta as Constant nodes, which go with them), else a reshaped copy of its constant.
std::optional<ValueId> asVector(Rewriter& rw, ValueId v, int64_t c, const std::vector<NodeId>& nodes, const std::string& hint) {
    const Graph& g = rw.graph();
    const Node* producer = producerOf(g, v);
    const bool removed = producer && std::find(nodes.begin(), nodes.end(), producer->id) != nodes.end();
    if (g.value(v).shape == Shape::ofSizes({c}) && !removed) return v;
    const Tensor* t = g.constantValue(v);
    if (!t) return std::nullopt;
    std::string bytes(reinterpret_cast<const char*>(t->data()), t->byteSize());
    return rw.addInitializer(hint, Tensor::fromBytes(DType::Float, {c}, std::move(bytes)));
}

class LayerNormPattern final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"ReduceMean"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext& context) const override {
        const Graph& g = rw.graph();
        std::string why;
        auto m = matchNormalization(g, g.node(root), why);
        if (m) why = unfusable(g, *m);
        if (!m || !why.empty()) {
            if (!why.empty()) rw.decline(root, "kept: " + why);
            return false;
        }
        const Shape& shape = g.value(m->x).shape;
        const int64_t c = shape[shape.rank() - 1].size();
        matchAffine(g, *m, c, shape.rank());
        const std::vector<NodeId> nodes = withConstantFeeders(g, m->nodes);
        const Node& last = g.node(nodes.back());
        const std::string name = last.name.empty() ? g.node(root).name : last.name;
        const Tensor ones = Tensor::floats({c}, std::vector<float>(size_t(c), 1.f));
        auto gamma = m->gamma == kNoId ? rw.addInitializer(name + "_scale", ones) : asVector(rw, m->gamma, c, nodes, name + "_scale");
        auto beta = m->beta == kNoId ? std::optional<ValueId>(kNoId) : asVector(rw, m->beta, c, nodes, name + "_bias");
        std::vector<ValueId> inputs{m->x, *gamma};
        if (*beta != kNoId) inputs.push_back(*beta);
        const std::string sentence = "fused the LayerNorm of " + quoted(g, m->x) + " over its last axis (" +
                                     std::to_string(nodes.size()) + " nodes, epsilon " + formatNumber(m->epsilon) +
                                     ") into LayerNormalization '" + last.name + "'";
        rw.replaceNodes(nodes, "LayerNormalization", inputs,
                        {{"axis", int64_t(-1)}, {"epsilon", m->epsilon}});
        rw.count("numFused");
        if (context.opset < 17 && rw.result().notes.empty())
            rw.result().notes.push_back(
                "LayerNormalization is standard ONNX from opset 17 and this model imports opset " +
                std::to_string(context.opset) + ": ONNX Runtime runs it there too (its LayerNormalization kernel for "
                "opsets 1-16), ONNX's own checker rejects it, and --portable writes the decomposition back");
        rw.commit("fuse-layernorm", sentence);
        return true;
    }

private:
    /// Why a matched LayerNorm cannot become one node; empty when it can.
    static std::string unfusable(const Graph& g, const LayerNormMatch& m) {
        const Shape& shape = g.value(m.x).shape;
        if (g.value(m.x).dtype != DType::Float) return "the input " + quoted(g, m.x) + " is not float32";
        if (!shape.rankKnown() || shape.rank() == 0 || !shape[shape.rank() - 1].isStatic())
            return "the input's rank or last axis is unknown";
        const auto rank = int64_t(shape.rank());
        for (NodeId id : {m.mean, m.variance}) {
            const Node& reduce = g.node(id);
            auto axes = reducedAxes(g, reduce, rank);
            if (!axes) return describe(reduce) + " reduces axes that are not constant";
            if (*axes != std::vector<int64_t>{rank - 1})
                return describe(reduce) + " does not reduce the last axis alone, and only last-axis LayerNorms are fused";
            if (reduce.attributes.getInt("keepdims", 1) != 1) return describe(reduce) + " drops the reduced axis";
        }
        return {};
    }
};

class FuseLayerNorm final : public PatternPass {
public:
    FuseLayerNorm() { addPattern<LayerNormPattern>(); }
    std::string id() const override { return "fuse-layernorm"; }
    std::string title() const override { return "Fuse decomposed LayerNorm into LayerNormalization"; }
    std::string explanation() const override {
        return "Layer normalization normalizes each row of x along its last axis: mean = ReduceMean(x), "
               "d = x - mean, var = ReduceMean(d^2) (Pow(d, 2) or d * d), y = d / sqrt(var + eps) * gamma "
               "+ beta. Before opset 17 ONNX had no LayerNormalization, so PyTorch exports these nine "
               "nodes; the pass fuses them into one LayerNormalization(x, gamma, beta, axis=-1, epsilon), "
               "which the CPU runtime computes row by row in one pass. Without the Mul by gamma the scale "
               "is ones, without the Add of beta the bias is left out (zero). ReduceMean's axes may be an "
               "attribute or (opset 18) a constant input. Below opset 17 the node still runs in ONNX "
               "Runtime, which registers LayerNormalization for opsets 1-16 as well; ONNX's own checker does "
               "not know it there, and --portable writes the decomposition back. It declines, saying why, "
               "when the mean is over another axis than the last alone, when keepdims is 0, when x - mean "
               "or another intermediate is read elsewhere, or when x is not float32.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseLayerNormPass() { return std::make_unique<FuseLayerNorm>(); }

} // namespace graphlens
