// GraphBuilder: terse graph construction for tests and generated fixtures.
#include "core/graph/builder.h"

namespace graphlens {

GraphBuilder::GraphBuilder(std::string graphName) { graph_.name = std::move(graphName); }

ValueId GraphBuilder::input(std::string name, DType dtype, Shape shape) {
    ValueId id = graph_.addInput(std::move(name), dtype, std::move(shape));
    graph_.value(id).declaredInFile = true;
    return id;
}

ValueId GraphBuilder::initializer(std::string name, Tensor tensor) {
    return graph_.addInitializer(std::move(name), std::move(tensor));
}

ValueId GraphBuilder::constant(Tensor tensor, std::string name) {
    Attributes attrs{{"value", Attribute(tensor)}};
    ValueId out = op("Constant", {}, std::move(attrs), std::move(name));
    graph_.value(out).dtype = tensor.dtype();
    graph_.value(out).shape = Shape::ofSizes(tensor.dims());
    return out;
}

std::string GraphBuilder::uniqueName(const std::string& opType) {
    std::string candidate;
    do {
        candidate = opType + "_" + std::to_string(counter_++);
    } while (graph_.findValue(candidate) || graph_.findNode(candidate));
    return candidate;
}

ValueId GraphBuilder::op(std::string opType, std::vector<ValueId> inputs, Attributes attributes,
                         std::string name) {
    return ops(std::move(opType), std::move(inputs), 1, std::move(attributes), std::move(name))[0];
}

std::vector<ValueId> GraphBuilder::ops(std::string opType, std::vector<ValueId> inputs,
                                       int outputCount, Attributes attributes, std::string name) {
    if (name.empty()) name = uniqueName(opType);
    std::vector<std::string> outputNames;
    for (int i = 0; i < outputCount; ++i)
        outputNames.push_back(outputCount == 1 ? name + "_out" : name + "_out" + std::to_string(i));
    lastNode_ = graph_.addNode(std::move(opType), std::move(inputs), outputNames,
                               std::move(attributes), std::move(name));
    return graph_.node(lastNode_).outputs();
}

void GraphBuilder::output(ValueId value, DType dtype, Shape shape) {
    Value& v = graph_.value(value);
    if (dtype != DType::Undefined) v.dtype = dtype;
    if (shape.rankKnown()) v.shape = std::move(shape);
    v.declaredInFile = true;
    graph_.addOutput(value);
}

Model GraphBuilder::model(int64_t opset) const {
    Model m;
    m.irVersion = opset >= 15 ? 8 : 7;
    m.opsets = {{"", opset}};
    m.producerName = "graphlens builder";
    m.graph = graph_;
    return m;
}

} // namespace graphlens
