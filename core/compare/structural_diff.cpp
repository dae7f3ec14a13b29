// Structural diff of matched nodes: op, attributes, constant inputs.
#include "core/compare/structural_diff.h"

#include "core/graph/op_key.h"

#include <cmath>
#include <sstream>

namespace graphlens {
namespace {

template <typename T>
std::string listText(const std::vector<T>& values) {
    std::ostringstream out;
    out << "[";
    for (size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
    out << "]";
    return out.str();
}

std::string opName(const Node& n) { return n.domain.empty() ? n.opType : n.domain + ":" + n.opType; }

void diffAttributes(const Node& a, const Node& b, std::vector<std::string>& out) {
    for (const auto& [name, value] : a.attributes) {
        const Attribute* other = b.attributes.find(name);
        const std::string before = attributeText(value);
        if (!other) out.push_back("removed " + name + ": " + before);
        else if (const std::string after = attributeText(*other); after != before) out.push_back(name + ": " + before + " -> " + after);
    }
    for (const auto& [name, value] : b.attributes)
        if (!a.attributes.has(name)) out.push_back("added " + name + ": " + attributeText(value));
}

WeightChange weightChange(int input, const Graph& ga, ValueId va, const Graph& gb, ValueId vb) {
    WeightChange change;
    change.input = input;
    const Tensor* ta = va == kNoId ? nullptr : ga.constantValue(va);
    const Tensor* tb = vb == kNoId ? nullptr : gb.constantValue(vb);
    if (ta) change.nameA = ga.value(va).name;
    if (tb) change.nameB = gb.value(vb).name;
    if (!ta || !tb) {
        change.shapeChange = ta ? "removed" : "added";
        change.relativeL2 = 1;
        return change;
    }
    if (ta->dims() != tb->dims())
        change.shapeChange = "shape " + Shape::ofSizes(ta->dims()).toString() + " -> " + Shape::ofSizes(tb->dims()).toString();
    if (ta->numel() != tb->numel() || ta->dtype() == DType::String || tb->dtype() == DType::String) return change;
    const std::vector<double> x = ta->toDoubles(), y = tb->toDoubles();
    double diff2 = 0, norm2 = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double d = y[i] - x[i];
        change.maxAbsDifference = std::max(change.maxAbsDifference, std::abs(d));
        diff2 += d * d;
        norm2 += x[i] * x[i];
    }
    change.relativeL2 = norm2 > 0 ? std::sqrt(diff2 / norm2) : (diff2 > 0 ? 1 : 0);
    return change;
}

/// Constant inputs that differ; a constant on one side only counts as added or removed.
void diffWeights(const Graph& ga, const Node& a, const Graph& gb, const Node& b, std::vector<WeightChange>& out) {
    const size_t count = std::max(a.inputs().size(), b.inputs().size());
    for (size_t i = 0; i < count; ++i) {
        const ValueId va = i < a.inputs().size() ? a.input(i) : kNoId;
        const ValueId vb = i < b.inputs().size() ? b.input(i) : kNoId;
        const Tensor* ta = va == kNoId ? nullptr : ga.constantValue(va);
        const Tensor* tb = vb == kNoId ? nullptr : gb.constantValue(vb);
        if (!ta && !tb) continue;
        if (ta && tb && tensorHash(*ta) == tensorHash(*tb)) continue;
        out.push_back(weightChange(int(i), ga, ta ? va : kNoId, gb, tb ? vb : kNoId));
    }
}

} // namespace

std::string attributeText(const Attribute& attribute) {
    switch (attribute.kind()) {
    case AttributeKind::Float: {
        std::ostringstream out;
        out << attribute.get<float>();
        return out.str();
    }
    case AttributeKind::Int: return std::to_string(attribute.get<int64_t>());
    case AttributeKind::String: return "\"" + attribute.get<std::string>() + "\"";
    case AttributeKind::Floats: return listText(attribute.get<std::vector<float>>());
    case AttributeKind::Ints: return listText(attribute.get<std::vector<int64_t>>());
    case AttributeKind::Strings: return listText(attribute.get<std::vector<std::string>>());
    case AttributeKind::Tensor: {
        const Tensor& t = attribute.get<Tensor>();
        std::ostringstream out;
        out << "<tensor " << dtypeName(t.dtype()) << Shape::ofSizes(t.dims()).toString() << " #" << std::hex << tensorHash(t) << ">";
        return out.str();
    }
    default: return "<" + std::string(attributeKindName(attribute.kind())) + ">";
    }
}

std::vector<NodeChange> diffMatchedNodes(const Graph& a, const Graph& b, const NodeMatching& matching) {
    std::vector<NodeChange> changes;
    for (const NodeMatch& m : matching.matches) {
        const Node& na = a.node(m.a);
        const Node& nb = b.node(m.b);
        NodeChange change;
        change.a = m.a;
        change.b = m.b;
        if (opName(na) != opName(nb)) change.opChange = opName(na) + " -> " + opName(nb);
        diffAttributes(na, nb, change.attributes);
        diffWeights(a, na, b, nb, change.weights);
        if (!change.opChange.empty() || !change.attributes.empty() || !change.weights.empty()) changes.push_back(std::move(change));
    }
    return changes;
}

} // namespace graphlens
