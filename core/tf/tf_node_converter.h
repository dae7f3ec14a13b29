// Converting one TensorFlow node into ONNX-op nodes of the IR. Each TF op has a converter function
// (registered by op name in tf_ops_*.cpp) that reads the node's inputs and attributes through a
// NodeConverter and emits nodes through it. The converter keeps NHWC layout out of the graph where
// it can: a convolution's output stays channels-first (NCHW) and later nodes that do not care about
// layout (activations, element-wise math with constants, channel concatenation, padding) keep it
// so; a Transpose back to NHWC is emitted only where a consumer needs TensorFlow's layout.
#pragma once

#include "core/graph/graph.h"
#include "core/tf/tf_graph.pb.h"

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace graphlens::tf {

enum class Layout { NHWC, NCHW };

/// A TF tensor ("node" or "node:1") as the IR holds it: in TF's layout, channels-first, or both.
struct TensorSlot {
    ValueId nhwc = kNoId;  ///< in TensorFlow's own layout (any rank)
    ValueId nchw = kNoId;  ///< a 4-D tensor in channels-first layout
    NodeId origin = kNoId; ///< the first IR node of the TF node that made it (provenance)
};

/// What every node's conversion shares: the graph being built and the TF tensors it holds.
struct ImportState {
    Graph graph;
    std::unordered_map<std::string, TensorSlot> slots;   ///< by TF tensor name
    std::unordered_set<std::string> graphOutputs;        ///< TF tensor names that are graph outputs
    std::unordered_set<std::string> nodeNames;           ///< IR node names in use
    size_t shapesInferredAt = SIZE_MAX;                  ///< node count at the last shape inference
    std::function<void(Graph&)> inferShapes;             ///< fills shapes of the graph so far
    /// The nodes reading any output of a node, by node name.
    std::unordered_map<std::string, std::vector<const NodeDef*>> consumers;
    /// The value of a Const node by name, converted or not yet; nullopt for other nodes.
    std::function<std::optional<Tensor>(const std::string&)> constValueOf;
    /// Dilated convolutions TF writes as SpaceToBatchND -> Conv2D -> BatchToSpaceND: the
    /// SpaceToBatchND outputs passed through (by tensor name) with their block shape and paddings,
    /// and the convolutions that took them in.
    std::unordered_map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> atrousInputs;
    std::unordered_set<std::string> atrousConvolutions;

    /// The value of `tensor` in `layout`, adding the layout Transpose the first time it is asked.
    ValueId materialize(const std::string& tensor, Layout layout);
    std::string uniqueNodeName(const std::string& wanted);
};

/// TF's canonical tensor name of `input` ("x:0" is "x"); empty for control inputs ("^x").
std::string tensorName(const std::string& input);

class NodeConverter {
public:
    NodeConverter(ImportState& state, const NodeDef& def);

    const NodeDef& def() const { return def_; }
    const std::string& name() const { return def_.name(); }
    const std::string& op() const { return def_.op(); }
    Graph& graph() { return state_.graph; }

    // ---- inputs (control inputs "^x" are not counted) -------------------------------------
    size_t inputCount() const { return inputs_.size(); }
    const std::string& inputTensor(size_t i) const;
    /// Input `i` in `layout` (NCHW only for 4-D tensors the importer keeps channels-first).
    ValueId input(size_t i, Layout layout = Layout::NHWC);
    bool hasNchw(size_t i) const;
    /// Input `i` ready to combine element-wise with NCHW tensors: its NCHW value, a constant
    /// permuted to NCHW, or a scalar; kNoId when there is none without knowing its rank.
    ValueId nchwOperand(size_t i);
    /// The tensor of input `i` when it is a constant (a TF Const); nullptr otherwise.
    const Tensor* constant(size_t i) const;
    /// Input `i`'s values as integers; throws naming the node when it is not a constant.
    std::vector<int64_t> constInts(size_t i) const;
    /// Input `i` as an int64 tensor, for ONNX's shape-like inputs (TF uses int32).
    ValueId int64Input(size_t i);
    ImportState& state() { return state_; }
    /// The rank of a value, running shape inference on the graph so far when it is not known.
    std::optional<size_t> rankOf(ValueId value);

    // ---- attributes -----------------------------------------------------------------------
    const AttrValue* attr(const std::string& key) const;
    int64_t attrInt(const std::string& key, int64_t fallback) const;
    float attrFloat(const std::string& key, float fallback) const;
    bool attrBool(const std::string& key, bool fallback) const;
    std::string attrString(const std::string& key, const std::string& fallback = {}) const;
    std::vector<int64_t> attrInts(const std::string& key) const;
    std::vector<std::string> attrStrings(const std::string& key) const;
    int attrType(const std::string& key, int fallback) const;
    bool isNchwFormat() const;  ///< data_format NCHW (or NCDHW)

    // ---- emitting -------------------------------------------------------------------------
    /// An initializer named after this node.
    ValueId constantValue(Tensor tensor, const std::string& suffix);
    ValueId int64Constant(const std::vector<int64_t>& values, const std::string& suffix, bool scalar = false);
    /// An intermediate node with `outputs` outputs; returns the first.
    ValueId add(const std::string& opType, std::vector<ValueId> inputs, Attributes attributes = {},
                int outputs = 1, std::vector<ValueId>* all = nullptr);
    /// The node that makes this TF node's outputs: they get the TF tensor names.
    void produce(const std::string& opType, std::vector<ValueId> inputs, Attributes attributes = {},
                 Layout layout = Layout::NHWC, int outputs = 1, const std::string& domain = {});
    /// A node making only TF output `index` (for ops whose outputs ONNX makes with separate nodes).
    void produceAt(int index, const std::string& opType, std::vector<ValueId> inputs, Attributes attributes = {},
                   Layout layout = Layout::NHWC);
    /// Makes TF output `index` an existing value (emits an Identity when it is a graph output).
    void alias(int index, ValueId value, Layout layout = Layout::NHWC);
    /// The TF tensor name of output `index`.
    std::string outputTensor(int index) const;
    /// Ends the conversion with one sentence naming the node.
    [[noreturn]] void fail(const std::string& why) const;

private:
    NodeId addNode(const std::string& opType, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                   Attributes attributes, const std::string& nodeName, const std::string& domain);
    std::string uniqueValueName(const std::string& wanted) const;

    ImportState& state_;
    const NodeDef& def_;
    std::vector<std::string> inputs_;
    NodeId origin_ = kNoId;
};

using ConvertFn = std::function<void(NodeConverter&)>;
using ConverterTable = std::unordered_map<std::string, ConvertFn>;

/// The converter of a TF op; nullptr when the op is not supported.
const ConvertFn* findConverter(const std::string& op);

void registerNnOps(ConverterTable& table);     ///< tf_ops_nn.cpp: convolution, pooling, resize, activations
void registerMathOps(ConverterTable& table);   ///< tf_ops_math.cpp: element-wise, reductions, matmul
void registerShapeOps(ConverterTable& table);  ///< tf_ops_shape.cpp: shapes, slicing, gathering, control flow

/// Converts a float tensor of TF's NHWC-broadcast shape (rank <= 4) to the NCHW one.
Tensor permuteToNchw(const Tensor& t);

/// The NCHW axis of NHWC axis `axis` of a 4-D tensor (negative axes count from the end); an axis
/// outside [-4, 3] is returned as it is, for validation to refuse (fuzzing: a Concat axis of -7
/// indexed the map at -3).
inline int64_t toNchwAxis(int64_t axis) {
    static constexpr int64_t map[] = {0, 2, 3, 1};
    return axis >= -4 && axis <= 3 ? map[(axis + 4) % 4] : axis;
}

} // namespace graphlens::tf
