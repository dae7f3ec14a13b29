// Graph construction, editing, lookup, topological order and validation.
#include "core/graph/graph.h"

#include "core/graph/op_key.h"

#include <algorithm>
#include <queue>

namespace graphlens {

ValueId Graph::addValue(std::string valueName, DType dtype, Shape shape) {
    if (!valueName.empty() && valueByName_.count(valueName))
        throw GraphError("value name '" + valueName + "' is defined more than once");
    Value v;
    v.id = static_cast<ValueId>(values_.size());
    v.name = std::move(valueName);
    v.dtype = dtype;
    v.shape = std::move(shape);
    if (!v.name.empty()) valueByName_.emplace(v.name, v.id);
    values_.push_back(std::move(v));
    ++liveValues_;
    return values_.back()->id;
}

ValueId Graph::addInput(std::string valueName, DType dtype, Shape shape) {
    ValueId id = addValue(std::move(valueName), dtype, std::move(shape));
    inputs_.push_back(id);
    return id;
}

ValueId Graph::addInitializer(std::string valueName, Tensor tensor) {
    ValueId id = addValue(std::move(valueName), tensor.dtype(), Shape::ofSizes(tensor.dims()));
    values_[id]->initializer = std::move(tensor);
    return id;
}

NodeId Graph::addNode(std::string opType, std::vector<ValueId> nodeInputs,
                      const std::vector<std::string>& outputNames, Attributes attributes,
                      std::string nodeName, std::string domain) {
    std::vector<ValueId> outs;
    for (const std::string& outName : outputNames) outs.push_back(addValue(outName));
    return addNodeProducing(std::move(opType), std::move(nodeInputs), std::move(outs),
                            std::move(attributes), std::move(nodeName), std::move(domain));
}

NodeId Graph::addNodeProducing(std::string opType, std::vector<ValueId> nodeInputs,
                               std::vector<ValueId> nodeOutputs, Attributes attributes,
                               std::string nodeName, std::string domain) {
    Node n;
    n.id = static_cast<NodeId>(nodes_.size());
    n.opType = std::move(opType);
    n.name = std::move(nodeName);
    n.domain = isDefaultDomain(domain) ? std::string() : std::move(domain);  // one spelling: ""
    n.attributes = std::move(attributes);
    n.provenance = {n.id};
    for (ValueId in : nodeInputs)
        if (in != kNoId && !hasValue(in)) throw GraphError("node input refers to a removed value");
    for (size_t i = 0; i < nodeOutputs.size(); ++i) {
        Value& out = value(nodeOutputs[i]);
        if (out.producer() != kNoId || out.initializer || isGraphInput(out.id))
            throw GraphError("value name '" + out.name + "' is defined more than once");
        out.producer_ = n.id;
        out.producerOutput_ = static_cast<int>(i);
    }
    for (size_t i = 0; i < nodeInputs.size(); ++i)
        if (nodeInputs[i] != kNoId) values_[size_t(nodeInputs[i])]->uses_.push_back({n.id, int(i)});
    n.inputs_ = std::move(nodeInputs);
    n.outputs_ = std::move(nodeOutputs);
    nodes_.push_back(std::move(n));
    ++liveNodes_;
    return nodes_.back()->id;
}

void Graph::addOutput(ValueId v) { outputs_.push_back(v); }

void Graph::setNodeInput(NodeId nodeId, int index, ValueId v) {
    Node& n = node(nodeId);
    ValueId old = n.input(static_cast<size_t>(index));
    if (old != kNoId) std::erase(value(old).uses_, Use{nodeId, index});
    n.inputs_[static_cast<size_t>(index)] = v;
    if (v != kNoId) value(v).uses_.push_back({nodeId, index});
}

void Graph::setNodeOutput(NodeId nodeId, int index, ValueId v) {
    Node& n = node(nodeId);
    Value& target = value(v);
    if (target.producer() != kNoId && !(target.producer() == nodeId && target.producerOutput() == index))
        throw GraphError("value '" + target.name + "' already has a producer");
    ValueId& slot = n.outputs_.at(static_cast<size_t>(index));
    if (slot != kNoId) value(slot).producer_ = kNoId;
    slot = v;
    target.producer_ = nodeId;
    target.producerOutput_ = index;
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
    if (from == to) return;
    const std::vector<Use> uses = value(from).uses();
    for (const Use& u : uses) setNodeInput(u.node, u.input, to);
    std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::removeNode(NodeId nodeId) {
    Node& n = node(nodeId);
    for (size_t i = 0; i < n.inputs().size(); ++i)
        if (n.input(i) != kNoId) std::erase(value(n.input(i)).uses_, Use{nodeId, int(i)});
    for (ValueId out : n.outputs()) value(out).producer_ = kNoId;
    nodes_[static_cast<size_t>(nodeId)].reset();
    --liveNodes_;
}

void Graph::removeValue(ValueId v) {
    Value& val = value(v);
    if (!val.uses().empty() || val.producer() != kNoId || isGraphOutput(v))
        throw GraphError("value '" + val.name + "' is still in use and cannot be removed");
    std::erase(inputs_, v);
    if (!val.name.empty()) valueByName_.erase(val.name);
    values_[static_cast<size_t>(v)].reset();
    --liveValues_;
}

void Graph::setInitializer(ValueId v, std::optional<Tensor> tensor) {
    value(v).initializer = std::move(tensor);
}

bool Graph::hasNode(NodeId id) const {
    return id >= 0 && static_cast<size_t>(id) < nodes_.size() && nodes_[size_t(id)].has_value();
}

bool Graph::hasValue(ValueId id) const {
    return id >= 0 && static_cast<size_t>(id) < values_.size() && values_[size_t(id)].has_value();
}

const Node& Graph::node(NodeId id) const {
    if (!hasNode(id)) throw GraphError("no node with id " + std::to_string(id));
    return *nodes_[static_cast<size_t>(id)];
}

Node& Graph::node(NodeId id) {
    return const_cast<Node&>(static_cast<const Graph*>(this)->node(id));
}

const Value& Graph::value(ValueId id) const {
    if (!hasValue(id)) throw GraphError("no value with id " + std::to_string(id));
    return *values_[static_cast<size_t>(id)];
}

Value& Graph::value(ValueId id) {
    return const_cast<Value&>(static_cast<const Graph*>(this)->value(id));
}

std::optional<ValueId> Graph::findValue(std::string_view valueName) const {
    auto it = valueByName_.find(std::string(valueName));
    if (it == valueByName_.end()) return std::nullopt;
    return it->second;
}

std::optional<NodeId> Graph::findNode(std::string_view nodeName) const {
    for (const auto& n : nodes_)
        if (n && n->name == nodeName) return n->id;
    return std::nullopt;
}

std::vector<NodeId> Graph::nodeIds() const {
    std::vector<NodeId> ids;
    ids.reserve(liveNodes_);
    for (const auto& n : nodes_)
        if (n) ids.push_back(n->id);
    return ids;
}

std::vector<ValueId> Graph::valueIds() const {
    std::vector<ValueId> ids;
    ids.reserve(liveValues_);
    for (const auto& v : values_)
        if (v) ids.push_back(v->id);
    return ids;
}

std::vector<ValueId> Graph::initializers() const {
    std::vector<ValueId> ids;
    for (const auto& v : values_)
        if (v && v->initializer) ids.push_back(v->id);
    return ids;
}

bool Graph::isGraphOutput(ValueId v) const {
    return std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end();
}

bool Graph::isGraphInput(ValueId v) const {
    return std::find(inputs_.begin(), inputs_.end(), v) != inputs_.end();
}

const Tensor* Graph::constantValue(ValueId v) const {
    const Value& val = value(v);
    if (val.initializer && !isGraphInput(v)) return &*val.initializer;
    if (val.producer() == kNoId) return nullptr;
    const Node& producer = node(val.producer());
    if (producer.opType != "Constant" || !producer.domain.empty()) return nullptr;
    return producer.attributes.getTensor("value");
}

std::vector<NodeId> Graph::topologicalOrder() const {
    // Kahn's algorithm; a min-heap on node id keeps the original order among ready nodes.
    std::vector<int> pending(nodes_.size(), 0);
    std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
    for (const auto& n : nodes_) {
        if (!n) continue;
        for (ValueId in : n->inputs())
            if (in != kNoId && value(in).producer() != kNoId) ++pending[size_t(n->id)];
        if (pending[size_t(n->id)] == 0) ready.push(n->id);
    }
    std::vector<NodeId> order;
    order.reserve(liveNodes_);
    while (!ready.empty()) {
        NodeId id = ready.top();
        ready.pop();
        order.push_back(id);
        for (ValueId out : node(id).outputs())
            for (const Use& u : value(out).uses())
                if (--pending[size_t(u.node)] == 0) ready.push(u.node);
    }
    if (order.size() != liveNodes_) {
        for (const auto& n : nodes_) {
            if (n && pending[size_t(n->id)] > 0) {
                const std::string label = n->name.empty() ? n->opType : n->name;
                throw GraphError("the graph has a cycle through node '" + label + "'");
            }
        }
    }
    return order;
}

std::vector<std::string> Graph::validate() const {
    std::vector<std::string> problems;
    for (const auto& n : nodes_) {
        if (!n) continue;
        const std::string label = n->name.empty() ? n->opType : n->name;
        for (ValueId in : n->inputs()) {
            if (in == kNoId) continue;
            const Value& v = value(in);
            const bool defined = v.producer() != kNoId || v.initializer || isGraphInput(in) ||
                                 v.outerScope || v.sparseInitializer;
            if (!defined)
                problems.push_back("input '" + v.name + "' of node '" + label +
                                   "' is not produced by any node, graph input or initializer");
        }
    }
    // The links kept in both directions agree: a node's inputs and its uses, its outputs and
    // their producer.
    for (const auto& n : nodes_) {
        if (!n) continue;
        const std::string label = n->name.empty() ? n->opType : n->name;
        for (size_t i = 0; i < n->inputs().size(); ++i) {
            const ValueId in = n->input(i);
            if (in == kNoId) continue;
            if (!hasValue(in)) {
                problems.push_back("input " + std::to_string(i) + " of node '" + label + "' is a removed value");
                continue;
            }
            const auto& uses = value(in).uses();
            if (std::find(uses.begin(), uses.end(), Use{n->id, int(i)}) == uses.end())
                problems.push_back("node '" + label + "' reads '" + value(in).name + "' as input " + std::to_string(i) +
                                   " but the value does not list that use");
        }
        for (size_t i = 0; i < n->outputs().size(); ++i) {
            const ValueId out = n->output(i);
            if (!hasValue(out)) {
                problems.push_back("output " + std::to_string(i) + " of node '" + label + "' is a removed value");
                continue;
            }
            if (value(out).producer() != n->id || value(out).producerOutput() != int(i))
                problems.push_back("node '" + label + "' writes '" + value(out).name + "' but the value names another producer");
        }
    }
    for (const auto& v : values_) {
        if (!v) continue;
        for (const Use& use : v->uses())
            if (!hasNode(use.node) || use.input < 0 || size_t(use.input) >= node(use.node).inputs().size() ||
                node(use.node).input(size_t(use.input)) != v->id)
                problems.push_back("the value '" + v->name + "' lists a use by a node that does not read it");
        if (v->producer() != kNoId && !hasNode(v->producer()))
            problems.push_back("the value '" + v->name + "' names a removed node as its producer");
    }
    for (ValueId out : outputs_) {
        const Value& v = value(out);
        if (v.producer() == kNoId && !v.initializer && !isGraphInput(out) && !v.outerScope)
            problems.push_back("graph output '" + v.name + "' is not produced by anything");
    }
    try {
        (void)topologicalOrder();
    } catch (const GraphError& e) {
        problems.emplace_back(e.what());
    }
    return problems;
}

} // namespace graphlens
