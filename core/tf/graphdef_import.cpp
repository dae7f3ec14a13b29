// GraphDef -> IR: nodes in dependency order, each through its op's converter; Const nodes become
// initializers, Placeholders graph inputs; control-flow ops stay opaque (domain ai.graphlens.tf).
// ONNX shape inference then fills every shape, and TF's SAME padding becomes explicit pads.
#include "core/tf/graphdef_import.h"

#include "core/onnx/exporter.h"
#include "core/onnx/onnx_types.h"
#include "core/onnx/shape_inference.h"
#include "core/runtime/op_validation.h"
#include "core/tf/tf_error.h"
#include "core/tf/tf_node_converter.h"
#include "core/tf/tf_tensor.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <set>

namespace graphlens::tf {
namespace {

constexpr const char* kOpaqueDomain = "ai.graphlens.tf";

/// TF ops GraphLens imports as opaque nodes: drawn, never run (control flow, tensor arrays).
bool isOpaqueOp(const std::string& op) {
    static const std::set<std::string> ops{
        "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "RefEnter", "RefExit", "RefSwitch",
        "RefMerge", "RefNextIteration", "ControlTrigger", "TensorArrayV3", "TensorArrayReadV3",
        "TensorArrayWriteV3", "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArraySizeV3",
        "TensorArraySplitV3", "TensorArrayConcatV3", "TensorListReserve", "TensorListStack",
        "TensorListSetItem", "TensorListGetItem", "TensorListFromTensor", "TensorListLength",
        "While", "StatelessWhile", "If", "StatelessIf", "PartitionedCall", "StatefulPartitionedCall"};
    return ops.count(op) > 0;
}

bool isBuiltin(const std::string& op) {
    return op == "Const" || op == "Placeholder" || op == "PlaceholderWithDefault" || op == "NoOp";
}

std::string nodeOf(const std::string& input) {
    std::string name = input[0] == '^' ? input.substr(1) : input;
    if (auto colon = name.rfind(':'); colon != std::string::npos) name.resize(colon);
    return name;
}

int outputIndexOf(const std::string& input) {
    const auto colon = input.rfind(':');
    if (input[0] == '^' || colon == std::string::npos) return 0;
    return std::atoi(input.c_str() + colon + 1);
}

class GraphDefImporter {
public:
    GraphDefImporter(const GraphDef& graph, GraphDefSource& source) : def_(graph), source_(source) {}
    Model run();

private:
    void indexNodes();
    void checkOpsAndInputs() const;
    std::vector<const NodeDef*> dependencyOrder() const;
    std::vector<std::string> chooseOutputs() const;
    void convert(const NodeDef& node);
    void convertConst(const NodeDef& node);
    void convertPlaceholder(const NodeDef& node);
    void convertOpaque(const NodeDef& node);

    const GraphDef& def_;
    GraphDefSource& source_;
    ImportState state_;
    std::unordered_map<std::string, const NodeDef*> byName_;
    std::unordered_map<std::string, int> outputCount_;  ///< outputs referenced per node
    bool usesOpaque_ = false;
};

void GraphDefImporter::indexNodes() {
    for (const NodeDef& n : def_.node()) {
        if (n.name().empty()) throw TfImportError(source_.fileLabel + " has a node without a name");
        if (!byName_.emplace(n.name(), &n).second)
            throw TfImportError("the node name '" + n.name() + "' is used more than once in " + source_.fileLabel);
    }
    for (const NodeDef& n : def_.node())
        for (const std::string& in : n.input())
            if (!in.empty()) {
                int& count = outputCount_[nodeOf(in)];
                count = std::max(count, outputIndexOf(in) + 1);
            }
}

void GraphDefImporter::checkOpsAndInputs() const {
    std::vector<const NodeDef*> unsupported;
    std::set<std::string> ops;
    for (const NodeDef& n : def_.node()) {
        if (!isBuiltin(n.op()) && !isOpaqueOp(n.op()) && !findConverter(n.op()) && ops.insert(n.op()).second)
            unsupported.push_back(&n);
        for (const std::string& in : n.input())
            if (!in.empty() && !byName_.count(nodeOf(in)))
                throw TfImportError("the TensorFlow node '" + n.name() + "' (" + n.op() + ") reads '" + in +
                                    "', which no node of " + source_.fileLabel + " produces");
    }
    if (unsupported.empty()) return;
    std::string message = "unsupported TensorFlow op '" + unsupported[0]->op() + "' at node '" + unsupported[0]->name() + "'";
    if (unsupported.size() > 1) {
        message += " (the graph also uses";
        for (size_t i = 1; i < unsupported.size(); ++i) message += (i > 1 ? ", '" : " '") + unsupported[i]->op() + "'";
        message += ")";
    }
    throw TfImportError(message);
}

/// Producers before consumers; a Merge's input from a NextIteration (a loop's back edge) is not
/// followed, so TF1 while loops import as a drawable acyclic graph.
std::vector<const NodeDef*> GraphDefImporter::dependencyOrder() const {
    std::vector<const NodeDef*> order;
    std::unordered_map<const NodeDef*, int> state;  // 1: on the stack, 2: done
    for (const NodeDef& root : def_.node()) {
        if (state[&root]) continue;
        std::vector<std::pair<const NodeDef*, int>> stack{{&root, 0}};
        state[&root] = 1;
        while (!stack.empty()) {
            auto& [node, next] = stack.back();
            if (next < node->input_size()) {
                const NodeDef* dep = byName_.at(nodeOf(node->input(next++)));
                if (node->op() == "Merge" && dep->op() == "NextIteration") continue;
                if (state[dep] == 1)
                    throw TfImportError("the TensorFlow node '" + dep->name() + "' is on a cycle in " + source_.fileLabel);
                if (state[dep] == 0) {
                    state[dep] = 1;
                    stack.emplace_back(dep, 0);
                }
                continue;
            }
            state[node] = 2;
            order.push_back(node);
            stack.pop_back();
        }
    }
    return order;
}

std::vector<std::string> GraphDefImporter::chooseOutputs() const {
    std::vector<std::string> outputs;
    for (const std::string& name : source_.outputs)
        if (const std::string tensor = tensorName(name); byName_.count(nodeOf(tensor))) outputs.push_back(tensor);
    if (!outputs.empty()) return outputs;
    std::set<std::string> read;
    for (const NodeDef& n : def_.node())
        for (const std::string& in : n.input())
            if (!in.empty() && in[0] != '^') read.insert(nodeOf(in));
    for (const NodeDef& n : def_.node())
        if (!read.count(n.name()) && !isBuiltin(n.op()) && !isOpaqueOp(n.op())) outputs.push_back(n.name());
    return outputs;
}

void GraphDefImporter::convertConst(const NodeDef& node) {
    Tensor tensor;
    if (auto it = source_.weights.find(node.name()); it != source_.weights.end()) {
        tensor = it->second;
    } else {
        auto value = node.attr().find("value");
        if (source_.weightsOutside || value == node.attr().end() || !value->second.has_tensor())
            throw TfImportError("the Const node '" + node.name() + "' of " + source_.fileLabel +
                                " has no value (no weight of that name in the weightsManifest)");
        tensor = tensorFromTf(value->second.tensor(), "the Const node '" + node.name() + "'");
    }
    const ValueId v = state_.graph.addInitializer(node.name(), std::move(tensor));
    state_.slots[node.name()].nhwc = v;
}

void GraphDefImporter::convertPlaceholder(const NodeDef& node) {
    auto type = node.attr().find("dtype");
    const auto dtype = type == node.attr().end() ? std::optional<DType>(DType::Float) : dtypeFromTf(type->second.type());
    if (!dtype) throw TfImportError("the Placeholder '" + node.name() + "' has a type GraphLens cannot read");
    Shape shape;
    if (auto s = node.attr().find("shape"); s != node.attr().end() && s->second.has_shape())
        shape = shapeFromTf(s->second.shape(), node.name() + "_d");
    const ValueId v = state_.graph.addInput(node.name(), *dtype, shape);
    state_.graph.value(v).declaredInFile = true;
    state_.slots[node.name()].nhwc = v;
}

void GraphDefImporter::convertOpaque(const NodeDef& node) {
    usesOpaque_ = true;
    NodeConverter c(state_, node);
    std::vector<ValueId> inputs;
    for (const std::string& in : node.input()) {
        if (in.empty() || in[0] == '^') continue;
        const std::string tensor = tensorName(in);
        if (state_.slots.count(tensor)) inputs.push_back(state_.materialize(tensor, Layout::NHWC));
        // otherwise a loop's back edge (NextIteration -> Merge), left undrawn
    }
    const auto count = outputCount_.find(node.name());
    c.produce(node.op(), inputs, {}, Layout::NHWC, count == outputCount_.end() ? 1 : std::max(1, count->second),
              kOpaqueDomain);
}

void GraphDefImporter::convert(const NodeDef& node) {
    if (node.op() == "Const") return convertConst(node);
    if (node.op() == "Placeholder") return convertPlaceholder(node);
    if (node.op() == "NoOp") return;
    if (isOpaqueOp(node.op())) return convertOpaque(node);
    NodeConverter c(state_, node);
    if (node.op() == "PlaceholderWithDefault") return c.alias(0, c.input(0));
    (*findConverter(node.op()))(c);
}

/// Shapes of the whole graph from ONNX shape inference on a weight-less copy (small constants,
/// which shapes depend on, are kept). Problems become warnings.
void inferShapes(Graph& graph, std::vector<std::string>* warnings) {
    Model model;
    model.opsets = {{"", 17}, {kOpaqueDomain, 1}};
    model.graph = graph.snapshot();
    SaveOptions options;
    options.omitDataAboveBytes = 4096;
    onnx::ModelProto proto;
    try {
        modelToProto(model, proto, options);
        runOnnxShapeInference(proto, /*strict=*/false);
    } catch (const std::exception& e) {
        if (warnings) warnings->push_back(std::string("ONNX shape inference: ") + firstLine(e));
        return;
    }
    auto apply = [&](const onnx::ValueInfoProto& info) {
        if (auto v = graph.findValue(info.name())) {
            Value& value = graph.value(*v);
            const bool declared = value.declaredInFile;
            applyValueInfo(info, value, /*onlyIfMoreKnown=*/true);
            value.declaredInFile = declared;
        }
    };
    for (const auto& info : proto.graph().value_info()) apply(info);
    for (const auto& info : proto.graph().output()) apply(info);
}

/// auto_pad SAME_UPPER (how TF's SAME was imported) replaced by explicit pads where the input's
/// spatial size is known: total = max((ceil(in / stride) - 1) * stride + (k - 1) * dilation + 1 - in, 0),
/// half before (rounded down), the rest after.
void makeSamePaddingExplicit(Graph& g) {
    for (NodeId id : g.nodeIds()) {
        Node& n = g.node(id);
        if (n.attributes.getString("auto_pad") != "SAME_UPPER") continue;
        const Shape& in = g.value(n.input(0)).shape;
        std::vector<int64_t> kernel = n.attributes.getInts("kernel_shape");
        if (kernel.empty() && n.inputs().size() > 1)
            if (const Tensor* w = g.constantValue(n.input(1)); w && w->rank() == 4) kernel = {w->dims()[2], w->dims()[3]};
        if (!in.rankKnown() || in.rank() != 4 || kernel.size() != 2 || !in[2].isStatic() || !in[3].isStatic()) continue;
        const std::vector<int64_t> strides = n.attributes.getInts("strides", {1, 1});
        const std::vector<int64_t> dilations = n.attributes.getInts("dilations", {1, 1});
        std::vector<int64_t> pads(4);
        for (size_t d = 0; d < 2; ++d) {
            const int64_t size = in[2 + d].size(), s = strides[d], k = kernel[d], dil = dilations[d];
            const int64_t total = std::max<int64_t>(((size + s - 1) / s - 1) * s + (k - 1) * dil + 1 - size, 0);
            pads[d] = total / 2;
            pads[d + 2] = total - total / 2;
        }
        n.attributes.erase("auto_pad");
        n.attributes.set("pads", pads);
    }
}

Model GraphDefImporter::run() {
    indexNodes();
    checkOpsAndInputs();
    const std::vector<std::string> outputs = chooseOutputs();
    if (outputs.empty()) throw TfImportError(source_.fileLabel + " has no node that could be an output");
    state_.graphOutputs.insert(outputs.begin(), outputs.end());
    state_.inferShapes = [](Graph& g) { inferShapes(g, nullptr); };
    for (const NodeDef& n : def_.node())
        for (const std::string& in : n.input())
            if (!in.empty() && in[0] != '^') state_.consumers[nodeOf(in)].push_back(&n);
    state_.constValueOf = [this](const std::string& name) -> std::optional<Tensor> {
        auto node = byName_.find(name);
        if (node == byName_.end() || node->second->op() != "Const") return std::nullopt;
        if (auto w = source_.weights.find(name); w != source_.weights.end()) return w->second;
        auto value = node->second->attr().find("value");
        if (value == node->second->attr().end() || !value->second.has_tensor()) return std::nullopt;
        return tensorFromTf(value->second.tensor(), "the Const node '" + name + "'");
    };
    Model model;
    for (const NodeDef* node : dependencyOrder()) {
        try {
            convert(*node);
        } catch (const GraphError& e) {
            throw TfImportError("the TensorFlow node '" + node->name() + "' (" + node->op() + ") cannot be imported: " + e.what());
        } catch (const std::out_of_range&) {
            throw TfImportError("the TensorFlow node '" + node->name() + "' (" + node->op() +
                                ") has fewer inputs or values than its op needs");
        }
    }
    for (const std::string& tensor : outputs) {
        if (!state_.slots.count(tensor))
            throw TfImportError("the output '" + tensor + "' of " + source_.fileLabel + " is not produced by its node");
        state_.graph.addOutput(state_.materialize(tensor, Layout::NHWC));
    }
    model.graph = std::move(state_.graph);
    // Consts only converters read (filters permuted to OIHW, sizes folded into attributes) would
    // otherwise stay as initializers nothing reads and double the weights of an ONNX export.
    for (ValueId v : model.graph.initializers())
        if (model.graph.value(v).uses().empty() && !model.graph.isGraphOutput(v)) model.graph.removeValue(v);
    model.graph.name = source_.producer;
    model.opsets = {{"", 17}};
    if (usesOpaque_) model.opsets.push_back({kOpaqueDomain, 1});
    model.producerName = "GraphLens TensorFlow import";
    model.docString = "imported from the " + source_.producer + " " + source_.fileLabel;
    model.metadata = source_.metadata;
    model.sourceDir = source_.sourceDir;
    inferShapes(model.graph, &model.warnings);
    makeSamePaddingExplicit(model.graph);
    validateGraph(model.graph, 17);
    return model;
}

} // namespace

Model importGraphDef(const GraphDef& graph, GraphDefSource source) {
    return GraphDefImporter(graph, source).run();
}

} // namespace graphlens::tf
