#include "fuzz/fuzz_common.h"

#include "core/onnx/loader.h"
#include "core/runtime/backend.h"
#include "core/runtime/reference/ref_util.h"
#include "core/runtime/resource_limits.h"

#include <onnx/onnx_pb.h>

#include <array>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <string_view>
#include <vector>

namespace graphlens::fuzz {

size_t pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

/// Integers that break kernels written for the common case: zero and negative sizes, strides and
/// groups; values one past a rank; sizes whose products overflow.
int64_t interestingInt(Rng& rng, int64_t current) {
    static constexpr std::array<int64_t, 14> values{0,  -1, 1,  2,  3,  -2, 4, 7, 16, 1 << 20, int64_t(1) << 31,
                                                    int64_t(1) << 40, std::numeric_limits<int64_t>::max(),
                                                    std::numeric_limits<int64_t>::min()};
    switch (pick(rng, 4)) {  // wrapping arithmetic: the mutator itself must not overflow
    case 0: return int64_t(uint64_t(current) + 1);
    case 1: return int64_t(uint64_t(current) - 1);
    case 2: return int64_t(0 - uint64_t(current));
    default: return values[pick(rng, values.size())];
    }
}

float interestingFloat(Rng& rng) {
    static constexpr std::array<float, 10> values{0.0f, -0.0f, -1.0f, 1e-30f, 1e30f, -1e30f, 0.5f, 65504.0f,
                                                  std::numeric_limits<float>::infinity(),
                                                  std::numeric_limits<float>::quiet_NaN()};
    return values[pick(rng, values.size())];
}

namespace {

/// Names every node input may read at position `nodeIndex`: graph inputs, initializers and the
/// outputs of earlier nodes (so the mutated graph stays in topological order).
std::vector<std::string> valuesBefore(const onnx::GraphProto& g, int nodeIndex) {
    std::vector<std::string> names;
    for (const auto& v : g.input()) names.push_back(v.name());
    for (const auto& t : g.initializer()) names.push_back(t.name());
    for (int i = 0; i < nodeIndex; ++i)
        for (const std::string& out : g.node(i).output())
            if (!out.empty()) names.push_back(out);
    return names;
}

/// Op types that take the same inputs, so swapping one for another changes the semantics the
/// kernels see without making the node trivially invalid.
std::string_view siblingOp(Rng& rng, std::string_view op) {
    static const std::vector<std::vector<std::string_view>> families{
        {"Relu", "Sigmoid", "Tanh", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Softplus", "Identity",
         "Floor", "Ceil", "Erf", "HardSwish", "Sign", "Not", "Round"},
        {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal", "Less", "Greater", "And", "PRelu"},
        {"MaxPool", "AveragePool", "LpPool"},
        {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"},
        {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceLogSumExp", "ArgMax"},
        {"Softmax", "LogSoftmax", "Hardmax"},
        {"Conv", "ConvTranspose"},
        {"MatMul", "Add", "Gemm"},
        {"Reshape", "Expand", "Tile"},
        {"Concat", "Sum", "Mean"},
        {"Squeeze", "Unsqueeze"},
        {"Gather", "GatherElements", "GatherND"},
        {"LayerNormalization", "InstanceNormalization"},
        {"Resize", "Upsample"},
    };
    for (const auto& family : families)
        for (std::string_view member : family)
            if (member == op) return family[pick(rng, family.size())];
    return {};
}

/// The mutable TensorProtos: initializers and Constant nodes' `value` attributes.
std::vector<onnx::TensorProto*> constantTensors(onnx::GraphProto& g) {
    std::vector<onnx::TensorProto*> tensors;
    for (auto& t : *g.mutable_initializer()) tensors.push_back(&t);
    for (auto& n : *g.mutable_node())
        for (auto& a : *n.mutable_attribute())
            if (a.type() == onnx::AttributeProto::TENSOR) tensors.push_back(a.mutable_t());
    return tensors;
}

/// Overwrites one element of a float or integer tensor held as raw data or in its typed field.
bool mutateElement(onnx::TensorProto& t, Rng& rng) {
    const int type = t.data_type();
    if (!t.raw_data().empty()) {
        std::string& raw = *t.mutable_raw_data();
        if (type == onnx::TensorProto::FLOAT && raw.size() >= 4) {
            const float v = interestingFloat(rng);
            std::memcpy(raw.data() + 4 * pick(rng, raw.size() / 4), &v, 4);
            return true;
        }
        if (type == onnx::TensorProto::INT64 && raw.size() >= 8) {
            const size_t at = 8 * pick(rng, raw.size() / 8);
            int64_t v;
            std::memcpy(&v, raw.data() + at, 8);
            v = interestingInt(rng, v);
            std::memcpy(raw.data() + at, &v, 8);
            return true;
        }
        if (type == onnx::TensorProto::INT32 && raw.size() >= 4) {
            const size_t at = 4 * pick(rng, raw.size() / 4);
            int32_t v;
            std::memcpy(&v, raw.data() + at, 4);
            v = int32_t(interestingInt(rng, v));
            std::memcpy(raw.data() + at, &v, 4);
            return true;
        }
        return false;
    }
    if (t.float_data_size() > 0) {
        t.set_float_data(int(pick(rng, size_t(t.float_data_size()))), interestingFloat(rng));
        return true;
    }
    if (t.int64_data_size() > 0) {
        const int at = int(pick(rng, size_t(t.int64_data_size())));
        t.set_int64_data(at, interestingInt(rng, t.int64_data(at)));
        return true;
    }
    if (t.int32_data_size() > 0) {
        const int at = int(pick(rng, size_t(t.int32_data_size())));
        t.set_int32_data(at, int32_t(interestingInt(rng, t.int32_data(at))));
        return true;
    }
    return false;
}

bool mutateOnce(onnx::GraphProto& g, Rng& rng) {
    const int nodes = g.node_size();
    switch (pick(rng, 10)) {
    case 0: {  // an integer attribute
        std::vector<onnx::AttributeProto*> attrs;
        for (auto& n : *g.mutable_node())
            for (auto& a : *n.mutable_attribute())
                if (a.type() == onnx::AttributeProto::INT || (a.type() == onnx::AttributeProto::INTS && a.ints_size() > 0))
                    attrs.push_back(&a);
        if (attrs.empty()) return false;
        onnx::AttributeProto& a = *attrs[pick(rng, attrs.size())];
        if (a.type() == onnx::AttributeProto::INT) {
            a.set_i(interestingInt(rng, a.i()));
        } else if (pick(rng, 4) == 0) {
            a.add_ints(interestingInt(rng, 1));  // one more entry than the rank asks for
        } else {
            const int at = int(pick(rng, size_t(a.ints_size())));
            a.set_ints(at, interestingInt(rng, a.ints(at)));
        }
        return true;
    }
    case 1: {  // a float attribute
        std::vector<onnx::AttributeProto*> attrs;
        for (auto& n : *g.mutable_node())
            for (auto& a : *n.mutable_attribute())
                if (a.type() == onnx::AttributeProto::FLOAT) attrs.push_back(&a);
        if (attrs.empty()) return false;
        attrs[pick(rng, attrs.size())]->set_f(interestingFloat(rng));
        return true;
    }
    case 2: {  // a dimension of a graph input
        std::vector<onnx::TensorShapeProto*> shapes;
        for (auto& v : *g.mutable_input())
            if (v.type().has_tensor_type() && v.type().tensor_type().has_shape() &&
                v.type().tensor_type().shape().dim_size() > 0)
                shapes.push_back(v.mutable_type()->mutable_tensor_type()->mutable_shape());
        if (shapes.empty()) return false;
        onnx::TensorShapeProto& shape = *shapes[pick(rng, shapes.size())];
        if (pick(rng, 6) == 0) {  // one more or one fewer dimension
            if (pick(rng, 2) == 0 || shape.dim_size() == 1) shape.add_dim()->set_dim_value(int64_t(pick(rng, 4)));
            else shape.mutable_dim()->RemoveLast();
            return true;
        }
        auto* dim = shape.mutable_dim(int(pick(rng, size_t(shape.dim_size()))));
        if (pick(rng, 5) == 0) dim->set_dim_param("n");
        else dim->set_dim_value(interestingInt(rng, dim->has_dim_value() ? dim->dim_value() : 1));
        return true;
    }
    case 3: {  // a dimension of a constant tensor (its data no longer matches)
        auto tensors = constantTensors(g);
        std::erase_if(tensors, [](const onnx::TensorProto* t) { return t->dims_size() == 0; });
        if (tensors.empty()) return false;
        onnx::TensorProto& t = *tensors[pick(rng, tensors.size())];
        const int at = int(pick(rng, size_t(t.dims_size())));
        t.set_dims(at, interestingInt(rng, t.dims(at)));
        return true;
    }
    case 4:
    case 5: {  // an element of a weight, a shape, axes, pads or indices
        auto tensors = constantTensors(g);
        if (tensors.empty()) return false;
        return mutateElement(*tensors[pick(rng, tensors.size())], rng);
    }
    case 6: {  // the wiring: one node input read from another value computed earlier
        if (nodes == 0) return false;
        const int at = int(pick(rng, size_t(nodes)));
        onnx::NodeProto& n = *g.mutable_node(at);
        const auto names = valuesBefore(g, at);
        if (n.input_size() == 0 || names.empty()) return false;
        n.set_input(int(pick(rng, size_t(n.input_size()))), names[pick(rng, names.size())]);
        return true;
    }
    case 7: {  // an op type swapped for a sibling
        if (nodes == 0) return false;
        onnx::NodeProto& n = *g.mutable_node(int(pick(rng, size_t(nodes))));
        const std::string_view op = siblingOp(rng, n.op_type());
        if (op.empty()) return false;
        n.set_op_type(std::string(op));
        return true;
    }
    case 8: {  // an attribute or an input removed (an optional input becomes "")
        if (nodes == 0) return false;
        onnx::NodeProto& n = *g.mutable_node(int(pick(rng, size_t(nodes))));
        if (n.attribute_size() > 0 && pick(rng, 2) == 0) {
            n.mutable_attribute()->DeleteSubrange(int(pick(rng, size_t(n.attribute_size()))), 1);
            return true;
        }
        if (n.input_size() == 0) return false;
        if (pick(rng, 2) == 0) n.mutable_input()->RemoveLast();
        else n.set_input(int(pick(rng, size_t(n.input_size()))), "");
        return true;
    }
    default: {  // the element type of a graph input, or a graph output read from another value
        if (pick(rng, 2) == 0 && g.input_size() > 0) {
            static constexpr std::array<int, 9> types{
                onnx::TensorProto::FLOAT,   onnx::TensorProto::DOUBLE, onnx::TensorProto::INT64,
                onnx::TensorProto::INT32,   onnx::TensorProto::FLOAT16, onnx::TensorProto::BOOL,
                onnx::TensorProto::UINT8,   onnx::TensorProto::INT8,   onnx::TensorProto::STRING};
            auto& v = *g.mutable_input(int(pick(rng, size_t(g.input_size()))));
            if (!v.type().has_tensor_type()) return false;
            v.mutable_type()->mutable_tensor_type()->set_elem_type(types[pick(rng, types.size())]);
            return true;
        }
        const auto names = valuesBefore(g, nodes);
        if (g.output_size() == 0 || names.empty()) return false;
        g.mutable_output(int(pick(rng, size_t(g.output_size()))))->set_name(names[pick(rng, names.size())]);
        return true;
    }
    }
}

} // namespace

size_t mutateModel(uint8_t* data, size_t size, size_t maxSize, unsigned seed) {
    onnx::ModelProto model;
    if (size == 0 || !model.ParseFromArray(data, int(size)) || !model.has_graph()) return 0;
    Rng rng(seed);
    // Mostly one change (the fuzzer composes them over generations), sometimes a few at once.
    const int changes = pick(rng, 4) == 0 ? 1 + int(pick(rng, 3)) : 1;
    int made = 0;
    for (int attempt = 0; attempt < 16 && made < changes; ++attempt)
        made += mutateOnce(*model.mutable_graph(), rng) ? 1 : 0;
    if (made == 0) return 0;
    std::string out;
    if (!model.SerializeToString(&out) || out.size() > maxSize) return 0;
    std::memcpy(data, out.data(), out.size());
    return out.size();
}

std::optional<Model> loadedModel(const uint8_t* data, size_t size) {
    try {
        return loadModelFromBytes(std::string_view(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

namespace {

bool isNumericInput(DType type) {
    bool numeric = true;
    try {
        ref::visitNumeric(type, "fuzz input", []<typename T>() {});
    } catch (const std::exception&) {
        numeric = false;
    }
    return numeric;
}

} // namespace

std::optional<std::map<std::string, Tensor>> boundedFeeds(const Graph& graph) {
    std::map<std::string, Tensor> feeds;
    uint64_t total = 0;
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (ValueId id : graph.inputs()) {
        const Value& input = graph.value(id);
        if (input.initializer) continue;
        if (input.dtype == DType::Undefined || input.dtype == DType::String || !input.shape.rankKnown()) return {};
        std::vector<int64_t> dims;
        for (const Dim& d : input.shape.dims()) dims.push_back(d.isStatic() ? d.size() : kSymbolicDim);
        const auto bytes = checkedTensorBytes(input.dtype, dims);
        if (!bytes) return {};
        total = saturatingAdd(total, *bytes);
        if (total > kMaxFeedBytes) return {};
        const DType compute = input.dtype == DType::Float16 || input.dtype == DType::BFloat16 ? DType::Float : input.dtype;
        Tensor t = Tensor::allocate(compute, dims);
        const int64_t n = t.numel();
        if (!isNumericInput(compute)) return {};  // float8, strings and the like: no feed is made for them
        ref::visitNumeric(compute, "fuzz input", [&]<typename T>() {
            T* p = ref::mutableDataOf<T>(t);
            for (int64_t i = 0; i < n; ++i) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                const int64_t small = int64_t(state >> 60) - 8;  // -8 .. 7
                if constexpr (std::is_same_v<T, bool>) p[i] = small & 1;
                else if constexpr (std::is_floating_point_v<T>) p[i] = T(small) / T(4);
                else p[i] = T(small < 0 ? -small : small);  // non-negative: indices, sizes, axes
            }
        });
        feeds[input.name] = compute == input.dtype ? std::move(t) : ref::fromFloat(t, input.dtype);
    }
    return feeds;
}

void runBothKernelSets(const Model& model, const std::map<std::string, Tensor>& feeds) {
    for (const bool reference : {false, true}) {
        try {
            CompileOptions options;
            options.threads = 1;
            options.maxMemory = kMaxPlanBytes;
            options.inputShapes = shapesOf(feeds);
            options.referenceOnly = reference;
            makeCpuBackend()->compile(model, options)->run(feeds);
        } catch (const std::exception&) {
            // refused or failed with a sentence
        }
    }
}

std::map<std::string, std::vector<int64_t>> shapesOf(const std::map<std::string, Tensor>& feeds) {
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto& [name, tensor] : feeds) shapes[name] = tensor.dims();
    return shapes;
}

} // namespace graphlens::fuzz
