// fuse-silu: SiLU (swish) x * sigmoid(x), and its scaled form x * sigmoid(alpha * x), become ONNX
// Runtime's one-node com.microsoft QuickGelu(x, alpha), which computes x * sigmoid(alpha * x)
// (alpha = 1 for SiLU; 1.702 is QuickGelu's default, so the pass always writes alpha).
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

namespace graphlens {
namespace {

struct SiluMatch {
    ValueId x = kNoId;
    float alpha = 1;
    std::vector<NodeId> nodes;  ///< the last one produces x * sigmoid(alpha * x)
};

/// x * Sigmoid(x), or x * Sigmoid(alpha * x) with a constant alpha, rooted at the Sigmoid.
std::optional<SiluMatch> matchSilu(const Graph& g, const Node& sigmoid, std::string& why) {
    const ValueId z = sigmoid.input(0), s = sigmoid.output(0);
    if (auto product = matchScaledProduct(g, s, z, 1, why)) {
        SiluMatch m{z, 1, {sigmoid.id}};
        m.nodes.insert(m.nodes.end(), product->begin(), product->end());
        return m;
    }
    const Node* scale = producerOf(g, z);
    auto sc = scale && why.empty() ? scaledBy(g, *scale) : std::nullopt;
    if (!sc) return std::nullopt;
    auto product = matchScaledProduct(g, s, sc->x, 1, why);
    if (!product) return std::nullopt;
    SiluMatch m{sc->x, float(sc->factor), {scale->id, sigmoid.id}};
    m.nodes.insert(m.nodes.end(), product->begin(), product->end());
    return m;
}

class SiluPattern final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Sigmoid"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        std::string why;
        auto m = matchSilu(g, g.node(root), why);
        if (m) {
            if (const ValueId leak = escapingValue(g, m->nodes); leak != kNoId)
                why = quoted(g, leak) + ", inside x * sigmoid(x), is also read elsewhere";
            else if (g.value(m->x).dtype != DType::Float)
                why = "the input " + quoted(g, m->x) + " is not float32";
        }
        if (!m || !why.empty()) {
            if (!why.empty()) rw.decline(root, "kept: " + why);
            return false;
        }
        const std::vector<NodeId> nodes = withConstantFeeders(g, m->nodes);
        const std::string scale = m->alpha == 1 ? std::string() : formatNumber(m->alpha) + " * ";
        const std::string sentence = "fused x * sigmoid(" + scale +
                                     "x) of " + quoted(g, m->x) + " (" + std::to_string(nodes.size()) +
                                     " nodes) into com.microsoft QuickGelu '" + g.node(nodes.back()).name + "'";
        rw.replaceNodes(nodes, "QuickGelu", {m->x}, {{"alpha", m->alpha}}, "com.microsoft");
        rw.useDomain("com.microsoft", 1);
        rw.count("numFused");
        rw.commit("fuse-silu", sentence);
        return true;
    }
};

class FuseSilu final : public PatternPass {
public:
    FuseSilu() { addPattern<SiluPattern>(); }
    std::string id() const override { return "fuse-silu"; }
    std::string title() const override { return "Fuse x * sigmoid(x) (SiLU) into QuickGelu"; }
    std::string explanation() const override {
        return "SiLU, also called swish, is x * sigmoid(x): EfficientNet's and YOLO's activation, exported "
               "as a Sigmoid and a Mul that reads both x and the Sigmoid. ONNX Runtime's com.microsoft "
               "QuickGelu computes x * sigmoid(alpha * x) in one pass, so the pair becomes QuickGelu with "
               "alpha = 1 (written out, since QuickGelu's default is 1.702, the GELU approximation it is "
               "named after); x * sigmoid(alpha * x) with a constant alpha becomes QuickGelu with that "
               "alpha. A product of the Sigmoid with another tensor (a squeeze-and-excitation gate) is "
               "left alone. It declines, saying why, when the Sigmoid's output or alpha * x is read "
               "elsewhere too, or when x is not float32.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseSiluPass() { return std::make_unique<FuseSilu>(); }

} // namespace graphlens
