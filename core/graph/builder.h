// A small builder so a test (or a tool) makes a graph in a few lines:
//   GraphBuilder b;
//   auto x = b.input("x", DType::Float, {1, 3, 8, 8});
//   auto w = b.initializer("w", Tensor::floats({4, 3, 3, 3}, weights));
//   b.output(b.op("Relu", {b.op("Conv", {x, w}, {{"pads", {1, 1, 1, 1}}})}));
#pragma once

#include "core/graph/graph.h"
#include "core/graph/model.h"

namespace graphlens {

class GraphBuilder {
public:
    explicit GraphBuilder(std::string graphName = "graph");

    ValueId input(std::string name, DType dtype, Shape shape);
    ValueId initializer(std::string name, Tensor tensor);
    /// A Constant node holding `tensor`; returns its output.
    ValueId constant(Tensor tensor, std::string name = {});
    /// One node with one output (named after the node); returns the output.
    ValueId op(std::string opType, std::vector<ValueId> inputs, Attributes attributes = {},
               std::string name = {});
    /// One node with `outputCount` outputs.
    std::vector<ValueId> ops(std::string opType, std::vector<ValueId> inputs, int outputCount,
                             Attributes attributes = {}, std::string name = {});
    /// Marks a graph output, optionally declaring its type and shape.
    void output(ValueId value, DType dtype = DType::Undefined, Shape shape = {});

    Graph& graph() { return graph_; }
    NodeId lastNode() const { return lastNode_; }
    /// Wraps the graph into a model importing the default-domain opset `opset`.
    Model model(int64_t opset = 17) const;

private:
    std::string uniqueName(const std::string& opType);

    Graph graph_;
    NodeId lastNode_ = kNoId;
    int counter_ = 0;
};

} // namespace graphlens
