// fuse-skip-layernorm: a transformer block ends with its residual connection and a LayerNorm,
//   y = LayerNormalization(x + skip, gamma, beta)   (normalized over the last axis)
// -> com.microsoft SkipLayerNormalization(x, skip, gamma, beta), as ONNX Runtime's
// SkipLayerNormFusion does: the sum is formed row by row inside the normalization instead of being
// written out by an Add and read back.
#include "core/passes/graph_query.h"

#include "core/onnx/schema_defaults.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

namespace graphlens {
namespace {

/// A constant of one value per hidden feature: [hidden] (what SkipLayerNormalization takes).
bool perFeature(const Graph& g, ValueId v, int64_t hidden) {
    const Tensor* t = g.constantValue(v);
    return t && t->dtype() == DType::Float && t->rank() == 1 && t->dims()[0] == hidden;
}

class FuseSkipLayerNorm final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"LayerNormalization"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& norm = g.node(root);
        if (!hasInput(norm, 0)) return false;
        const Node* add = producerOf(g, norm.input(0));
        if (!add || !isOp(*add, "Add")) return false;
        if (const std::string why = whyNot(g, norm, *add); !why.empty()) {
            rw.decline(root, why);
            return false;
        }
        std::vector<ValueId> inputs{add->input(0), add->input(1), norm.input(1)};
        if (hasInput(norm, 2)) inputs.push_back(norm.input(2));
        Attributes attributes;
        attributes.set("epsilon", floatAttributeOrDefault(norm.attributes, OpKey::of(norm), 0, "epsilon"));
        const std::string sentence = "fused the residual " + describe(*add) + " into " + describe(norm) +
                                     ": SkipLayerNormalization(" + quoted(g, add->input(0)) + ", " +
                                     quoted(g, add->input(1)) + ") adds them row by row as it normalizes";
        rw.replaceNodes({add->id, root}, "SkipLayerNormalization", inputs, attributes, "com.microsoft");
        rw.useDomain("com.microsoft", 1);
        rw.count("numFused");
        rw.commit("fuse-skip-layernorm", sentence);
        return true;
    }

private:
    /// Why Add + LayerNormalization is not one SkipLayerNormalization (empty when it is).
    static std::string whyNot(const Graph& g, const Node& norm, const Node& add) {
        if (add.inputs().size() != 2 || !hasInput(add, 0) || !hasInput(add, 1)) return {};
        if (laterOutputIsRead(g, norm)) return "kept: the mean or inverse standard deviation of " + describe(norm) + " is read";
        if (const std::string shared = whyOutputIsShared(g, add); !shared.empty())
            return "kept: " + shared + " (the sum is needed on its own)";
        const Value& a = g.value(add.input(0));
        const Value& b = g.value(add.input(1));
        if (g.constantValue(add.input(0)) || g.constantValue(add.input(1)))
            return "kept: " + describe(add) + " adds a constant, not a residual";
        if (a.dtype != DType::Float || b.dtype != DType::Float) return "kept: only float32 sums are fused";
        if (!a.shape.isStatic() || a.shape != b.shape)
            return "kept: the operands of " + describe(add) + " (" + a.shape.toString() + " and " + b.shape.toString() +
                   ") do not have one static shape; SkipLayerNormalization does not broadcast the skip";
        const auto rank = int64_t(a.shape.rank());
        if (rank != 3)
            return "kept: the sum has rank " + std::to_string(rank) +
                   "; ONNX Runtime's SkipLayerNormalization takes [batch, sequence, hidden]";
        int64_t axis = norm.attributes.getInt("axis", -1);
        if (axis < 0) axis += rank;
        if (axis != rank - 1) return "kept: " + describe(norm) + " normalizes from axis " + std::to_string(axis) + ", not over the last axis only";
        const int64_t hidden = a.shape[size_t(rank - 1)].size();
        if (!hasInput(norm, 1) || !perFeature(g, norm.input(1), hidden) ||
            (hasInput(norm, 2) && !perFeature(g, norm.input(2), hidden)))
            return "kept: the scale and bias of " + describe(norm) + " are not constant float32 vectors of " +
                   std::to_string(hidden) + " values";
        if (norm.attributes.getInt("stash_type", 1) != 1) return "kept: " + describe(norm) + " computes its statistics in a type other than float32";
        return {};
    }
};

class FuseSkipLayerNormPass final : public PatternPass {
public:
    FuseSkipLayerNormPass() { addPattern<FuseSkipLayerNorm>(); }
    std::string id() const override { return "fuse-skip-layernorm"; }
    std::string title() const override { return "Fuse residual Add + LayerNorm into SkipLayerNormalization"; }
    std::string explanation() const override {
        return "A post-norm transformer block ends with y = LayerNorm(x + F(x)): an Add writes the residual sum, "
               "and LayerNormalization reads it back to compute each row's mean and variance. ONNX Runtime's "
               "com.microsoft SkipLayerNormalization(x, skip, gamma, beta) takes both operands and forms the sum "
               "row by row as it normalizes, (s - mean(s)) / sqrt(var(s) + epsilon) * gamma + beta with s = x + skip, "
               "so the sum is never stored. The pass fires on a LayerNormalization over the last axis of a "
               "[batch, sequence, hidden] float32 tensor with constant gamma (and beta) whose input is an Add of two "
               "computed tensors of that same shape. It declines when the sum is also read elsewhere (a pre-norm "
               "block keeps it for the next residual), when the Add broadcasts or adds a constant, when the "
               "LayerNorm's mean or inverse standard deviation outputs are read, and for other ranks or axes.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseSkipLayerNormPass() { return std::make_unique<FuseSkipLayerNormPass>(); }

} // namespace graphlens
