// The QDQ activation pattern of qdq_fusion.h and its rewrite into a 256-entry lookup table:
//   DequantizeLinear(x_q, x_s, x_z) -> f -> QuantizeLinear(y_s, y_z) -> y_q
//   f: a one-input activation (Sigmoid, HardSigmoid, HardSwish, Tanh, LeakyRelu, ...), or
//      x * Sigmoid(x) (SiLU / Swish: a Sigmoid and a Mul that both read the DequantizeLinear)
// -> ai.graphlens QLinearLookupTable(x_q, table), table[c] = Q(f(DQ(c))) for the 256 codes c,
// each computed by the reference kernels of the replaced nodes (the same float steps), so the
// table gives the subgraph's codes exactly. ONNX Runtime does the same for QLinearSigmoid and
// QLinearLeakyRelu (qlinear_lookup_table.cc). The element-wise lookup reads the int8 tensor in
// the layout the int8 convolution wrote it (channels-last), so an int8 model stays int8 through
// MobileNetV3's HardSwish and EfficientNet's SiLU.
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/cpu/qdq_patterns.h"

#include "core/graph/activation_kinds.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rewriter.h"
#include "core/runtime/kernel.h"
#include "core/runtime/node_descriptor.h"

#include <cmath>
#include <optional>

namespace graphlens {
namespace {

using qdq::isInt8;

/// A DequantizeLinear or QuantizeLinear of the default domain with a constant per-tensor scale
/// (float, finite, > 0) and a constant zero point of one value (or none).
bool perTensorConstants(const Graph& g, const Node& n, const char* op) {
    if (n.opType != op || !n.domain.empty() || n.inputs().size() < 2) return false;
    const Tensor* s = g.constantValue(n.input(1));
    if (!s || s->dtype() != DType::Float || s->numel() != 1) return false;
    const double scale = s->toDoubles()[0];
    if (!(scale > 0) || !std::isfinite(scale)) return false;
    if (n.inputs().size() > 2 && n.input(2) != kNoId) {
        const Tensor* z = g.constantValue(n.input(2));
        if (!z || z->numel() != 1) return false;
    }
    return true;
}

/// The single node reading `v` (not a graph output), or nullptr.
const Node* onlyConsumer(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.uses().size() != 1 || g.isGraphOutput(v)) return nullptr;
    return &g.node(value.uses()[0].node);
}

/// The matched nodes of one QDQ activation: `nodes` in the order they run (the DequantizeLinear
/// first, the QuantizeLinear last), `reported` the node a plan reports the table under.
struct QdqActivation {
    std::vector<const Node*> nodes;
    const Node* reported = nullptr;
    bool dequantizeShared = false;  ///< another node reads the DequantizeLinear's output too
};

/// The pattern whose DequantizeLinear is `dq`, or nullopt.
std::optional<QdqActivation> matchAt(const Graph& g, const Node& dq) {
    if (!perTensorConstants(g, dq, "DequantizeLinear") || !isInt8(valueType(g, dq.input(0)))) return std::nullopt;
    const ValueId d = dq.output(0);
    const auto dims = g.value(d).shape.sizes();
    if (!dims) return std::nullopt;
    QdqActivation m;
    m.nodes.push_back(&dq);
    const Node* last = nullptr;
    for (const Use& use : g.value(d).uses()) {
        const Node& n = g.node(use.node);
        if (tabulatesActivation(n)) {  // DQ -> f -> Q
            const Node* q = onlyConsumer(g, n.output(0));
            if (q && perTensorConstants(g, *q, "QuantizeLinear")) {
                m.nodes.push_back(&n);
                last = q;
                break;
            }
        }
        if (n.opType != "Sigmoid" || !n.domain.empty()) continue;  // DQ -> Sigmoid -> Mul(DQ, .) -> Q
        const Node* mul = onlyConsumer(g, n.output(0));
        if (!mul || mul->opType != "Mul" || !mul->domain.empty() || mul->inputs().size() != 2) continue;
        const ValueId other = mul->input(0) == n.output(0) ? mul->input(1) : mul->input(0);
        const Node* q = onlyConsumer(g, mul->output(0));
        if (other != d || !q || !perTensorConstants(g, *q, "QuantizeLinear")) continue;
        m.nodes.push_back(&n);
        m.nodes.push_back(mul);
        last = q;
        break;
    }
    if (!last) return std::nullopt;
    const Tensor* yz = last->inputs().size() > 2 && last->input(2) != kNoId ? g.constantValue(last->input(2)) : nullptr;
    if (yz && !isInt8(yz->dtype())) return std::nullopt;
    if (g.value(last->output(0)).shape.sizes() != dims) return std::nullopt;
    m.nodes.push_back(last);
    m.reported = m.nodes[m.nodes.size() - 2];
    // The DequantizeLinear goes with the pattern when only the pattern reads it.
    const size_t readers = m.nodes.size() == 4 ? 2 : 1;
    m.dequantizeShared = g.value(d).uses().size() != readers || g.isGraphOutput(d);
    return m;
}

/// table[byte] = the pattern's output code for the input code whose byte it is, computed by the
/// reference kernels of the matched nodes on the 256 codes; nullopt when one of them refuses its
/// inputs or attributes (the nodes then run as they are, and say so when they do).
std::optional<Tensor> tableOf(const Graph& g, const QdqActivation& m, int64_t opset) try {
    const DType xType = valueType(g, m.nodes.front()->input(0));
    Tensor codes = Tensor::allocate(xType, {256});
    auto* bytes = reinterpret_cast<uint8_t*>(codes.mutableData());
    for (int i = 0; i < 256; ++i) bytes[i] = uint8_t(i);
    std::map<ValueId, Tensor> values{{m.nodes.front()->input(0), codes}};
    for (const Node* n : m.nodes) {
        std::vector<const Tensor*> inputs;
        for (ValueId v : n->inputs()) {
            if (v == kNoId) inputs.push_back(nullptr);
            else if (auto it = values.find(v); it != values.end()) inputs.push_back(&it->second);
            else inputs.push_back(g.constantValue(v));
        }
        KernelContext ctx(*n, opset, std::move(inputs));
        const KernelFn kernel = referenceKernels().find(OpKey::of(*n));
        if (!kernel) return std::nullopt;
        kernel(ctx);
        values[n->output(0)] = ctx.outputs()[0];
    }
    return values.at(m.nodes.back()->output(0));
} catch (const KernelError&) {
    return std::nullopt;
}

class FuseQdqLookupTables final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-lookup-table"; }
    std::string title() const override { return "Run QDQ activations as int8 lookup tables"; }
    std::string explanation() const override {
        return "DequantizeLinear -> an activation (HardSwish, Sigmoid, x * Sigmoid(x), ...) -> QuantizeLinear maps each "
               "of the 256 input codes to one output code: a table computed once from the same float steps "
               "replaces the three passes over the tensor in float.";
    }
    std::map<NodeId, NodeId> replaced;  ///< table node made -> the activation it replaced
    std::map<std::string, int64_t> made;  ///< how many of each activation

    void run(Rewriter& rw, PassContext& context) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Graph& g = rw.graph();
            const auto m = matchAt(g, g.node(id));
            if (!m) continue;
            const Node& reported = *m->reported;
            const std::string what = reported.opType == "Mul" ? "x * Sigmoid(x)" : reported.opType;
            const std::optional<Tensor> table = tableOf(g, *m, context.opset);
            if (!table) continue;
            std::vector<NodeId> nodes{reported.id};  // the activation first (its name stays), Q last
            for (const Node* n : m->nodes)
                if (n != m->reported && n != m->nodes.back() && (n != m->nodes.front() || !m->dequantizeShared)) nodes.push_back(n->id);
            nodes.push_back(m->nodes.back()->id);
            const std::string label = nodeLabel(reported);
            const ValueId x = m->nodes.front()->input(0);
            const std::string name = reported.name.empty() ? "activation" : reported.name;
            const ValueId t = rw.addInitializer(name + "_table", *table);
            const NodeId activation = reported.id;
            const NodeId fused = rw.replaceNodes(nodes, "QLinearLookupTable", {x, t}, {}, "ai.graphlens", Rewriter::KeepName::OfFirst);
            rw.useDomain("ai.graphlens", 1);
            replaced[fused] = activation;
            ++made[what];
            rw.count("numFused");
            rw.commit("fuse-qdq-lookup-table", "ran the QDQ " + label + " as a 256-entry int8 lookup table");
        }
    }
};

} // namespace

bool tabulatesActivation(const Node& n) {
    // Relu and Clip fold into the int8 node's saturation instead (Clip's bounds may be inputs).
    // com.microsoft's one-input forms count too: fuse-silu writes x * Sigmoid(x) as QuickGelu.
    if (n.inputs().size() != 1 || n.outputs().size() != 1) return false;
    const ActivationKind* kind = activationKindOfOp(n.domain, n.opType);
    return kind && kind->id != ActivationId::Clip && kind->id != ActivationId::Relu && kind->id != ActivationId::Identity;
}

size_t fuseQdqLookupTables(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    FuseQdqLookupTables pass;
    const size_t fused = qdq::runPlanRewrite(pass, prepared, pass.replaced, reportedAs);
    if (fused) {
        std::string kinds;
        for (const auto& [what, n] : pass.made) kinds += (kinds.empty() ? "" : ", ") + std::to_string(n) + " " + what;
        prepared.steps.push_back("ran " + std::to_string(fused) + " QDQ activation" + (fused == 1 ? "" : "s") +
                                 " as int8 lookup tables: " + kinds);
    }
    return fused;
}

} // namespace graphlens
