// fuse-gelu: the GELU sub-graphs exporters write, each fused into ONNX Runtime's one-node form:
//   x * 0.5 * (1 + erf(x / sqrt(2)))                              -> com.microsoft Gelu(x)
//   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))       -> com.microsoft FastGelu(x)
// and, when x = y + b with a constant bias vector b along the last axis (MatMul -> Add(b) -> GELU),
//   -> com.microsoft BiasGelu(y, b)  or  FastGelu(y, b).
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

#include <cmath>
#include <numbers>

namespace graphlens {
namespace {

const double kInvSqrt2 = 1 / std::numbers::sqrt2;
const double kSqrt2OverPi = std::sqrt(2 / std::numbers::pi);
constexpr double kCubeCoefficient = 0.044715;

struct GeluMatch {
    ValueId x = kNoId;
    std::vector<NodeId> nodes;  ///< the last one produces the GELU
};

/// The Add computing 1 + t from `t`.
const Node* onePlus(const Graph& g, ValueId t, std::string& why) {
    const Node* add = onlyReader(g, t, [](const Node& n) { return isOp(n, "Add"); }, why);
    auto c = add ? scalarOperand(g, *add) : std::nullopt;
    if (!c) return nullptr;
    if (!nearlyEqual(c->constant, 1)) {
        why = describe(*add) + " adds " + formatNumber(c->constant) + ", not 1";
        return nullptr;
    }
    return add;
}

/// onePlus(t) followed by x * 0.5 * (1 + t): appends those nodes to `m`.
bool matchHalfXTimesOnePlus(const Graph& g, ValueId t, GeluMatch& m, std::string& why) {
    const Node* one = onePlus(g, t, why);
    if (!one) return false;
    auto product = matchScaledProduct(g, one->output(0), m.x, 0.5, why);
    if (!product) return false;
    m.nodes.push_back(one->id);
    m.nodes.insert(m.nodes.end(), product->begin(), product->end());
    return true;
}

/// x * 0.5 * (1 + erf(x / sqrt(2))), rooted at the Erf.
std::optional<GeluMatch> matchErfForm(const Graph& g, const Node& erf, std::string& why) {
    const Node* scale = producerOf(g, erf.input(0));
    auto sc = scale ? scaledBy(g, *scale) : std::nullopt;
    if (!sc) return std::nullopt;
    if (!nearlyEqual(sc->factor, kInvSqrt2)) {
        why = "Erf's input is its operand times " + formatNumber(sc->factor) + ", not 1/sqrt(2)";
        return std::nullopt;
    }
    GeluMatch m{sc->x, {scale->id, erf.id}};
    if (!matchHalfXTimesOnePlus(g, erf.output(0), m, why)) return std::nullopt;
    return m;
}

/// The nodes computing x^3 as Pow(x, 3), (x * x) * x or x * (x * x).
std::optional<std::vector<NodeId>> cubeOf(const Graph& g, const Node* node, ValueId x) {
    if (!node) return std::nullopt;
    if (isOp(*node, "Pow") && node->inputs().size() == 2 && node->input(0) == x) {
        auto e = scalarInput(g, *node, 1);
        if (e && *e == 3) return std::vector<NodeId>{node->id};
        return std::nullopt;
    }
    const ValueId other = isOp(*node, "Mul") ? otherInput(*node, x) : kNoId;
    const Node* square = other == kNoId ? nullptr : producerOf(g, other);
    if (square && isOp(*square, "Mul") && square->inputs().size() == 2 && square->input(0) == x && square->input(1) == x)
        return std::vector<NodeId>{square->id, node->id};
    return std::nullopt;
}

/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), rooted at the Tanh.
std::optional<GeluMatch> matchTanhForm(const Graph& g, const Node& tanh, std::string& why) {
    const Node* outer = producerOf(g, tanh.input(0));
    auto sc = outer ? scaledBy(g, *outer) : std::nullopt;
    const Node* sum = sc ? producerOf(g, sc->x) : nullptr;
    if (!sum || !isOp(*sum, "Add") || sum->inputs().size() != 2) return std::nullopt;
    for (int side : {0, 1}) {
        const ValueId x = sum->input(size_t(side));
        const Node* cubic = producerOf(g, sum->input(size_t(1 - side)));
        auto kappa = cubic ? scaledBy(g, *cubic) : std::nullopt;
        auto cube = kappa ? cubeOf(g, producerOf(g, kappa->x), x) : std::nullopt;
        if (!cube) continue;
        if (!nearlyEqual(kappa->factor, kCubeCoefficient) || !nearlyEqual(sc->factor, kSqrt2OverPi)) {
            why = "its constants are " + formatNumber(kappa->factor) + " and " + formatNumber(sc->factor) +
                  ", not 0.044715 and sqrt(2/pi)";
            return std::nullopt;
        }
        GeluMatch m{x, *cube};
        m.nodes.insert(m.nodes.end(), {cubic->id, sum->id, outer->id, tanh.id});
        if (!matchHalfXTimesOnePlus(g, tanh.output(0), m, why)) return std::nullopt;
        return m;
    }
    return std::nullopt;
}

/// x = y + b with b a constant float vector along x's last axis and y of x's shape: the Add,
/// when the GELU's nodes are all that read x.
const Node* biasAddBefore(const Graph& g, const GeluMatch& m, ValueId& y, ValueId& bias) {
    const Node* add = producerOf(g, m.x);
    if (!add || !isOp(*add, "Add") || add->inputs().size() != 2 || !onlyReadBy(g, m.x, m.nodes)) return nullptr;
    const Shape& shape = g.value(m.x).shape;
    if (!shape.rankKnown() || shape.rank() == 0 || !shape[shape.rank() - 1].isStatic()) return nullptr;
    for (size_t side : {size_t(1), size_t(0)}) {
        const Tensor* b = constantInput(g, *add, side);
        if (!b || b->dtype() != DType::Float || b->rank() != 1 || b->numel() != shape[shape.rank() - 1].size()) continue;
        if (g.value(add->input(1 - side)).shape != shape) continue;  // the Add broadcasts more than b
        y = add->input(1 - side);
        bias = add->input(side);
        return add;
    }
    return nullptr;
}

class GeluPattern final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Erf", "Tanh"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& n = g.node(root);
        const bool erfForm = n.opType == "Erf";
        std::string why;
        auto m = erfForm ? matchErfForm(g, n, why) : matchTanhForm(g, n, why);
        if (m) {
            if (const ValueId leak = escapingValue(g, m->nodes); leak != kNoId)
                why = quoted(g, leak) + ", inside the GELU, is also read elsewhere";
            else if (g.value(m->x).dtype != DType::Float)
                why = "the GELU's input " + quoted(g, m->x) + " is not float32";
        }
        if (!m || !why.empty()) {
            if (!why.empty()) rw.decline(root, "kept: " + why);
            return false;
        }
        fuse(rw, *m, erfForm);
        return true;
    }

private:
    static void fuse(Rewriter& rw, GeluMatch& m, bool erfForm) {
        const Graph& g = rw.graph();
        ValueId y = m.x, bias = kNoId;
        std::string sentence = "fused the " + std::string(erfForm ? "erf" : "tanh") + " GELU of " + quoted(g, m.x);
        if (const Node* add = biasAddBefore(g, m, y, bias)) {
            sentence = "fused " + describe(*add) + " of the bias " + quoted(g, bias) + " and the " +
                       (erfForm ? "erf" : "tanh") + " GELU after it";
            m.nodes.insert(m.nodes.begin(), add->id);
        }
        const std::string op = !erfForm ? "FastGelu" : bias != kNoId ? "BiasGelu" : "Gelu";
        std::vector<ValueId> inputs{y};
        if (bias != kNoId) inputs.push_back(bias);
        const std::vector<NodeId> nodes = withConstantFeeders(g, m.nodes);
        const std::string name = g.node(nodes.back()).name;
        sentence += " (" + std::to_string(nodes.size()) + " nodes) into com.microsoft " + op + " '" + name + "'";
        rw.replaceNodes(nodes, op, inputs, {}, "com.microsoft");
        rw.useDomain("com.microsoft", 1);
        rw.count("num" + op);
        rw.commit("fuse-" + op, sentence);
    }
};

class FuseGelu final : public PatternPass {
public:
    FuseGelu() { addPattern<GeluPattern>(); }
    std::string id() const override { return "fuse-gelu"; }
    std::string title() const override { return "Fuse GELU sub-graphs into one Gelu node"; }
    std::string explanation() const override {
        return "GELU(x) = x * Phi(x), with Phi the normal distribution's CDF. PyTorch exports nn.GELU as "
               "five nodes, x * 0.5 * (1 + erf(x / sqrt(2))), and its tanh approximation as about ten, "
               "0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))); the factors come in any order, "
               "with / 1.4142 or * 0.7071, and * 0.5 before or after. Each becomes one ONNX Runtime node: "
               "com.microsoft Gelu (erf form) or FastGelu (tanh form), which the CPU runtime computes in "
               "one pass over the tensor. When x = y + b, the Add of a constant bias vector b along the "
               "last axis (a Linear layer's MatMul -> Add), the Add joins too: BiasGelu(y, b) or "
               "FastGelu(y, b). Constants must match within 1e-4 relative. It declines, saying why, when "
               "a value inside the sub-graph is read elsewhere (fusing would take it away), when a "
               "constant does not match (that is another function), or when the input is not float32.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseGeluPass() { return std::make_unique<FuseGelu>(); }

} // namespace graphlens
