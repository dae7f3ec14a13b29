// Reading activations off nodes and writing them back as nodes.
#include "core/passes/fused_activation.h"

#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"

#include <limits>

namespace graphlens {

std::optional<FusedActivation> fusableActivation(const Graph& graph, const Node& node) {
    const std::string& op = node.opType;
    // SiLU / Swish as fuse-silu writes it: x * sigmoid(alpha * x), oneDNN's eltwise_swish.
    if (op == "QuickGelu" && node.domain == "com.microsoft")
        return FusedActivation{op, {node.attributes.getFloat("alpha", 1.702f)}};
    if (!node.domain.empty() && node.domain != "ai.onnx") return std::nullopt;
    if (op == "Relu" || op == "Sigmoid" || op == "Tanh" || op == "HardSwish") return FusedActivation{op, {}};
    if (op == "LeakyRelu") return FusedActivation{op, {node.attributes.getFloat("alpha", 0.01f)}};
    if (op == "HardSigmoid")
        return FusedActivation{op, {node.attributes.getFloat("alpha", 0.2f), node.attributes.getFloat("beta", 0.5f)}};
    if (op != "Clip") return std::nullopt;
    constexpr float inf = std::numeric_limits<float>::infinity();
    float lo = node.attributes.getFloat("min", -inf), hi = node.attributes.getFloat("max", inf);
    for (size_t i : {size_t(1), size_t(2)}) {
        if (!hasInput(node, i)) continue;
        auto v = scalarInput(graph, node, i);
        if (!v) return std::nullopt;  // a bound computed at run time
        (i == 1 ? lo : hi) = *v;
    }
    return FusedActivation{"Clip", {lo, hi}};
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
    for (const char* known : {"Relu", "Tanh", "Sigmoid", "LeakyRelu", "Clip", "HardSigmoid"})
        if (activation.name == known) return true;
    return false;
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
    const float alphaDefault = a.name == "HardSigmoid" ? 0.2f : a.name == "LeakyRelu" ? 0.01f : 0.0f;
    if (hasAlpha || hasBeta) a.params.push_back(attributes.getFloat("activation_alpha", alphaDefault));
    if (hasBeta) a.params.push_back(attributes.getFloat("activation_beta", 0.5f));
    return a;
}

bool onnxRuntimeFusesGemmActivation(const FusedActivation& activation) {
    return activation.name != "Clip" && onnxRuntimeFusesActivation(activation);
}

namespace {

/// x * Sigmoid(alpha * x) in standard ops (ONNX Runtime's FusedConv has no swish activation).
NodeId replaceWithSwish(Rewriter& rw, NodeId node, float alpha, ValueId x) {
    const std::string base = rw.graph().node(node).name;
    const NodeId from[] = {node};
    ValueId scaled = x;
    if (alpha != 1.0f) {
        const ValueId a = rw.addInitializer(base + "_swish_alpha", Tensor::scalar(alpha));
        scaled = rw.graph().node(rw.addNode("Mul", {x, a}, {base + "_scaled"}, {}, from, base + "_scale")).outputs[0];
    }
    const ValueId gate = rw.graph().node(rw.addNode("Sigmoid", {scaled}, {base + "_gate"}, {}, from, base + "_sigmoid")).outputs[0];
    return rw.replaceNodes({node}, "Mul", {x, gate}, {});
}

} // namespace

NodeId replaceWithActivation(Rewriter& rw, NodeId node, const FusedActivation& a, ValueId input, int64_t opset) {
    const std::vector<float>& p = a.params;
    auto param = [&](size_t i, float fallback) { return i < p.size() ? p[i] : fallback; };
    if (a.name == "LeakyRelu") return rw.replaceNodes({node}, a.name, {input}, {{"alpha", param(0, 0.01f)}});
    if (a.name == "HardSigmoid")
        return rw.replaceNodes({node}, a.name, {input}, {{"alpha", param(0, 0.2f)}, {"beta", param(1, 0.5f)}});
    if (a.name == "QuickGelu") return replaceWithSwish(rw, node, param(0, 1.702f), input);
    if (a.name != "Clip") return rw.replaceNodes({node}, a.name, {input}, {});
    constexpr float inf = std::numeric_limits<float>::infinity();
    const float lo = param(0, -inf), hi = param(1, inf);
    if (opset < 11) return rw.replaceNodes({node}, "Clip", {input}, {{"min", lo}, {"max", hi}});
    const std::string base = rw.graph().node(node).name;
    const ValueId loV = rw.addInitializer(base + "_clip_min", Tensor::scalar(lo));
    const ValueId hiV = rw.addInitializer(base + "_clip_max", Tensor::scalar(hi));
    return rw.replaceNodes({node}, "Clip", {input, loV, hiV}, {});
}

} // namespace graphlens
