// fuse-conv-add: a residual sum right after a convolution, Conv(x) + z with z exactly the
// convolution's shape, is one com.microsoft FusedConv with Z = z (ONNX Runtime's semantics:
// Y = activation(Conv(X, W, B) + Z)), so the sum happens while the output is written. A ReLU after
// the sum joins it later (fuse-conv-activation accepts a FusedConv with Z and no activation).
#include "core/passes/fused_activation.h"

#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

#include <algorithm>

namespace graphlens {
namespace {

bool fullyKnown(const Shape& s) {
    return s.rankKnown() && std::none_of(s.dims().begin(), s.dims().end(), [](const Dim& d) { return d.isUnknown(); });
}

bool isConvolution(const Node& n) {
    if (n.opType == "Conv") return isDefaultDomain(n.domain);
    return n.opType == "FusedConv" && n.domain == "com.microsoft";
}

class FuseConvAdd final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Add"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& add = g.node(root);
        std::string why;
        const auto found = fusableOperand(
            g, add, isConvolution, [&](const Node& conv, ValueId z) { return whyNot(g, conv, z); }, why);
        if (!found) {
            if (!why.empty()) rw.decline(root, why);
            return false;
        }
        const Node& conv = *found->producer;
        const ValueId z = found->other;
        std::vector<ValueId> inputs = conv.inputs();
        inputs.resize(3, kNoId);  // X, W, B (or omitted)
        inputs.push_back(z);
        const std::string sentence = "fused " + describe(conv) + " and the residual " + describe(add) +
                                     " into one FusedConv with Z = " + quoted(g, z);
        rw.replaceNodes({conv.id, root}, "FusedConv", inputs, conv.attributes, "com.microsoft", Rewriter::KeepName::OfFirst);
        rw.useDomain("com.microsoft", 1);
        rw.count("numFused");
        rw.commit("fuse-conv-add", sentence);
        return true;
    }

private:
    /// Why conv(...) + z is not one FusedConv (empty when it is).
    static std::string whyNot(const Graph& g, const Node& conv, ValueId z) {
        const ValueId y = conv.output(0);
        if (activationOf(conv.attributes))
            return "kept: " + describe(conv) + " applies its activation before the sum would be added";
        if (hasInput(conv, 3)) return "kept: " + describe(conv) + " already adds a residual Z";
        if (const std::string shared = whyOutputIsShared(g, conv); !shared.empty()) return "kept: " + shared;
        const Value& out = g.value(y);
        const Value& other = g.value(z);
        if (out.dtype != DType::Float || other.dtype != DType::Float) return "kept: only float32 sums are fused";
        if (!fullyKnown(out.shape) || out.shape != other.shape)
            return "kept: " + quoted(g, z) + " has shape " + other.shape.toString() + ", not exactly the convolution's " +
                   out.shape.toString() + " (FusedConv adds Z without broadcasting)";
        return {};
    }
};

class FuseConvAddPass final : public PatternPass {
public:
    FuseConvAddPass() { addPattern<FuseConvAdd>(); }
    std::string id() const override { return "fuse-conv-add"; }
    std::string title() const override { return "Fuse residual additions into the convolution"; }
    std::string explanation() const override {
        return "In a residual block the output of a convolution is added to the block's input: y = Conv(x) + z. "
               "ONNX Runtime's FusedConv (domain com.microsoft) takes z as a fourth input Z and computes "
               "Y = activation(Conv(X, W, B) + Z), so the sum is done while each output element is written "
               "and the separate Add, which reads and writes the whole tensor again, goes away. A following "
               "ReLU then joins the same node (fuse-conv-activation), so a ResNet block's conv -> add -> relu "
               "becomes one FusedConv. Z is added without broadcasting: it declines when z's shape is not "
               "exactly the convolution's, when the convolution's output is read by other nodes or is a graph "
               "output, when the convolution already applies an activation (the sum would come after it) or "
               "already has a Z, and for element types other than float32.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseConvAddPass() { return std::make_unique<FuseConvAddPass>(); }

} // namespace graphlens
