// The rewriter: graph edits that record themselves into the pass result.
#include "core/passes/rewriter.h"

#include <algorithm>
#include <stdexcept>

namespace graphlens {

int64_t PassResult::counter(const std::string& name) const {
    for (const auto& [key, value] : counters)
        if (key == name) return value;
    return 0;
}

void PassResult::addToCounter(const std::string& name, int64_t delta) {
    for (auto& [key, value] : counters)
        if (key == name) {
            value += delta;
            return;
        }
    counters.emplace_back(name, delta);
}

Rewriter::Rewriter(Graph& graph, PassResult& result) : graph_(graph), result_(result) {}

Rewriter::~Rewriter() = default;

NodeRef Rewriter::refOf(NodeId node) const {
    const Node& n = graph_.node(node);
    return {n.id, n.name, n.opType};
}

std::vector<NodeId> Rewriter::provenanceOf(std::span<const NodeId> nodes) const {
    std::vector<NodeId> all;
    for (NodeId id : nodes) {
        const std::vector<NodeId>& p = graph_.node(id).provenance;
        all.insert(all.end(), p.begin(), p.end());
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
}

NodeId Rewriter::addNode(std::string opType, std::vector<ValueId> inputs,
                         const std::vector<std::string>& outputNames, Attributes attributes,
                         std::span<const NodeId> from, std::string name, std::string domain) {
    std::vector<std::string> unique;
    for (const std::string& n : outputNames) unique.push_back(uniqueValueName(n));
    const std::vector<NodeId> provenance = provenanceOf(from);
    const NodeId id = graph_.addNode(std::move(opType), std::move(inputs), unique, std::move(attributes),
                                     std::move(name), std::move(domain));
    if (!provenance.empty()) graph_.node(id).provenance = provenance;
    pending_.added.push_back(refOf(id));
    return id;
}

NodeId Rewriter::replaceNodes(std::span<const NodeId> nodes, std::string opType,
                              std::vector<ValueId> inputs, Attributes attributes, std::string domain,
                              KeepName keep) {
    if (nodes.empty()) throw std::logic_error("replaceNodes needs at least one node");
    const std::vector<ValueId> outputs = graph_.node(nodes.back()).outputs();
    const std::string name = graph_.node(keep == KeepName::OfLast ? nodes.back() : nodes.front()).name;
    const std::vector<NodeId> provenance = provenanceOf(nodes);
    std::vector<ValueId> dropped;
    for (NodeId id : nodes) {
        const Node& n = graph_.node(id);
        dropped.insert(dropped.end(), n.inputs().begin(), n.inputs().end());
        if (id != nodes.back()) dropped.insert(dropped.end(), n.outputs().begin(), n.outputs().end());
        pending_.removed.push_back(refOf(id));
        graph_.removeNode(id);
    }
    const NodeId id = graph_.addNodeProducing(std::move(opType), std::move(inputs), outputs,
                                              std::move(attributes), name, std::move(domain));
    graph_.node(id).provenance = provenance;
    pending_.added.push_back(refOf(id));
    for (ValueId v : dropped)
        if (v != kNoId) eraseIfDead(v);
    return id;
}

bool Rewriter::bypassNode(NodeId nodeId, int input, std::string* why) {
    const Node& n = graph_.node(nodeId);
    const ValueId in = n.input(size_t(input));
    const ValueId out = n.output(0);
    if (!graph_.isGraphOutput(out)) {
        graph_.replaceAllUses(out, in);
        removeNode(nodeId);
        return true;
    }
    // The output is part of the model's interface: let the input's producer write it directly.
    const Value& source = graph_.value(in);
    const bool movable = source.producer() != kNoId && source.uses().size() == 1 && !graph_.isGraphOutput(in);
    if (!movable) {
        if (why)
            *why = "its output '" + graph_.value(out).name + "' is a graph output and its input '" +
                   source.name + "' cannot take that name (a graph input, a constant or read elsewhere)";
        return false;
    }
    const NodeId producer = source.producer();
    const int slot = source.producerOutput();
    pending_.removed.push_back(refOf(nodeId));
    graph_.removeNode(nodeId);
    graph_.setNodeOutput(producer, slot, out);
    eraseIfDead(in);
    return true;
}

void Rewriter::removeNode(NodeId nodeId) {
    const Node& n = graph_.node(nodeId);
    std::vector<ValueId> touched = n.inputs();
    touched.insert(touched.end(), n.outputs().begin(), n.outputs().end());
    pending_.removed.push_back(refOf(nodeId));
    graph_.removeNode(nodeId);
    for (ValueId v : touched)
        if (v != kNoId) eraseIfDead(v);
}

void Rewriter::replaceByConstants(NodeId nodeId, std::vector<Tensor> tensors) {
    const Node& n = graph_.node(nodeId);
    if (tensors.size() != n.outputs().size())
        throw std::logic_error("replaceByConstants needs one tensor per output of " + n.opType);
    const std::vector<ValueId> inputs = n.inputs(), outputs = n.outputs();
    pending_.removed.push_back(refOf(nodeId));
    graph_.removeNode(nodeId);
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (outputs[i] == kNoId || eraseIfDead(outputs[i])) continue;
        setValueInfo(outputs[i], tensors[i].dtype(), Shape::ofSizes(tensors[i].dims()));
        graph_.setInitializer(outputs[i], std::move(tensors[i]));
    }
    for (ValueId v : inputs)
        if (v != kNoId) eraseIfDead(v);
}

ValueId Rewriter::addInitializer(const std::string& nameHint, Tensor tensor) {
    touched_ = true;
    return graph_.addInitializer(uniqueValueName(nameHint), std::move(tensor));
}

void Rewriter::replaceAllUses(ValueId from, ValueId to) {
    touched_ = true;
    graph_.replaceAllUses(from, to);
}

void Rewriter::setNodeInput(NodeId node, int index, ValueId value) {
    touched_ = true;
    const ValueId old = graph_.node(node).input(size_t(index));
    graph_.setNodeInput(node, index, value);
    if (old != kNoId) eraseIfDead(old);
}

void Rewriter::setAttribute(NodeId node, std::string name, Attribute value) {
    touched_ = true;
    graph_.node(node).attributes.set(std::move(name), std::move(value));
}

bool Rewriter::eraseAttribute(NodeId node, std::string_view name) {
    touched_ = true;
    return graph_.node(node).attributes.erase(name);
}

bool Rewriter::eraseIfDead(ValueId value) {
    if (!graph_.hasValue(value)) return false;
    const Value& v = graph_.value(value);
    if (!v.uses().empty() || v.producer() != kNoId || graph_.isGraphOutput(value) || graph_.isGraphInput(value))
        return false;
    graph_.removeValue(value);
    return true;
}

void Rewriter::setValueInfo(ValueId value, DType dtype, Shape shape) {
    Value& v = graph_.value(value);
    v.dtype = dtype;
    v.shape = std::move(shape);
}

void Rewriter::useDomain(const std::string& domain, int64_t version) {
    int64_t& known = result_.domainsUsed[domain];
    known = std::max(known, version);
}

void Rewriter::commit(std::string kind, std::string sentence) {
    pending_.kind = std::move(kind);
    pending_.sentence = std::move(sentence);
    result_.rewrites.push_back(std::move(pending_));
    pending_ = {};
    touched_ = false;
}

void Rewriter::decline(NodeId node, std::string reason) {
    result_.declines.push_back({refOf(node), std::move(reason)});
}

std::string Rewriter::uniqueValueName(const std::string& hint) const {
    const std::string base = hint.empty() ? std::string("value") : hint;
    if (!graph_.findValue(base)) return base;
    for (int i = 1;; ++i) {
        std::string candidate = base + "_" + std::to_string(i);
        if (!graph_.findValue(candidate)) return candidate;
    }
}

} // namespace graphlens
