// Sub-graph matching shared by the fusion passes.
#include "core/passes/subgraph_match.h"

#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace graphlens {

bool nearlyEqual(double value, double expected, double relTolerance) {
    return std::fabs(value - expected) <= relTolerance * std::fabs(expected);
}

bool isOp(const Node& node, std::string_view op) {
    return node.opType == op && isDefaultDomain(node.domain);
}

std::optional<ScalarOperand> scalarOperand(const Graph& graph, const Node& node) {
    if (node.inputs().size() != 2 || !isDefaultDomain(node.domain)) return std::nullopt;
    for (size_t side : {size_t(1), size_t(0)}) {
        auto c = scalarInput(graph, node, side);
        if (!c || !hasInput(node, 1 - side)) continue;
        return ScalarOperand{node.input(1 - side), double(*c), side == 0};
    }
    return std::nullopt;
}

std::optional<Scaled> scaledBy(const Graph& graph, const Node& node) {
    auto s = scalarOperand(graph, node);
    if (!s || (!isOp(node, "Mul") && !isOp(node, "Div"))) return std::nullopt;
    if (isOp(node, "Mul")) return Scaled{s->other, s->constant};
    if (s->constantFirst || s->constant == 0) return std::nullopt;  // c / x is no scaling of x
    return Scaled{s->other, 1.0 / s->constant};
}

const Node* onlyReader(const Graph& graph, ValueId value, const NodePredicate& wanted, std::string& why) {
    std::vector<NodeId> readers;
    for (const Use& u : graph.value(value).uses())
        if (std::find(readers.begin(), readers.end(), u.node) == readers.end()) readers.push_back(u.node);
    auto found = std::find_if(readers.begin(), readers.end(), [&](NodeId id) { return wanted(graph.node(id)); });
    if (found == readers.end()) return nullptr;
    if (readers.size() > 1) {
        why = quoted(graph, value) + " is read by " + std::to_string(readers.size()) + " nodes";
        return nullptr;
    }
    if (graph.isGraphOutput(value)) {
        why = quoted(graph, value) + " is a graph output";
        return nullptr;
    }
    return &graph.node(*found);
}

ValueId otherInput(const Node& node, ValueId value) {
    if (node.inputs().size() != 2) return kNoId;
    if (node.input(0) == value) return node.input(1);
    if (node.input(1) == value) return node.input(0);
    return kNoId;
}

namespace {

/// A Mul of exactly `a` and `b`, in either order.
NodePredicate mulOf(ValueId a, ValueId b) {
    return [=](const Node& n) {
        return isOp(n, "Mul") && n.inputs().size() == 2 &&
               ((n.input(0) == a && n.input(1) == b) || (n.input(0) == b && n.input(1) == a));
    };
}

std::string notScaledBy(const Node& node, double factor, double s) {
    return describe(node) + " scales by " + formatNumber(factor) + ", not by " + formatNumber(s);
}

} // namespace

std::optional<std::vector<NodeId>> matchScaledProduct(const Graph& g, ValueId factor, ValueId x, double s,
                                                      std::string& why) {
    // A Mul or Div of factor with x, a constant or x * s: the start of a product of x, factor and s.
    auto starts = [&](const Node& n) {
        const ValueId other = otherInput(n, factor);
        if (other == kNoId || (!isOp(n, "Mul") && !isOp(n, "Div"))) return false;
        if (other == x) return isOp(n, "Mul");
        if (s == 1) return false;
        if (auto sc = scaledBy(g, n); sc && sc->x == factor) return true;
        const Node* p = producerOf(g, other);
        auto ps = p ? scaledBy(g, *p) : std::nullopt;
        return isOp(n, "Mul") && ps && ps->x == x;
    };
    const Node* first = onlyReader(g, factor, starts, why);
    if (!first) return std::nullopt;
    const ValueId firstOut = first->output(0);
    // (factor * x) * s
    if (mulOf(factor, x)(*first)) {
        if (s == 1) return std::vector<NodeId>{first->id};
        const Node* second = onlyReader(g, firstOut, [&](const Node& n) {
            auto sc = scaledBy(g, n);
            return sc && sc->x == firstOut;
        }, why);
        if (!second) {
            if (why.empty()) why = "the product " + quoted(g, firstOut) + " is not scaled by " + formatNumber(s);
            return std::nullopt;
        }
        if (const double f = scaledBy(g, *second)->factor; !nearlyEqual(f, s)) {
            why = notScaledBy(*second, f, s);
            return std::nullopt;
        }
        return std::vector<NodeId>{first->id, second->id};
    }
    if (s == 1) return std::nullopt;
    // (factor * s) * x
    if (auto sc = scaledBy(g, *first); sc && sc->x == factor) {
        if (!nearlyEqual(sc->factor, s)) {
            why = notScaledBy(*first, sc->factor, s);
            return std::nullopt;
        }
        const Node* second = onlyReader(g, firstOut, mulOf(firstOut, x), why);
        if (!second) return std::nullopt;
        return std::vector<NodeId>{first->id, second->id};
    }
    // factor * (x * s)
    const ValueId h = otherInput(*first, factor);
    const Node* half = isOp(*first, "Mul") && h != kNoId ? producerOf(g, h) : nullptr;
    auto hs = half ? scaledBy(g, *half) : std::nullopt;
    if (!hs || hs->x != x) return std::nullopt;
    if (!nearlyEqual(hs->factor, s)) {
        why = notScaledBy(*half, hs->factor, s);
        return std::nullopt;
    }
    if (!onlyReadBy(g, h, {first->id})) {
        why = quoted(g, h) + " is read elsewhere too";
        return std::nullopt;
    }
    return std::vector<NodeId>{half->id, first->id};
}

bool onlyReadBy(const Graph& graph, ValueId value, const std::vector<NodeId>& nodes) {
    if (graph.isGraphOutput(value)) return false;
    for (const Use& u : graph.value(value).uses())
        if (std::find(nodes.begin(), nodes.end(), u.node) == nodes.end()) return false;
    return true;
}

ValueId escapingValue(const Graph& graph, const std::vector<NodeId>& nodes) {
    for (size_t i = 0; i + 1 < nodes.size(); ++i)
        for (ValueId out : graph.node(nodes[i]).outputs())
            if (out != kNoId && !onlyReadBy(graph, out, nodes)) return out;
    return kNoId;
}

std::vector<NodeId> withConstantFeeders(const Graph& graph, std::vector<NodeId> nodes) {
    std::vector<NodeId> feeders;
    for (NodeId id : nodes)
        for (ValueId in : graph.node(id).inputs()) {
            const Node* p = producerOf(graph, in);
            if (!p || !isOp(*p, "Constant") || p->outputs().size() != 1) continue;
            if (std::find(feeders.begin(), feeders.end(), p->id) != feeders.end()) continue;
            if (onlyReadBy(graph, in, nodes)) feeders.push_back(p->id);
        }
    feeders.insert(feeders.end(), nodes.begin(), nodes.end());
    return feeders;
}

std::string formatNumber(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

} // namespace graphlens
