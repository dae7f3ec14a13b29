// Folding y -> scale * y + shift into the weights and bias of the node computing y.
#include "core/passes/fold_channel_affine.h"

#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"

#include <algorithm>

namespace graphlens {
namespace {

using math::FloatTensor;

bool isFoldableOp(const Node& n) {
    if (!isDefaultDomain(n.domain)) return false;
    return n.opType == "Conv" || n.opType == "ConvTranspose" || n.opType == "Gemm" || n.opType == "MatMul";
}

bool isFloatConstant(const Tensor* t) { return t && t->dtype() == DType::Float; }

/// Gemm's C must be the same for every row to become a per-channel bias.
bool biasIsPerColumn(const Tensor& c, int64_t columns) {
    if (c.numel() == 1) return true;
    const auto& d = c.dims();
    return (d.size() == 1 && d[0] == columns) || (d.size() == 2 && d[0] == 1 && d[1] == columns);
}

/// Fills the channel count, axis and rank of `t` from the weights `w`; empty string on success.
std::string describeChannels(const Graph& g, const Node& p, const Tensor& w, ValueId value, FoldTarget& t) {
    const std::string& op = p.opType;
    if (op == "Conv" || op == "ConvTranspose") {
        if (w.rank() < 3) return "the weights of " + describe(p) + " have rank " + std::to_string(w.rank());
        t.outputRank = w.rank();
        t.channels = op == "Conv" ? w.dims()[0] : w.dims()[1] * p.attributes.getInt("group", 1);
        return {};
    }
    if (w.rank() != 2) return "the weights of " + describe(p) + " are not a matrix";
    if (op == "Gemm") {
        t.outputRank = 2;
        t.channels = p.attributes.getInt("transB", 0) ? w.dims()[0] : w.dims()[1];
        const Tensor* c = constantInput(g, p, 2);
        if (c && !biasIsPerColumn(*c, t.channels))
            return "the C of " + describe(p) + " has shape " + Shape::ofSizes(c->dims()).toString() +
                   " and is not the same for every row";
        return {};
    }
    const Shape& out = g.value(value).shape;  // MatMul: channels are the columns of B
    if (!out.rankKnown()) return "the rank of the output of " + describe(p) + " is unknown";
    t.outputRank = out.rank();
    t.channelAxis = out.rank() - 1;
    t.channels = w.dims()[1];
    return {};
}

/// ConvTranspose weights are [C_in, C_out/group, k...]: element (c, j) feeds output channel
/// (c / (C_in/group)) * (C_out/group) + j.
Tensor scaleTransposedWeights(const Tensor& weights, const FloatTensor& scale, int64_t group) {
    if (group == 1) return math::scaleByAxis(weights, scale, 1);
    FloatTensor out = *FloatTensor::from(weights);
    const int64_t inPerGroup = out.dims[0] / group, outPerGroup = out.dims[1];
    const int64_t kernel = int64_t(out.size()) / (out.dims[0] * outPerGroup);
    for (size_t i = 0; i < out.values.size(); ++i) {
        const int64_t c = int64_t(i) / (outPerGroup * kernel), j = (int64_t(i) / kernel) % outPerGroup;
        out.values[i] *= scale[size_t((c / inPerGroup) * outPerGroup + j)];
    }
    return out.toTensor();
}

bool allZero(const FloatTensor& t) {
    return std::all_of(t.values.begin(), t.values.end(), [](float v) { return v == 0.0f; });
}

/// W with each output channel's weights multiplied by its scale.
Tensor scaledWeights(const Graph& g, const Node& p, const FloatTensor& scale) {
    const Tensor& w = *constantInput(g, p, 1);
    if (p.opType == "Conv") return math::scaleByAxis(w, scale, 0);
    if (p.opType == "ConvTranspose") return scaleTransposedWeights(w, scale, p.attributes.getInt("group", 1));
    if (p.opType == "Gemm") return math::scaleByAxis(w, scale, p.attributes.getInt("transB", 0) ? 0 : 1);
    return math::scaleByAxis(w, scale, 1);  // MatMul: the columns of B
}

/// b' = b * scale + shift (Gemm: alpha * A * (B k) + (beta * C * k + shift), so beta goes into
/// b); nullopt when there is neither a bias nor a shift.
std::optional<FloatTensor> foldedBias(const Graph& g, const Node& p, const FloatTensor& scale,
                                      const FloatTensor& shift, int64_t channels) {
    if (!hasInput(p, 2)) return allZero(shift) ? std::nullopt : std::optional<FloatTensor>(shift);
    FloatTensor b = math::broadcastTo(*FloatTensor::from(*constantInput(g, p, 2)), channels);
    if (p.opType == "Gemm") b = b * FloatTensor{{}, {p.attributes.getFloat("beta", 1.0f)}};
    return b * scale + shift;
}

} // namespace

std::optional<FoldTarget> foldTargetOf(const Graph& g, ValueId value, std::string& why) {
    why.clear();
    const Node* p = producerOf(g, value);
    if (!p || !isFoldableOp(*p)) return std::nullopt;
    why = whyOutputIsShared(g, *p);
    if (why.empty() && !isFloatConstant(constantInput(g, *p, 1)))
        why = "the weights of " + describe(*p) + " are not a float32 constant";
    if (why.empty() && hasInput(*p, 2) && !isFloatConstant(constantInput(g, *p, 2)))
        why = "the bias of " + describe(*p) + " is not a float32 constant";
    if (!why.empty()) return std::nullopt;
    FoldTarget t{p->id, 1, 0, 0};
    why = describeChannels(g, *p, *constantInput(g, *p, 1), value, t);
    if (!why.empty()) return std::nullopt;
    return t;
}

NodeId foldIntoTarget(Rewriter& rw, const FoldTarget& t, NodeId consumer, const PerChannelAffine& affine,
                      std::string& why) {
    const Graph& g = rw.graph();
    const Node& p = g.node(t.node);
    const FloatTensor scale = math::broadcastTo(affine.scale, t.channels);
    const FloatTensor shift = math::broadcastTo(affine.shift, t.channels);
    if (p.opType == "MatMul" && !allZero(shift) && t.outputRank != 2) {
        why = "MatMul input has rank " + std::to_string(t.outputRank) + "; Gemm takes 2-D";
        return kNoId;
    }
    const bool scales = !std::all_of(scale.values.begin(), scale.values.end(), [](float v) { return v == 1.0f; });
    const std::optional<FloatTensor> bias = foldedBias(g, p, scale, shift, t.channels);
    std::string op = p.opType;
    Attributes attributes = p.attributes;
    if (op == "Gemm" && bias) attributes.set("beta", 1.0f);  // its beta went into the bias
    if (op == "MatMul" && bias) op = "Gemm";
    const std::string weightName = g.value(p.input(1)).name;
    std::vector<ValueId> inputs{p.input(0), scales ? rw.addInitializer(weightName + "_folded", scaledWeights(g, p, scale))
                                                    : p.input(1)};
    if (bias) {
        const std::string hint = hasInput(p, 2) ? g.value(p.input(2)).name : weightName + "_bias";
        inputs.push_back(rw.addInitializer(hint + "_folded", bias->toTensor()));
    }
    std::vector<ValueId> before = p.inputs();
    before.insert(before.end(), g.node(consumer).inputs().begin(), g.node(consumer).inputs().end());
    const NodeId folded = rw.replaceNodes({t.node, consumer}, op, inputs, attributes, {}, Rewriter::KeepName::OfFirst);
    for (NodeId dead : deadConstantNodes(g, before)) rw.removeNode(dead);
    return folded;
}

} // namespace graphlens
