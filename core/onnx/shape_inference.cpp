// Concrete shape inference through libonnx on a weight-less copy of the model.
#include "core/onnx/shape_inference.h"

#include "core/onnx/contrib_schemas.h"
#include "core/onnx/exporter.h"
#include "core/onnx/onnx_error.h"
#include "core/onnx/onnx_types.h"
#include "core/onnx/proto_arena.h"
#include "core/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <onnx/defs/schema.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace graphlens {
namespace {

/// What in `node` breaks an assumption libonnx's inference functions make of a checked node (a
/// required attribute missing or of another type, a required input omitted); empty when nothing
/// does. Unknown attributes, input counts and other checker findings are left to the checker,
/// whose findings are warnings (GraphLens's own fused nodes differ from some schemas there).
std::string schemaViolation(const onnx::NodeProto& node, const onnx::OpSchema& schema) {
    for (const auto& entry : schema.attributes()) {
        const std::string& name = entry.first;  // not a structured binding: Clang 14 cannot capture one
        const onnx::OpSchema::Attribute& attribute = entry.second;
        const auto given = std::find_if(node.attribute().begin(), node.attribute().end(),
                                        [&name](const onnx::AttributeProto& a) { return a.name() == name; });
        if (given == node.attribute().end()) {
            if (attribute.required) return "its required attribute '" + name + "' is missing";
        } else if (given->ref_attr_name().empty() && given->type() != attribute.type) {
            return "its attribute '" + name + "' has the wrong type";
        }
    }
    const auto& formal = schema.inputs();
    for (int i = 0; i < node.input_size() && size_t(i) < formal.size(); ++i)
        if (formal[size_t(i)].GetOption() == onnx::OpSchema::Single && node.input(i).empty())
            return "its required input " + std::to_string(i) + " ('" + formal[size_t(i)].GetName() + "') is omitted";
    return {};
}

/// The rank and the largest dim of each value whose shape the file states: graph inputs,
/// initializers, value_info and Constant nodes' tensors (of `graph` and the graphs enclosing it).
constexpr int kNoShape = -1;     ///< StatedShape::rank of a tensor the file types without a shape
constexpr int kNotATensor = -2;  ///< StatedShape::rank of a value the file types as a map, sequence, ...

struct StatedShape {
    int rank = 0;  ///< or kNoShape, kNotATensor
    int64_t largest = 0;
};
using KnownRanks = std::unordered_map<std::string, StatedShape>;

template <typename Dims>
StatedShape stated(const Dims& dims) {
    StatedShape s{int(dims.size()), 0};
    for (const auto& d : dims) s.largest = std::max(s.largest, int64_t(d));
    return s;
}

void collectRanks(const onnx::GraphProto& graph, KnownRanks& ranks) {
    auto typed = [&ranks](const onnx::ValueInfoProto& v) {
        if (!v.type().has_tensor_type()) {
            if (v.has_type() && v.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) ranks[v.name()] = {kNotATensor, 0};
            return;
        }
        if (!v.type().tensor_type().has_shape()) {
            ranks[v.name()] = {kNoShape, 0};
            return;
        }
        std::vector<int64_t> dims;
        for (const auto& d : v.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : 0);
        ranks[v.name()] = stated(dims);
    };
    for (const auto& v : graph.input()) typed(v);
    for (const auto& v : graph.value_info()) typed(v);
    for (const auto& t : graph.initializer()) ranks[t.name()] = stated(t.dims());
    for (const auto& node : graph.node())
        if (node.op_type() == "Constant" && node.output_size() == 1)
            for (const auto& a : node.attribute())
                if (a.name() == "value" && a.has_t()) ranks[node.output(0)] = stated(a.t().dims());
}

/// Calls `edit` once on each distinct schema of standard-domain op `op` over every opset libonnx
/// knows. The registry hands out const schemas; the guards below are their one change, made once
/// per process before any inference.
template <typename Edit>
void forEachStandardSchema(const char* op, Edit edit) {
    const auto& latest = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const int last = latest.count("") ? latest.at("").second : 1;
    std::unordered_set<const onnx::OpSchema*> seen;
    for (int version = 1; version <= last; ++version)
        if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, version, ""); schema && seen.insert(schema).second)
            edit(const_cast<onnx::OpSchema&>(*schema));
}

/// libonnx 1.12's data propagation for Shape reads its input's type without checking that there is
/// one; a value whose producer inference could not type has none (fuzzing: a Constant without a
/// value, or a Cast to type 100, read by Shape, read by another node, crashed inside libonnx). So
/// Shape's propagation is wrapped, once per process, to propagate nothing from an untyped input;
/// Shape's inference itself already leaves such an output without dims.
void guardShapePropagation() {
    static std::once_flag once;
    std::call_once(once, [] {
        forEachStandardSchema("Shape", [](onnx::OpSchema& schema) {
            if (!schema.has_data_propagation_function()) return;
            schema.PartialDataPropagationFunction([inner = schema.GetDataPropagationFunction()](onnx::DataPropagationContext& ctx) {
                const onnx::TypeProto* type = ctx.getNumInputs() > 0 ? ctx.getInputType(0) : nullptr;
                if (type && type->has_tensor_type()) inner(ctx);
            });
        });
    });
}

/// The ops whose inference makes one dim per value of a shape input (libonnx's getShapeInput),
/// and the most dims a shape may have here.
struct ShapeInput { const char* op; int input; };
constexpr ShapeInput kShapeInputs[] = {{"Reshape", 1}, {"Expand", 1}, {"ConstantOfShape", 0}, {"Resize", 3}};
constexpr int64_t kMaxDims = 1024;

/// libonnx's inference of kShapeInputs' ops makes as many unknown dims as a shape input is long
/// when its values are unknown; inferenceHazard() refuses lengths the file states, but a length
/// inference finds (fuzzing: QuantizeLinear of an input declared [2^63 - 1], read as Expand's
/// shape) made dims until the process ran out of memory. So their inference functions are
/// wrapped, once per process, to fail first on a shape input longer than kMaxDims; inference then
/// leaves that node's output without a shape, as for any node it cannot infer, and the first such
/// refusal on this thread is kept here for runOnnxShapeInference to report.
thread_local std::string refusedShapeInput;

void guardShapeInputs() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (const ShapeInput& rule : kShapeInputs) {
            forEachStandardSchema(rule.op, [&rule](onnx::OpSchema& schema) {
                if (!schema.GetTypeAndShapeInferenceFunction()) return;
                const size_t input = size_t(rule.input);
                const std::string op = rule.op;
                schema.TypeAndShapeInferenceFunction([inner = schema.GetTypeAndShapeInferenceFunction(), input, op](onnx::InferenceContext& ctx) {
                    const onnx::TypeProto* type = input < ctx.getNumInputs() ? ctx.getInputType(input) : nullptr;
                    if (type && type->has_tensor_type() && type->tensor_type().has_shape()) {
                        const onnx::TensorShapeProto& shape = type->tensor_type().shape();
                        if (shape.dim_size() == 1 && shape.dim(0).has_dim_value() && shape.dim(0).dim_value() > kMaxDims) {
                            const std::string problem = op + "'s shape input has " + std::to_string(shape.dim(0).dim_value()) +
                                                        " values, more than the " + std::to_string(kMaxDims) +
                                                        " dims a shape may have here, so its output's shape was not inferred";
                            if (refusedShapeInput.empty()) refusedShapeInput = problem;
                            fail_shape_inference(problem);
                        }
                    }
                    inner(ctx);
                });
            });
        }
    });
}

/// What in `node` breaks an assumption libonnx's inference function for it makes without checking:
/// a rank it indexes (judged on the ranks the file states), a value it divides by; empty when
/// nothing does.
std::string inferenceHazard(const onnx::NodeProto& node, const KnownRanks& ranks) {
    struct MinRank { const char* op; int input; int rank; bool needsShape = false; int maxInputs = 64; };
    // ConvTranspose's inference reads dims 0 and 1 of the weight (fuzzing: a 1-D weight crashed it).
    // STFT's reads dims 0 to 2 of the signal (fuzzing: a 1-D signal).
    // LayerNormalization's takes its axis from the end of the input's dims (fuzzing: a scalar input).
    // MaxUnpool's reads dim 1 of its indices when no output_shape is given, without looking for a
    // shape (fuzzing: a 1-D tensor in their place; indices typed without a shape).
    static constexpr MinRank rules[] = {{"ConvTranspose", 0, 3}, {"ConvTranspose", 1, 3}, {"STFT", 0, 3},
                                        {"LayerNormalization", 0, 1}, {"MaxUnpool", 1, 2, true, 2}};
    for (const MinRank& rule : rules) {
        if (node.op_type() != rule.op || node.input_size() <= rule.input || node.input_size() > rule.maxInputs) continue;
        const auto known = ranks.find(node.input(rule.input));
        if (known == ranks.end() || (known->second.rank == kNoShape && !rule.needsShape)) continue;
        if (known->second.rank == kNotATensor)
            return "its input " + std::to_string(rule.input) + " ('" + node.input(rule.input) + "') is not a tensor";
        if (known->second.rank == kNoShape)
            return "its input " + std::to_string(rule.input) + " ('" + node.input(rule.input) +
                   "') has no shape, which libonnx's inference of it reads";
        if (known->second.rank < rule.rank)
            return "its input " + std::to_string(rule.input) + " ('" + node.input(rule.input) + "') has rank " +
                   std::to_string(known->second.rank) + ", below the " + std::to_string(rule.rank) + " it needs";
    }
    // Reshape's, Expand's and ConstantOfShape's make one dim per value of their shape input, as
    // many as its stated length when the values are unknown (fuzzing: a length of 2^63 - 1).
    for (const ShapeInput& rule : kShapeInputs) {
        if (node.op_type() != rule.op || node.input_size() <= rule.input) continue;
        const auto known = ranks.find(node.input(rule.input));
        if (known != ranks.end() && known->second.largest > kMaxDims)
            return "its shape input ('" + node.input(rule.input) + "') has " + std::to_string(known->second.largest) +
                   " values, more than the " + std::to_string(kMaxDims) + " dims a shape may have here";
    }
    // Scan's makes a vector of num_scan_inputs axes when the file gives none (fuzzing: 2^40 of
    // them, an 8 TB allocation).
    if (node.op_type() == "Scan")
        for (const onnx::AttributeProto& a : node.attribute())
            if (a.name() == "num_scan_inputs" && (a.i() < 1 || a.i() > node.input_size()))
                return "its num_scan_inputs is " + std::to_string(a.i()) + " but it has " + std::to_string(node.input_size()) +
                       " inputs";
    // Window ops' inference divides by strides, dilations and group (fuzzing: a stride of 0 from a
    // TensorFlow Conv2D stopped the process with SIGFPE inside libonnx).
    for (const onnx::AttributeProto& a : node.attribute()) {
        const std::string& name = a.name();
        if (name == "strides" || name == "dilations" || name == "kernel_shape") {
            for (int i = 0; i < a.ints_size(); ++i)
                if (a.ints(i) <= 0)
                    return "its " + name + " has " + std::to_string(a.ints(i)) + " at index " + std::to_string(i) +
                           ", where only positive values make sense";
        } else if (name == "group" && a.i() <= 0) {
            return "its group is " + std::to_string(a.i()) + ", where only positive values make sense";
        }
    }
    // Transpose's reads the input dim each perm entry names (fuzzing: a 4-value perm of a 1-D tensor).
    if (node.op_type() == "Transpose" && node.input_size() > 0) {
        const auto known = ranks.find(node.input(0));
        for (const onnx::AttributeProto& a : node.attribute())
            if (a.name() == "perm" && known != ranks.end() && known->second.rank >= 0 && a.ints_size() != known->second.rank)
                return "its perm has " + std::to_string(a.ints_size()) + " values but its input ('" + node.input(0) +
                       "') has rank " + std::to_string(known->second.rank);
    }
    // Axes and batch dims index the input's dims (fuzzing: GatherND with batch_dims -2). Axis ranges
    // differ by op by one at the ends; anything further out is refused before libonnx sees it.
    auto rank0 = node.input_size() > 0 ? ranks.find(node.input(0)) : ranks.end();
    if (rank0 != ranks.end() && rank0->second.rank < 0) rank0 = ranks.end();  // no shape stated
    for (const onnx::AttributeProto& a : node.attribute()) {
        if (a.type() != onnx::AttributeProto::INT) continue;
        if (a.name() == "batch_dims" && (a.i() < 0 || (rank0 != ranks.end() && a.i() >= rank0->second.rank)))
            return "its batch_dims is " + std::to_string(a.i()) + ", outside the input's dims";
        if (a.name() == "axis" && rank0 != ranks.end() && (a.i() < -rank0->second.rank - 1 || a.i() > rank0->second.rank))
            return "its axis is " + std::to_string(a.i()) + " but its input ('" + node.input(0) + "') has rank " +
                   std::to_string(rank0->second.rank);
    }
    // SAME padding's inference steps through the input a stride at a time (fuzzing: a dim of 2^40
    // kept `info` busy for hours).
    constexpr int64_t kMaxWindowedDim = int64_t(1) << 31;
    const bool samePadding = std::any_of(node.attribute().begin(), node.attribute().end(), [](const onnx::AttributeProto& a) {
        return a.name() == "auto_pad" && a.s().rfind("SAME", 0) == 0;
    });
    if (samePadding && node.input_size() > 0)
        if (const auto known = ranks.find(node.input(0)); known != ranks.end() && known->second.largest > kMaxWindowedDim)
            return "its input ('" + node.input(0) + "') has a dim of " + std::to_string(known->second.largest) +
                   ", beyond the " + std::to_string(kMaxWindowedDim) + " a padded window can slide over";
    return {};
}

/// Throws OnnxError naming the first standard-domain node (in any graph) with a schemaViolation:
/// libonnx's inference functions read such a node out of bounds (fuzzing found a Scan without
/// num_scan_inputs and a Shape with an omitted input crashing inside libonnx).
void verifyAgainstSchemas(const onnx::GraphProto& graph, const std::unordered_map<std::string, int>& opsets,
                          KnownRanks ranks = {}) {
    collectRanks(graph, ranks);
    for (const onnx::NodeProto& node : graph.node()) {
        const std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
        if (domain.empty() || domain == "ai.onnx.ml") {
            const auto opset = opsets.find(domain);
            const int version = opset == opsets.end() ? 0 : opset->second;
            if (const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(node.op_type(), version, domain)) {
                std::string problem = schemaViolation(node, *schema);
                if (problem.empty()) problem = inferenceHazard(node, ranks);
                if (!problem.empty()) {
                    const std::string name = node.name().empty() ? node.op_type() : "'" + node.name() + "' (" + node.op_type() + ")";
                    throw OnnxError("the node " + name + " does not match its ONNX schema, so shape inference did not run: " +
                                    problem);
                }
            }
        }
        for (const onnx::AttributeProto& a : node.attribute()) {
            if (a.has_g()) verifyAgainstSchemas(a.g(), opsets, ranks);
            for (const onnx::GraphProto& g : a.graphs()) verifyAgainstSchemas(g, opsets, ranks);
        }
    }
}

/// Whether any node (of the main graph) is of an op libonnx has no schema for, such as TensorFlow
/// control flow imported opaque: inference leaves its outputs, and what is computed from them,
/// without types.
bool hasOpWithoutSchema(const onnx::GraphProto& graph, const std::unordered_map<std::string, int>& opsets) {
    for (const auto& n : graph.node()) {
        const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
        const auto opset = opsets.find(domain);
        if (opset == opsets.end() || !onnx::OpSchemaRegistry::Schema(n.op_type(), opset->second, domain)) return true;
    }
    return false;
}

/// After inference: whether a Shape or Size node reads a value inference found no type for.
/// libonnx 1.12's data propagation dereferences that missing type and crashes (the faceboxes and
/// handtrack TF.js models: TensorArrayReadV3 -> Gather -> Gather -> Shape).
bool shapeOfUntypedValue(const onnx::GraphProto& graph) {
    std::unordered_set<std::string> typed;
    for (const auto& v : graph.value_info()) typed.insert(v.name());
    for (const auto& v : graph.input()) typed.insert(v.name());
    for (const auto& t : graph.initializer()) typed.insert(t.name());
    for (const auto& n : graph.node())
        if ((n.op_type() == "Shape" || n.op_type() == "Size") && n.input_size() && !typed.count(n.input(0))) return true;
    return false;
}

/// A small integer tensor's values and rank (0 or 1).
struct SmallIntegers {
    std::vector<int64_t> values;
    int rank = 0;
};

/// The values of a small integer tensor (int64 or int32, a scalar or 1-D, at most 64 elements),
/// read as the loader reads any tensor; nullopt for anything else.
std::optional<SmallIntegers> smallIntegers(const onnx::TensorProto& proto) {
    const bool small = proto.dims_size() == 0 || (proto.dims_size() == 1 && proto.dims(0) >= 0 && proto.dims(0) <= 64);
    const bool integers = proto.data_type() == onnx::TensorProto::INT64 || proto.data_type() == onnx::TensorProto::INT32;
    if (!small || !integers || proto.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
    Tensor t;
    try {
        t = tensorFromProto(proto, nullptr, nullptr, "a shape constant");
    } catch (const OnnxError&) {
        return std::nullopt;  // data that does not match its shape: libonnx says so, or not
    }
    SmallIntegers out{{}, proto.dims_size()};
    if (t.dtype() == DType::Int64) out.values.assign(t.span<int64_t>().begin(), t.span<int64_t>().end());
    else out.values.assign(t.span<int32_t>().begin(), t.span<int32_t>().end());
    return out;
}

/// Shape inputs pinned to constants for one inference run (pinShapeInputs), undone by unpin().
struct PinnedShapes {
    std::vector<std::pair<int, std::string>> inputs;  ///< node index, the shape input it read before
    int initializers = 0;                             ///< added at the end of the graph's list
};

/// libonnx 1.12 infers Reshape and Expand only from a shape input that is an initializer or a
/// Constant: a shape computed from constants (PyTorch writes scalar Constants, unsqueezed and
/// concatenated) leaves the output's rank unknown, and with it the rest of a transformer layer,
/// though its data propagation knows the values. So a shape input computed from small integer
/// constants through Unsqueeze, Squeeze and Concat is evaluated here and given to the node as an
/// initializer for the run. Before, such a model's attention shapes stayed open until constant
/// folding, and the pipeline inferred the whole model a second time (15% of `optimize`'s
/// instructions on a 6,000-node encoder).
PinnedShapes pinShapeInputs(onnx::GraphProto& graph, int opset) {
    std::unordered_map<std::string, SmallIntegers> known;
    std::unordered_set<std::string> given;  // initializers and Constant outputs: libonnx reads those
    for (const onnx::TensorProto& init : graph.initializer()) {
        given.insert(init.name());
        if (auto values = smallIntegers(init)) known.emplace(init.name(), std::move(*values));
    }
    auto valueOf = [&](const std::string& name) -> const SmallIntegers* {
        const auto it = known.find(name);
        return it == known.end() ? nullptr : &it->second;
    };
    PinnedShapes pinned;
    for (int k = 0; k < graph.node_size(); ++k) {
        onnx::NodeProto& node = *graph.mutable_node(k);
        if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
        const std::string& op = node.op_type();
        if (op == "Constant" && node.output_size() == 1) {
            given.insert(node.output(0));
            for (const onnx::AttributeProto& a : node.attribute())
                if (a.name() == "value" && a.has_t())
                    if (auto values = smallIntegers(a.t())) known[node.output(0)] = std::move(*values);
        } else if ((op == "Unsqueeze" || op == "Squeeze") && node.input_size() >= 1 && node.output_size() == 1) {
            // A scalar unsqueezed at its only axis, or a one-element vector squeezed there.
            const bool unsqueeze = op == "Unsqueeze";
            const SmallIntegers* x = valueOf(node.input(0));
            if (!x || x->values.size() != 1 || x->rank != (unsqueeze ? 0 : 1)) continue;
            std::optional<std::vector<int64_t>> axes;
            if (opset >= 13) {
                if (node.input_size() > 1 && !node.input(1).empty()) {
                    const SmallIntegers* a = valueOf(node.input(1));
                    if (!a) continue;
                    axes = a->values;
                }
            } else {
                for (const onnx::AttributeProto& a : node.attribute())
                    if (a.name() == "axes") axes = std::vector<int64_t>(a.ints().begin(), a.ints().end());
            }
            const bool oneAxis = axes && axes->size() == 1 && ((*axes)[0] == 0 || (*axes)[0] == -1);
            if (unsqueeze ? !oneAxis : (axes && !oneAxis)) continue;
            known[node.output(0)] = SmallIntegers{x->values, unsqueeze ? 1 : 0};
        } else if (op == "Concat" && node.output_size() == 1 && node.input_size() >= 1) {
            SmallIntegers joined{{}, 1};
            bool all = true;
            for (const auto& a : node.attribute())
                if (a.name() == "axis" && a.i() != 0 && a.i() != -1) all = false;
            for (int i = 0; i < node.input_size() && all; ++i) {
                const SmallIntegers* part = valueOf(node.input(i));
                all = part && part->rank == 1;
                if (all) joined.values.insert(joined.values.end(), part->values.begin(), part->values.end());
            }
            if (all && joined.values.size() <= 64) known[node.output(0)] = std::move(joined);
        } else if ((op == "Reshape" || op == "Expand") && node.input_size() == 2) {
            const std::string& shape = node.input(1);
            const SmallIntegers* values = valueOf(shape);
            if (!values || values->rank != 1 || given.count(shape)) continue;
            onnx::TensorProto& pin = *graph.add_initializer();
            pin.set_name(shape + "/graphlens_pinned_shape");
            pin.set_data_type(onnx::TensorProto::INT64);
            pin.add_dims(int64_t(values->values.size()));
            for (int64_t v : values->values) pin.add_int64_data(v);
            ++pinned.initializers;
            pinned.inputs.emplace_back(k, shape);
            node.set_input(1, pin.name());
        }
    }
    return pinned;
}

void unpin(onnx::GraphProto& graph, const PinnedShapes& pinned) {
    for (const auto& [k, shape] : pinned.inputs) graph.mutable_node(k)->set_input(1, shape);
    for (int i = 0; i < pinned.initializers; ++i) graph.mutable_initializer()->RemoveLast();
}

} // namespace

void runOnnxShapeInference(onnx::ModelProto& proto, bool strict) {
    registerContribSchemas();  // FusedConv and FusedGemm keep their shapes
    guardShapeInputs();
    guardShapePropagation();
    refusedShapeInput.clear();
    // libonnx's inference functions take a graph input's type as given (fuzzing: a Shape reading an
    // input without one crashed inside libonnx).
    for (const onnx::ValueInfoProto& input : proto.graph().input())
        if (!input.type().has_tensor_type() && !input.type().has_sequence_type() && !input.type().has_optional_type() &&
            !input.type().has_map_type() && !input.type().has_sparse_tensor_type())
            throw OnnxError("the graph input '" + input.name() + "' has no type, so shape inference did not run");
    // Nor do they check for a sparse tensor where they read a dense one (fuzzing: a ConvTranspose
    // weight typed as a sparse tensor crashed inside libonnx); no kernel takes sparse inputs either.
    for (const onnx::ValueInfoProto& input : proto.graph().input())
        if (input.type().has_sparse_tensor_type())
            throw OnnxError("the graph input '" + input.name() + "' is a sparse tensor, so shape inference did not run");
    std::unordered_map<std::string, int> opsets;
    for (const auto& o : proto.opset_import()) opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = int(o.version());
    verifyAgainstSchemas(proto.graph(), opsets);
    try {
        // Data propagation only runs when it has a map to fill, and only where it cannot crash:
        // with ops libonnx cannot type, a plain inference first shows which values stay untyped.
        if (hasOpWithoutSchema(proto.graph(), opsets)) {
            const onnx::ShapeInferenceOptions plain(/*check_type=*/false, /*error_mode=*/strict ? 1 : 0,
                                                    /*data_propagation=*/false);
            onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), plain);
            if (shapeOfUntypedValue(proto.graph())) return;
        }
        const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/strict ? 1 : 0,
                                                  /*data_propagation=*/true);
        std::unordered_map<std::string, onnx::TensorShapeProto> shapeData;
        const PinnedShapes pinned = pinShapeInputs(*proto.mutable_graph(), opsets.count("") ? opsets.at("") : 0);
        try {
            onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), options, &shapeData);
            unpin(*proto.mutable_graph(), pinned);
        } catch (const std::exception&) {
            unpin(*proto.mutable_graph(), pinned);
            // libonnx 1.12's data propagation refuses some valid graphs (Concat's propagator applies
            // the node's axis to 1-D shape data: a Pack of [1]-shaped ints along axis 1, as in
            // MoveNet); inference without it still gives every shape it can.
            const onnx::ShapeInferenceOptions plain(/*check_type=*/false, /*error_mode=*/strict ? 1 : 0,
                                                    /*data_propagation=*/false);
            onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(), plain);
        }
    } catch (const std::exception& e) {
        throw OnnxError(firstLine(e));
    }
    if (!refusedShapeInput.empty()) throw OnnxError(refusedShapeInput);  // the shapes inferred stay in `proto`
}

void inferShapesForInputs(Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    Graph& g = model.graph;
    for (const auto& [name, dims] : inputShapes) {
        auto v = g.findValue(name);
        if (!v || !g.isGraphInput(*v)) throw OnnxError("the model has no input named '" + name + "'");
        g.value(*v).shape = Shape::ofSizes(dims);
    }
    SaveOptions options;
    options.omitDataAboveBytes = 4096;  // shape inference reads small constants (shapes), not weights
    google::protobuf::Arena arena(modelArenaOptions());
    onnx::ModelProto& proto = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    modelToProto(model, proto, options);
    auto* graph = proto.mutable_graph();
    graph->clear_value_info();
    for (auto& out : *graph->mutable_output()) out.mutable_type()->mutable_tensor_type()->clear_shape();
    try {
        runOnnxShapeInference(proto, /*strict=*/true);
    } catch (const OnnxError& e) {
        throw OnnxError(std::string("shape inference for the given input shapes failed: ") + e.what());
    }
    auto apply = [&](const onnx::ValueInfoProto& info) {
        if (auto v = g.findValue(info.name())) {
            Value& value = g.value(*v);
            const bool declared = value.declaredInFile;
            value.shape = Shape();
            applyValueInfo(info, value);
            value.declaredInFile = declared;
        }
    };
    for (const auto& info : graph->value_info()) apply(info);
    for (const auto& info : graph->output()) apply(info);
}

} // namespace graphlens
