#include "core/runtime/node_descriptor.h"

#include <algorithm>

namespace graphlens {

DType valueType(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.initializer) return value.initializer->dtype();
    if (const Tensor* t = g.constantValue(v)) return t->dtype();
    return value.dtype;
}

std::optional<std::vector<int64_t>> staticDims(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.initializer) return value.initializer->dims();
    if (const Tensor* t = g.constantValue(v)) return t->dims();
    return value.shape.sizes();
}

namespace {

bool omittedOutput(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    return value.name.empty() && value.uses().empty() && !g.isGraphOutput(v);
}

} // namespace

bool NodeDescriptor::allOutputsGiven() const {
    return std::all_of(outputTypes.begin(), outputTypes.end(), [](DType t) { return t != DType::Undefined; });
}

std::optional<NodeDescriptor> describeNode(const Graph& g, const Node& n, int64_t opset, int threads, std::string* why) {
    NodeDescriptor d{g, n, opset, threads, {}, {}, {}, {}, {}};
    auto open = [&](ValueId v, const char* role) {
        if (why) *why = std::string("its ") + role + " '" + g.value(v).name + "' has the shape " + g.value(v).shape.toString();
        return std::nullopt;
    };
    for (ValueId in : n.inputs()) {
        if (in == kNoId) {
            d.inputDims.emplace_back();
            d.inputTypes.push_back(DType::Undefined);
            d.constants.push_back(nullptr);
            continue;
        }
        auto dims = staticDims(g, in);
        if (!dims || valueType(g, in) == DType::Undefined) return open(in, "input");
        d.inputDims.push_back(std::move(*dims));
        d.inputTypes.push_back(valueType(g, in));
        d.constants.push_back(constantThroughIdentity(g, in));
    }
    for (ValueId out : n.outputs()) {
        if (omittedOutput(g, out)) {
            d.outputDims.emplace_back();
            d.outputTypes.push_back(DType::Undefined);
            continue;
        }
        auto dims = staticDims(g, out);
        if (!dims || g.value(out).dtype == DType::Undefined) return open(out, "output");
        d.outputDims.push_back(std::move(*dims));
        d.outputTypes.push_back(g.value(out).dtype);
    }
    return d;
}

const Tensor* constantThroughIdentity(const Graph& g, ValueId v) {
    for (int hops = 0; hops < 16 && v != kNoId && !g.isGraphInput(v); ++hops) {
        if (const Tensor* t = g.constantValue(v)) return t;
        const NodeId producer = g.value(v).producer();
        if (producer == kNoId || g.node(producer).opType != "Identity" || !g.node(producer).domain.empty() ||
            g.node(producer).inputs().empty())
            return nullptr;
        v = g.node(producer).input(0);
    }
    return nullptr;
}

bool nodeHasSubgraph(const Node& n) {
    for (const auto& [name, attr] : n.attributes)
        if (attr.holds<GraphPtr>() || attr.holds<std::vector<GraphPtr>>()) return true;
    return false;
}

std::string nodeLabel(const Node& n) {
    return n.name.empty() ? "node (" + n.opType + ")" : "node '" + n.name + "' (" + n.opType + ")";
}

} // namespace graphlens
