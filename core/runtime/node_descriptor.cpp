#include "core/runtime/node_descriptor.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <limits>

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

/// "1", "1 to 3" or "2 or more": how many inputs or outputs a schema takes.
std::string arityText(int low, int high) {
    if (low == high) return std::to_string(low);
    if (high == std::numeric_limits<int>::max()) return std::to_string(low) + " or more";
    return std::to_string(low) + " to " + std::to_string(high);
}

/// Where the node contradicts the op's ONNX schema, as a sentence; empty when it does not.
/// - Its count of inputs or outputs lies outside the schema's range: kernels take the schema's
///   inputs and outputs as given (a Transpose without an output would be asked for output 0).
/// - An output's declared type contradicts an input of the same type parameter (Transpose's T in
///   and T out). A file may declare a graph output float where the node computes int64 (shape
///   inference only warns): a kernel prepared for those types would write int64 elements into a
///   buffer sized for floats.
std::string schemaContradiction(const Graph& g, const Node& n, int64_t opset, const NodeDescriptor& d) {
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(n.opType, int(opset), n.domain == "ai.onnx" ? "" : n.domain);
    if (!schema) return {};
    // The range from the formal parameters (the copies contrib_schemas.cpp registers keep the
    // counts of the schema they extend in min_input() and max_input()).
    const auto arity = [](const std::vector<onnx::OpSchema::FormalParameter>& params) {
        int low = 0;
        for (const auto& p : params)
            low += p.GetOption() == onnx::OpSchema::Single ? 1 : p.GetOption() == onnx::OpSchema::Variadic ? p.GetMinArity() : 0;
        const bool open = !params.empty() && params.back().GetOption() == onnx::OpSchema::Variadic;
        return std::pair{low, open ? std::numeric_limits<int>::max() : int(params.size())};
    };
    // Newer opsets add optional inputs (opset 18's Pad takes axes): where libonnx (1.12 in Debian,
    // to opset 17) does not know the model's opset, only the fewest inputs are checked.
    const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const auto range = known.find(n.domain == "ai.onnx" ? "" : n.domain);
    const bool current = range != known.end() && opset <= range->second.second;
    const int inputs = int(n.inputs().size()), outputs = int(n.outputs().size());
    if (const auto [low, high] = arity(schema->inputs()); inputs < low || (current && inputs > high))
        return "it has " + std::to_string(inputs) + " inputs where its ONNX schema takes " + arityText(low, high);
    if (const auto [low, high] = arity(schema->outputs()); outputs < low || outputs > high)
        return "it has " + std::to_string(outputs) + " outputs where its ONNX schema gives " + arityText(low, high);
    if (schema->inputs().empty() || schema->outputs().empty()) return {};
    const auto formal = [](const std::vector<onnx::OpSchema::FormalParameter>& params, size_t i) -> const onnx::OpSchema::FormalParameter* {
        if (i < params.size()) return &params[i];
        if (params.back().GetOption() == onnx::OpSchema::Variadic) return &params.back();
        return nullptr;
    };
    for (size_t o = 0; o < d.outputTypes.size(); ++o) {
        const auto* out = formal(schema->outputs(), o);
        if (!out || d.outputTypes[o] == DType::Undefined) continue;
        for (size_t i = 0; i < d.inputTypes.size(); ++i) {
            const auto* in = formal(schema->inputs(), i);
            if (!in || d.inputTypes[i] == DType::Undefined || in->GetTypeStr() != out->GetTypeStr()) continue;
            if (d.inputTypes[i] != d.outputTypes[o])
                return "its output '" + g.value(n.output(o)).name + "' is declared " + std::string(dtypeName(d.outputTypes[o])) +
                       " but computes " + std::string(dtypeName(d.inputTypes[i])) + ", the type of its input '" +
                       g.value(n.input(i)).name + "'";
        }
    }
    return {};
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
    // Kernels take the schema's inputs and outputs as given and size their outputs by the declared
    // types: those must be the ones the op computes (the reference kernel, which checks its
    // inputs and sizes its outputs itself, runs such a node).
    if (std::string contradiction = schemaContradiction(g, n, opset, d); !contradiction.empty()) {
        if (why) *why = std::move(contradiction);
        return std::nullopt;
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
