// libFuzzer target: TensorFlow GraphDefs through the TensorFlow importer (the path TF.js
// GraphModels take too, once their JSON is parsed), validation, and a CPU run with the optimized
// and the reference kernels on small inputs under a memory bound.
//
// The mutator is structure-aware for GraphDefs, as fuzz_common's is for ONNX: it parses the input
// and changes one thing a hostile or broken converter could: an integer or float attribute (strides,
// ksize, dilations, axis, masks, epsilon), a dimension of a shape attribute or a Const's tensor
// shape, the wiring (an input read from another node, or from another output of it), the op type
// (to a sibling with the same inputs), a string attribute (padding, data_format), a removed
// attribute or input, a Const element, or a dtype. Inputs that do not parse get libFuzzer's byte
// mutations. Seeds: the TF fixtures written as frozen GraphDefs (scripts/fuzz.sh).
#include "fuzz/fuzz_common.h"

#include "core/tf/graphdef_import.h"

#include <array>
#include <cstring>
#include <exception>
#include <string_view>
#include <vector>

namespace {

using graphlens::fuzz::interestingFloat;
using graphlens::fuzz::interestingInt;
using graphlens::fuzz::pick;
using graphlens::fuzz::Rng;
namespace tf = graphlens::tf;

std::string_view siblingTfOp(Rng& rng, std::string_view op) {
    static const std::vector<std::vector<std::string_view>> families{
        {"Relu", "Relu6", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Rsqrt", "Sqrt", "Square", "Floor", "Identity",
         "Elu", "Softplus", "Reciprocal", "Log"},
        {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "FloorDiv", "FloorMod", "SquaredDifference",
         "Pow", "Less", "Greater", "Equal", "BiasAdd"},
        {"Conv2D", "DepthwiseConv2dNative", "_FusedConv2D", "FusedDepthwiseConv2dNative", "Conv2DBackpropInput"},
        {"MaxPool", "AvgPool"},
        {"Mean", "Sum", "Max", "Min", "Prod", "ArgMax", "ArgMin", "All", "Any"},
        {"MatMul", "BatchMatMulV2", "_FusedMatMul"},
        {"Reshape", "BroadcastTo", "Tile", "ExpandDims", "Squeeze"},
        {"ConcatV2", "Pack", "AddN"},
        {"ResizeBilinear", "ResizeNearestNeighbor"},
        {"GatherV2", "GatherNd"},
        {"Softmax", "LogSoftmax"},
    };
    for (const auto& family : families)
        for (std::string_view member : family)
            if (member == op) return family[pick(rng, family.size())];
    return {};
}

/// A dimension list a mutation may change: a shape attribute or a Const's tensor shape.
tf::TensorShapeProto* someShape(tf::NodeDef& node, Rng& rng) {
    std::vector<tf::TensorShapeProto*> shapes;
    for (auto& entry : *node.mutable_attr()) {
        tf::AttrValue& a = entry.second;
        if (a.has_shape()) shapes.push_back(a.mutable_shape());
        if (a.has_tensor()) shapes.push_back(a.mutable_tensor()->mutable_tensor_shape());
        if (a.has_list())
            for (auto& s : *a.mutable_list()->mutable_shape()) shapes.push_back(&s);
    }
    return shapes.empty() ? nullptr : shapes[pick(rng, shapes.size())];
}

tf::AttrValue* someAttr(tf::NodeDef& node, Rng& rng) {
    if (node.attr().empty()) return nullptr;
    auto it = node.mutable_attr()->begin();
    std::advance(it, long(pick(rng, node.attr().size())));
    return &it->second;
}

bool mutateNode(tf::GraphDef& g, int index, Rng& rng) {
    tf::NodeDef& node = *g.mutable_node(index);
    switch (pick(rng, 9)) {
    case 0: {  // an integer, float or bool attribute, or one element of a list of them
        tf::AttrValue* a = someAttr(node, rng);
        if (!a) return false;
        if (a->value_case() == tf::AttrValue::kI) a->set_i(interestingInt(rng, a->i()));
        else if (a->value_case() == tf::AttrValue::kF) a->set_f(interestingFloat(rng));
        else if (a->value_case() == tf::AttrValue::kB) a->set_b(!a->b());
        else if (a->has_list() && a->list().i_size()) {
            const int k = int(pick(rng, size_t(a->list().i_size())));
            a->mutable_list()->set_i(k, interestingInt(rng, a->list().i(k)));
        } else if (a->has_list() && a->list().f_size()) {
            a->mutable_list()->set_f(int(pick(rng, size_t(a->list().f_size()))), interestingFloat(rng));
        } else {
            return false;
        }
        return true;
    }
    case 1: {  // a dimension, or a dimension added or dropped
        tf::TensorShapeProto* shape = someShape(node, rng);
        if (!shape) return false;
        if (shape->dim_size() && pick(rng, 4) != 0) {
            auto* dim = shape->mutable_dim(int(pick(rng, size_t(shape->dim_size()))));
            dim->set_size(interestingInt(rng, dim->size()));
        } else if (shape->dim_size() && pick(rng, 2)) {
            shape->mutable_dim()->RemoveLast();
        } else {
            shape->add_dim()->set_size(int64_t(pick(rng, 4)));
        }
        return true;
    }
    case 2: {  // wiring: an input read from another node (or another output of one)
        if (node.input_size() == 0 || g.node_size() < 2) return false;
        const std::string& other = g.node(int(pick(rng, size_t(g.node_size())))).name();
        const size_t output = pick(rng, 4);
        node.set_input(int(pick(rng, size_t(node.input_size()))), output ? other + ":" + std::to_string(output - 1) : other);
        return true;
    }
    case 3: {  // the op type, to a sibling
        const std::string_view sibling = siblingTfOp(rng, node.op());
        if (sibling.empty()) return false;
        node.set_op(std::string(sibling));
        return true;
    }
    case 4: {  // a string attribute
        static constexpr std::array<std::string_view, 8> strings{"SAME", "VALID", "EXPLICIT", "NCHW", "NHWC", "", "BiasAdd",
                                                                 "FusedBatchNorm"};
        tf::AttrValue* a = someAttr(node, rng);
        if (!a) return false;
        const std::string value(strings[pick(rng, strings.size())]);
        if (a->value_case() == tf::AttrValue::kS) a->set_s(value);
        else if (a->has_list() && a->list().s_size()) a->mutable_list()->set_s(int(pick(rng, size_t(a->list().s_size()))), value);
        else return false;
        return true;
    }
    case 5: {  // an attribute removed
        if (node.attr().empty()) return false;
        auto it = node.mutable_attr()->begin();
        std::advance(it, long(pick(rng, node.attr().size())));
        node.mutable_attr()->erase(it);
        return true;
    }
    case 6: {  // an input removed
        if (node.input_size() == 0) return false;
        node.mutable_input()->DeleteSubrange(int(pick(rng, size_t(node.input_size()))), 1);
        return true;
    }
    case 7: {  // one element of a Const
        for (auto& entry : *node.mutable_attr()) {
            if (!entry.second.has_tensor()) continue;
            tf::TensorProto& t = *entry.second.mutable_tensor();
            std::string& raw = *t.mutable_tensor_content();
            if (raw.size() >= 4) {
                const size_t at = 4 * pick(rng, raw.size() / 4);
                if (t.dtype() == tf::DT_FLOAT) {
                    const float v = interestingFloat(rng);
                    std::memcpy(raw.data() + at, &v, 4);
                } else {
                    int32_t v;
                    std::memcpy(&v, raw.data() + at, 4);
                    v = int32_t(interestingInt(rng, v));
                    std::memcpy(raw.data() + at, &v, 4);
                }
                return true;
            }
            if (t.int_val_size()) {
                t.set_int_val(int(pick(rng, size_t(t.int_val_size()))), int32_t(interestingInt(rng, 0)));
                return true;
            }
        }
        return false;
    }
    default: {  // a dtype
        static constexpr std::array<tf::DataType, 7> types{tf::DT_FLOAT, tf::DT_INT32, tf::DT_INT64, tf::DT_BOOL,
                                                           tf::DT_HALF, tf::DT_STRING, tf::DT_UINT8};
        for (auto& entry : *node.mutable_attr()) {
            if (entry.second.value_case() == tf::AttrValue::kType) {
                entry.second.set_type(types[pick(rng, types.size())]);
                return true;
            }
            if (entry.second.has_tensor()) {
                entry.second.mutable_tensor()->set_dtype(types[pick(rng, types.size())]);
                return true;
            }
        }
        return false;
    }
    }
}

size_t mutateGraphDef(uint8_t* data, size_t size, size_t maxSize, unsigned seed) {
    tf::GraphDef g;
    if (!g.ParseFromArray(data, int(size)) || g.node_size() == 0) return 0;
    Rng rng(seed);
    bool changed = false;
    for (int attempt = 0; attempt < 8 && !changed; ++attempt) changed = mutateNode(g, int(pick(rng, size_t(g.node_size()))), rng);
    if (!changed) return 0;
    const std::string bytes = g.SerializeAsString();
    if (bytes.size() > maxSize) return 0;
    std::memcpy(data, bytes.data(), bytes.size());
    return bytes.size();
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned seed) {
    if ((seed & 7) != 0)
        if (const size_t n = mutateGraphDef(data, size, maxSize, seed)) return n;
    return LLVMFuzzerMutate(data, size, maxSize);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace graphlens;
    tf::GraphDef graph;
    if (!graph.ParseFromArray(data, int(size))) return 0;
    try {
        tf::GraphDefSource source;
        source.fileLabel = "'fuzz.pb'";
        source.producer = "TensorFlow GraphDef";
        const Model model = tf::importGraphDef(graph, std::move(source));
        const auto feeds = fuzz::boundedFeeds(model.graph);
        if (!feeds) return 0;
        fuzz::runBothKernelSets(model, *feeds);
    } catch (const std::exception&) {
        return 0;  // the importer refused it with a sentence
    }
    return 0;
}
