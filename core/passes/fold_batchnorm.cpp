// fold-batchnorm: at inference time BatchNormalization is a per-channel affine map,
//   y = gamma * (x - mean) / sqrt(var + eps) + beta = k * x + b,  k = gamma / sqrt(var + eps),
//   b = beta - mean * k,
// folded into the weights of the Conv, ConvTranspose, Gemm or MatMul computing x; where there
// is none to fold into, it becomes one Mul and one Add with per-channel constants.
#include "core/passes/fold_channel_affine.h"

#include "core/onnx/schema_defaults.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

#include <cstdio>

namespace graphlens {
namespace {

using math::FloatTensor;

/// The constants of an inference-mode BatchNormalization, one value per channel.
struct BatchNormStats {
    FloatTensor gamma, beta, mean, var;
    float eps = 1e-5f;
};

std::string number(float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.5g", double(v));
    return text;
}

/// Why `bn` does not run in inference mode (empty when it does).
std::string whyTraining(const Graph& g, const Node& bn) {
    if (bn.attributes.getInt("training_mode", 0) != 0) return "kept: training-mode BatchNorm (training_mode = 1)";
    for (size_t i = 1; i < bn.outputs().size(); ++i) {
        const ValueId out = bn.output(i);
        if (out == kNoId) continue;
        if (!g.value(out).uses().empty() || g.isGraphOutput(out))
            return "kept: training-mode BatchNorm: its running statistics " + quoted(g, out) + " are read";
        return "kept: it declares the training outputs (running mean and variance), which no folded node can produce";
    }
    if (bn.attributes.getInt("spatial", 1) == 0) return "kept: spatial = 0 normalizes every element, not every channel";
    return {};
}

std::optional<BatchNormStats> statsOf(const Graph& g, const Node& bn) {
    BatchNormStats s;
    FloatTensor* slots[] = {&s.gamma, &s.beta, &s.mean, &s.var};
    for (size_t i = 0; i < 4; ++i) {
        const Tensor* t = constantInput(g, bn, i + 1);
        auto f = t ? FloatTensor::from(*t) : std::nullopt;
        if (!f || (i > 0 && f->size() != s.gamma.size())) return std::nullopt;
        *slots[i] = std::move(*f);
    }
    s.eps = floatAttributeOrDefault(bn.attributes, OpKey::of(bn), 0, "epsilon");  // 1e-5 in every opset
    return s;
}

/// "channel 0: k = 1.2 / sqrt(0.09 + 1e-05) = 3.9998, b = 0.1 - 0.5 * 3.9998 = -1.8999"
std::string firstChannel(const BatchNormStats& s, const PerChannelAffine& a) {
    return "channel 0: k = " + number(s.gamma[0]) + " / sqrt(" + number(s.var[0]) + " + " + number(s.eps) +
           ") = " + number(a.scale[0]) + ", b = " + number(s.beta[0]) + " - " + number(s.mean[0]) + " * " +
           number(a.scale[0]) + " = " + number(a.shift[0]);
}

class FoldBatchNorm final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"BatchNormalization"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& bn = g.node(root);
        if (!hasInput(bn, 0) || bn.inputs().size() < 5) return false;
        if (const std::string why = whyTraining(g, bn); !why.empty()) return declined(rw, root, why);
        const auto stats = statsOf(g, bn);
        if (!stats)
            return declined(rw, root, "kept: its scale, bias, mean and variance are not all float32 constants of one size");
        const Value& x = g.value(bn.input(0));
        if (x.dtype != DType::Float) return declined(rw, root, "kept: only float32 BatchNorm is folded");
        // k = gamma / sqrt(var + eps);  b = beta - mean * k
        const FloatTensor k = stats->gamma / math::sqrt(stats->var + stats->eps);
        const PerChannelAffine affine{k, stats->beta - stats->mean * k};
        const std::string numbers = firstChannel(*stats, affine);
        std::string why;
        if (auto target = foldTargetOf(g, x.id, why)) {
            const std::string into = describe(g.node(target->node));
            if (target->channelAxis != 1) {
                why = "BatchNormalization scales axis 1, but the output channels of " + into + " are on axis " +
                      std::to_string(target->channelAxis);
            } else if (target->channels != int64_t(k.size())) {
                why = into + " has " + std::to_string(target->channels) + " output channels, the BatchNorm " +
                      std::to_string(k.size());
            } else {
                const std::string sentence = "folded " + describe(bn) + " into " + into;
                const std::string detail =
                    numbers + (hasInput(g.node(target->node), 2) ? "; its own bias b0 becomes b0 * k + b" : "");
                if (foldIntoTarget(rw, *target, root, affine, why) != kNoId) {
                    rw.count("numFolded");
                    rw.result().notes.push_back(sentence + ": " + detail);
                    rw.commit("fold-batchnorm", sentence + " (" + detail + ")");
                    return true;
                }
            }
        } else if (why.empty()) {
            const Node* p = producerOf(g, x.id);
            why = p ? "its input comes from " + describe(*p) + ", which has no weights to fold into"
                    : "its input " + quoted(g, x.id) + " is not computed by a node";
        }
        return rewriteAsMultiplyAdd(root, rw, affine, numbers, why);
    }

private:
    static bool declined(Rewriter& rw, NodeId root, const std::string& why) {
        rw.decline(root, why);
        return false;
    }

    /// y = x * k + b with k and b shaped [C, 1, ...] to broadcast along axis 1.
    static bool rewriteAsMultiplyAdd(NodeId root, Rewriter& rw, const PerChannelAffine& a, const std::string& numbers,
                                     const std::string& notFolded) {
        const Graph& g = rw.graph();
        const Node& bn = g.node(root);
        const std::vector<ValueId> before = bn.inputs();  // copied: adding nodes below moves them
        const ValueId x = bn.input(0);
        const Shape shape = g.value(x).shape;  // copied: adding values below moves them
        if (!shape.rankKnown() || shape.rank() < 2)
            return declined(rw, root, "kept: not folded (" + notFolded + ") and the rank of its input is unknown");
        std::vector<int64_t> dims(shape.rank() - 1, 1);
        dims[0] = int64_t(a.scale.size());
        const std::string base = bn.name.empty() ? "batchnorm" : bn.name;
        const std::string sentence = "rewrote " + describe(bn) + " as one multiply-add x * k + b, not folded: " + notFolded;
        const ValueId k = rw.addInitializer(base + "_k", FloatTensor{dims, a.scale.values}.toTensor());
        const ValueId b = rw.addInitializer(base + "_b", FloatTensor{dims, a.shift.values}.toTensor());
        const NodeId from[] = {root};
        const ValueId scaled = g.node(rw.addNode("Mul", {x, k}, {base + "_scaled"}, {}, from, base + "_mul")).output(0);
        rw.setValueInfo(scaled, DType::Float, shape);
        rw.replaceNodes({root}, "Add", {scaled, b}, {});
        for (NodeId dead : deadConstantNodes(g, before)) rw.removeNode(dead);
        rw.count("numMultiplyAdd");
        rw.result().notes.push_back(sentence + ": " + numbers);
        rw.commit("batchnorm-to-muladd", sentence + " (" + numbers + ")");
        return true;
    }
};

class FoldBatchNormPass final : public PatternPass {
public:
    FoldBatchNormPass() { addPattern<FoldBatchNorm>(); }
    std::string id() const override { return "fold-batchnorm"; }
    std::string title() const override { return "Fold BatchNormalization into the weights before it"; }
    std::string explanation() const override {
        return "At inference time BatchNormalization uses fixed statistics, so it is a per-channel affine map: "
               "y = gamma * (x - mean) / sqrt(var + eps) + beta = k * x + b with k = gamma / sqrt(var + eps) "
               "and b = beta - mean * k. When x comes from a Conv, ConvTranspose, Gemm or MatMul with constant "
               "weights whose output only the BatchNorm reads, the map moves into that node: each output "
               "channel's weights are multiplied by k (Conv: axis 0 of W; ConvTranspose: axis 1, per group; "
               "Gemm: the columns of op(B); MatMul: the columns of B) and its bias becomes b_old * k + b (a Conv "
               "without bias gets one, a MatMul becomes a Gemm with that bias). The new weights are new "
               "initializers, so weights shared with other nodes stay as they are. A BatchNorm that cannot be "
               "folded (its input comes from elsewhere, the producer's output is read twice, a MatMul whose "
               "channels are not on axis 1) becomes one Mul and one Add with constants shaped [C, 1, ...]. It "
               "stays in training mode (training_mode = 1 or its running statistics read), when its constants "
               "are not float32 constants, or for other element types.";
    }
};

} // namespace

std::optional<PerChannelAffine> batchNormAffineOf(const Graph& g, const Node& bn, std::string& why) {
    why = whyTraining(g, bn);
    if (!why.empty()) return std::nullopt;
    const auto stats = hasInput(bn, 0) && bn.inputs().size() >= 5 ? statsOf(g, bn) : std::nullopt;
    if (!stats || g.value(bn.input(0)).dtype != DType::Float) {
        why = "kept: its input is not float32 or its scale, bias, mean and variance are not all float32 constants of one size";
        return std::nullopt;
    }
    // k = gamma / sqrt(var + eps);  b = beta - mean * k
    const FloatTensor k = stats->gamma / math::sqrt(stats->var + stats->eps);
    return PerChannelAffine{k, stats->beta - stats->mean * k};
}

std::unique_ptr<Pass> makeFoldBatchNormPass() { return std::make_unique<FoldBatchNormPass>(); }

} // namespace graphlens
