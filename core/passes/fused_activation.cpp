// Reading activations off nodes and writing them back as nodes.
#include "core/passes/fused_activation.h"

#include "core/graph/activation_kinds.h"
#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"

namespace graphlens {

std::optional<FusedActivation> fusableActivation(const Graph& graph, const Node& node) {
    const ActivationKind* kind = activationKindOfOp(node.domain, node.opType);
    if (!kind || !kind->has(kActFusable)) return std::nullopt;
    ActivationParams p = activationParams(*kind, node.attributes);  // Clip: min/max before opset 11
    if (kind->id == ActivationId::Clip) {
        for (size_t i : {size_t(1), size_t(2)}) {  // and its inputs from opset 11 on
            if (!hasInput(node, i)) continue;
            auto v = scalarInput(graph, node, i);
            if (!v) return std::nullopt;  // a bound computed at run time
            p[i - 1] = *v;
        }
    }
    return FusedActivation{std::string(kind->name), {p.begin(), p.begin() + kind->paramCount()}};
}

void setActivationAttributes(Attributes& attributes, const FusedActivation& activation) {
    attributes.set("activation", activation.name);
    if (!activation.params.empty()) attributes.set("activation_params", activation.params);
}

std::optional<FusedActivation> activationOf(const Attributes& attributes) {
    const Attribute* name = attributes.find("activation");
    if (!name || !name->holds<std::string>()) return std::nullopt;
    FusedActivation a{name->get<std::string>(), {}};
    if (const Attribute* p = attributes.find("activation_params"); p && p->holds<std::vector<float>>())
        a.params = p->get<std::vector<float>>();
    return a;
}

bool onnxRuntimeFusesActivation(const FusedActivation& activation) {
    const ActivationKind* kind = activationKindNamed(activation.name);
    return kind && kind->has(kActOrtConv);
}

void setGemmActivationAttributes(Attributes& attributes, const FusedActivation& activation) {
    attributes.set("activation", activation.name);
    const char* names[] = {"activation_alpha", "activation_beta"};
    for (size_t i = 0; i < activation.params.size() && i < 2; ++i) attributes.set(names[i], activation.params[i]);
}

std::optional<FusedActivation> gemmActivationOf(const Attributes& attributes) {
    const Attribute* name = attributes.find("activation");
    if (!name || !name->holds<std::string>()) return std::nullopt;
    FusedActivation a{name->get<std::string>(), {}};
    const bool hasAlpha = attributes.has("activation_alpha"), hasBeta = attributes.has("activation_beta");
    const ActivationKind* kind = activationKindNamed(a.name);
    const ActivationParams defaults = kind ? kind->defaults() : ActivationParams{};
    if (hasAlpha || hasBeta) a.params.push_back(attributes.getFloat("activation_alpha", defaults[0]));
    if (hasBeta) a.params.push_back(attributes.getFloat("activation_beta", defaults[1]));
    return a;
}

bool onnxRuntimeFusesGemmActivation(const FusedActivation& activation) {
    const ActivationKind* kind = activationKindNamed(activation.name);
    return kind && kind->has(kActOrtGemm);
}

namespace {

/// x * Sigmoid(alpha * x) in standard ops (ONNX Runtime's FusedConv has no swish activation).
NodeId replaceWithSwish(Rewriter& rw, NodeId node, float alpha, ValueId x) {
    const std::string base = rw.graph().node(node).name;
    const NodeId from[] = {node};
    ValueId scaled = x;
    if (alpha != 1.0f) {
        const ValueId a = rw.addInitializer(base + "_swish_alpha", Tensor::scalar(alpha));
        scaled = rw.graph().node(rw.addNode("Mul", {x, a}, {base + "_scaled"}, {}, from, base + "_scale")).output(0);
    }
    const ValueId gate = rw.graph().node(rw.addNode("Sigmoid", {scaled}, {base + "_gate"}, {}, from, base + "_sigmoid")).output(0);
    return rw.replaceNodes({node}, "Mul", {x, gate}, {});
}

} // namespace

NodeId replaceWithActivation(Rewriter& rw, NodeId node, const FusedActivation& a, ValueId input, int64_t opset) {
    const ActivationKind* kind = activationKindNamed(a.name);
    if (!kind) return rw.replaceNodes({node}, a.name, {input}, {});
    const ActivationParams p = activationParams(*kind, a.params);
    if (kind->id == ActivationId::QuickGelu) return replaceWithSwish(rw, node, p[0], input);
    if (kind->id == ActivationId::Clip && opset >= 11) {  // bounds as inputs
        const std::string base = rw.graph().node(node).name;
        const ValueId lo = rw.addInitializer(base + "_clip_min", Tensor::scalar(p[0]));
        const ValueId hi = rw.addInitializer(base + "_clip_max", Tensor::scalar(p[1]));
        return rw.replaceNodes({node}, "Clip", {input, lo, hi}, {});
    }
    Attributes attributes;  // the kind's own attributes (Clip before opset 11: min, max)
    if (kind->paramCount() > 0) attributes.set(std::string(kind->alphaAttribute), p[0]);
    if (kind->paramCount() > 1) attributes.set(std::string(kind->betaAttribute), p[1]);
    return rw.replaceNodes({node}, std::string(kind->name), {input}, std::move(attributes), std::string(kind->domain));
}

} // namespace graphlens
