// What every backend knows about a node of a prepared graph (prepare.h) when it decides whether
// it takes the node and how: its input and output shapes and types, the constants among its
// inputs. One type for the CPU kernel factories, the Vulkan op factories and the fallback
// between them, built by one function.
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace graphlens {

/// A node whose every input and output shape is static. Omitted inputs have empty dims and the
/// type Undefined; so do omitted outputs (no name, no reader, no graph output).
struct NodeDescriptor {
    const Graph& graph;
    const Node& node;
    int64_t opset = 0;
    int threads = 1;
    std::vector<std::vector<int64_t>> inputDims;   ///< empty for omitted inputs
    std::vector<DType> inputTypes;                 ///< Undefined for omitted inputs
    std::vector<const Tensor*> constants;          ///< an input's constant value, or nullptr
    std::vector<std::vector<int64_t>> outputDims;
    std::vector<DType> outputTypes;                ///< Undefined for omitted outputs

    bool hasInput(size_t i) const { return i < inputTypes.size() && inputTypes[i] != DType::Undefined; }
    bool hasOutput(size_t i) const { return i < outputTypes.size() && outputTypes[i] != DType::Undefined; }
    bool allOutputsGiven() const;
    const Attributes& attributes() const { return node.attributes; }
    /// True when input `i` exists and is float32.
    bool floatInput(size_t i) const { return hasInput(i) && inputTypes[i] == DType::Float; }
};

/// The descriptor of `node`, or nullopt when a shape or type of it is not known before the model
/// runs; `why` then names the value ("the output 'y' has the shape [batch,8]").
std::optional<NodeDescriptor> describeNode(const Graph& graph, const Node& node, int64_t opset, int threads,
                                           std::string* why = nullptr);

/// A value's type and its dims when static, from its initializer or Constant node where it has one.
DType valueType(const Graph& graph, ValueId value);
std::optional<std::vector<int64_t>> staticDims(const Graph& graph, ValueId value);

/// The constant a value holds: an initializer (not a graph input, whose default a caller may
/// override), a Constant node's value, or an Identity of either (PyTorch exports shared weights
/// that way); nullptr otherwise.
const Tensor* constantThroughIdentity(const Graph& graph, ValueId value);

/// True when the node carries a sub-graph (If, Loop, Scan bodies).
bool nodeHasSubgraph(const Node& node);

/// "node 'conv1' (Conv)", or "node (Conv)" for an unnamed one: how messages name a node.
std::string nodeLabel(const Node& node);

} // namespace graphlens
