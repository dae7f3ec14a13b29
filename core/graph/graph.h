// The graph IR: nodes and values (edges) with stable integer ids, provenance per node, and
// value semantics: copying a Graph is a cheap snapshot (structure copied, tensors shared).
#pragma once

#include "core/graph/attribute.h"
#include "core/graph/shape.h"
#include "core/graph/tensor.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens {

using NodeId = int32_t;
using ValueId = int32_t;
constexpr int32_t kNoId = -1;

/// Thrown when a graph is not well formed (a cycle, an input nothing produces, ...).
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One consumer of a value: node `node` reads it as input number `input`.
struct Use {
    NodeId node = kNoId;
    int input = 0;
    bool operator==(const Use&) const = default;
};

/// An edge: a tensor produced by a node, fed in as a graph input, or held as an initializer.
/// Its links (producer and uses) are read here and changed only through Graph's editing methods,
/// which keep both ends of every link in step.
struct Value {
    ValueId id = kNoId;
    std::string name;
    DType dtype = DType::Undefined;
    Shape shape;
    std::optional<Tensor> initializer;
    bool outerScope = false;         ///< a sub-graph's reference to a value of an enclosing graph
    bool sparseInitializer = false;  ///< defined by one of the graph's sparse initializers
    bool declaredInFile = false;     ///< had a value_info entry (or is an input/output) in the file
    /// The serialized onnx.TypeProto of a value whose type is not a plain tensor (sequence, map,
    /// optional, sparse tensor); dtype and shape are then undefined.
    std::string opaqueType;
    std::string docString;

    /// The node producing this value; kNoId for graph inputs, initializers and values nothing
    /// produces (yet).
    NodeId producer() const { return producer_; }
    /// Which output of producer() this value is.
    int producerOutput() const { return producerOutput_; }
    /// Every node input reading this value, in the order the reads were made.
    const std::vector<Use>& uses() const { return uses_; }

private:
    friend class Graph;
    friend struct GraphTestAccess;  ///< tests break links on purpose to check Graph::validate()
    NodeId producer_ = kNoId;
    int producerOutput_ = 0;
    std::vector<Use> uses_;
};

/// An operation. Its inputs and outputs are read here and changed only through Graph's editing
/// methods (setNodeInput, setNodeOutput, replaceAllUses, ...), which update the values' links too.
struct Node {
    NodeId id = kNoId;
    std::string name;
    std::string opType;
    std::string domain;  ///< "" is the default ONNX domain
    Attributes attributes;
    /// Ids (in the original graph) of the nodes this node came from; its own id for a loaded node.
    std::vector<NodeId> provenance;
    std::string docString;

    /// The values read, in order; kNoId marks an omitted optional input.
    const std::vector<ValueId>& inputs() const { return inputs_; }
    const std::vector<ValueId>& outputs() const { return outputs_; }
    /// Input `index` (kNoId: omitted); throws std::out_of_range past the last input.
    ValueId input(size_t index) const { return inputs_.at(index); }
    /// Output `index`; throws std::out_of_range past the last output.
    ValueId output(size_t index) const { return outputs_.at(index); }

private:
    friend class Graph;
    friend struct GraphTestAccess;
    std::vector<ValueId> inputs_;
    std::vector<ValueId> outputs_;
};

class Graph {
public:
    std::string name;
    std::string docString;
    /// Serialized onnx.SparseTensorProto entries, written back as they were read.
    std::vector<std::string> sparseInitializers;

    // ---- building -------------------------------------------------------------------------
    /// Adds a value; names must be unique among live values (empty names are allowed).
    ValueId addValue(std::string name, DType dtype = DType::Undefined, Shape shape = {});
    ValueId addInput(std::string name, DType dtype, Shape shape);
    ValueId addInitializer(std::string name, Tensor tensor);
    /// Adds a node reading `inputs` and producing one new value per name in `outputNames`.
    NodeId addNode(std::string opType, std::vector<ValueId> inputs,
                   const std::vector<std::string>& outputNames, Attributes attributes = {},
                   std::string name = {}, std::string domain = {});
    /// Adds a node producing values that already exist (and that nothing produces yet); used by
    /// the loader, which creates every value before it links nodes, so files in any order load.
    NodeId addNodeProducing(std::string opType, std::vector<ValueId> inputs,
                            std::vector<ValueId> outputs, Attributes attributes = {},
                            std::string name = {}, std::string domain = {});
    void addOutput(ValueId value);
    void setInputs(std::vector<ValueId> inputs) { inputs_ = std::move(inputs); }
    void setOutputs(std::vector<ValueId> outputs) { outputs_ = std::move(outputs); }

    // ---- editing --------------------------------------------------------------------------
    void setNodeInput(NodeId node, int index, ValueId value);
    /// Makes `node` produce `value` as output number `index`; `value` must have no producer.
    /// The value it produced before is left without a producer.
    void setNodeOutput(NodeId node, int index, ValueId value);
    /// Makes every consumer (and graph output) of `from` read `to` instead.
    void replaceAllUses(ValueId from, ValueId to);
    /// Removes a node; its outputs stay as values without a producer until removed too.
    void removeNode(NodeId node);
    /// Removes a value that nothing reads or produces.
    void removeValue(ValueId value);
    void setInitializer(ValueId value, std::optional<Tensor> tensor);

    // ---- reading --------------------------------------------------------------------------
    const Node& node(NodeId id) const;
    Node& node(NodeId id);
    const Value& value(ValueId id) const;
    Value& value(ValueId id);
    bool hasNode(NodeId id) const;
    bool hasValue(ValueId id) const;
    std::optional<ValueId> findValue(std::string_view name) const;
    std::optional<NodeId> findNode(std::string_view name) const;

    /// Live node ids in insertion order.
    std::vector<NodeId> nodeIds() const;
    /// Live value ids in insertion order.
    std::vector<ValueId> valueIds() const;
    size_t nodeCount() const { return liveNodes_; }
    size_t valueCount() const { return liveValues_; }
    const std::vector<ValueId>& inputs() const { return inputs_; }
    const std::vector<ValueId>& outputs() const { return outputs_; }
    /// Values that carry an initializer, in insertion order.
    std::vector<ValueId> initializers() const;

    bool isGraphOutput(ValueId value) const;
    bool isGraphInput(ValueId value) const;
    /// The tensor of an initializer or of a Constant node's `value`; nullptr otherwise.
    const Tensor* constantValue(ValueId value) const;

    /// Nodes in an order where every producer comes before its consumers; ties keep insertion
    /// order. Throws GraphError naming a node on a cycle.
    std::vector<NodeId> topologicalOrder() const;

    /// Well-formedness problems, each one sentence: inputs nothing produces, cycles, broken links.
    std::vector<std::string> validate() const;

    /// A cheap copy: structure duplicated, tensor storage and sub-graphs shared.
    Graph snapshot() const { return *this; }

private:
    std::vector<std::optional<Node>> nodes_;
    std::vector<std::optional<Value>> values_;
    std::vector<ValueId> inputs_;
    std::vector<ValueId> outputs_;
    std::unordered_map<std::string, ValueId> valueByName_;
    size_t liveNodes_ = 0;
    size_t liveValues_ = 0;
};

} // namespace graphlens
