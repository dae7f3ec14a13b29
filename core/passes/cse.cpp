// eliminate-common-subexpressions: two nodes with the same operator, attributes and inputs
// compute the same values, so one of them is enough. Value numbering in topological order, as
// MLIR's CSE.cpp does: each node is looked up among the nodes seen so far by its operator,
// attributes and (already renumbered) inputs, so chains of duplicates collapse in one sweep.
#include "core/passes/constant_folding.h"

#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <variant>

namespace graphlens {
namespace {

void mix(size_t& seed, size_t h) { seed ^= h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

size_t hashTensor(const Tensor& t) {
    size_t h = std::hash<int>()(int(t.dtype()));
    for (int64_t d : t.dims()) mix(h, std::hash<int64_t>()(d));
    if (t.dtype() == DType::String) {
        for (const std::string& s : t.strings()) mix(h, std::hash<std::string>()(s));
    } else if (t.byteSize()) {
        mix(h, std::hash<std::string_view>()(std::string_view(reinterpret_cast<const char*>(t.data()), t.byteSize())));
    }
    return h;
}

/// Attribute values equal, tensors compared by content (sub-graphs never reach here).
bool attributeEquals(const Attribute& a, const Attribute& b) {
    if (a.kind() != b.kind() || a.refAttrName != b.refAttrName) return false;
    return std::visit(
        [&b](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            const T& y = std::get<T>(b.storage());
            if constexpr (std::is_same_v<T, Tensor>) {
                return x.contentEquals(y);
            } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
                return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                                  [](const Tensor& s, const Tensor& t) { return s.contentEquals(t); });
            } else {
                return x == y;
            }
        },
        a.storage());
}

/// Same attribute names with equal values, in any order.
bool attributesEqual(const Attributes& a, const Attributes& b) {
    if (a.size() != b.size()) return false;
    return std::all_of(a.begin(), a.end(), [&](const Attributes::Entry& e) {
        const Attribute* other = b.find(e.first);
        return other && attributeEquals(e.second, *other);
    });
}

/// What a node computes, up to its outputs: operator, attributes and the values it reads.
size_t hashNode(const Node& n) {
    size_t h = std::hash<std::string>()(canonicalDomain(n.domain));
    mix(h, std::hash<std::string>()(n.opType));
    for (ValueId v : n.inputs()) mix(h, std::hash<ValueId>()(v));
    size_t attributes = 0;  // order-independent: a sum of per-attribute hashes
    for (const auto& [name, value] : n.attributes) {
        size_t a = std::hash<std::string>()(name);
        if (value.holds<Tensor>()) mix(a, hashTensor(value.get<Tensor>()));
        if (value.holds<int64_t>()) mix(a, std::hash<int64_t>()(value.get<int64_t>()));
        if (value.holds<std::vector<int64_t>>())
            for (int64_t x : value.get<std::vector<int64_t>>()) mix(a, std::hash<int64_t>()(x));
        attributes += a;
    }
    mix(h, attributes);
    return h;
}

/// Same operator, attributes and inputs, and the same output slots present.
bool sameComputation(const Node& a, const Node& b) {
    if (OpKey::of(a) != OpKey::of(b) || a.inputs() != b.inputs() || a.outputs().size() != b.outputs().size())
        return false;
    for (size_t i = 0; i < a.outputs().size(); ++i)
        if ((a.output(i) == kNoId) != (b.output(i) == kNoId)) return false;
    return attributesEqual(a.attributes, b.attributes);
}

bool writesGraphOutput(const Graph& g, const Node& n) {
    return std::any_of(n.outputs().begin(), n.outputs().end(), [&](ValueId v) { return v != kNoId && g.isGraphOutput(v); });
}

class EliminateCommonSubexpressions final : public Pass {
public:
    std::string id() const override { return "eliminate-common-subexpressions"; }
    std::string title() const override { return "Merge nodes that compute the same thing"; }
    std::string explanation() const override {
        return "Two nodes with the same operator, the same attributes (tensors compared by content) "
               "and the same inputs compute the same values: y1 = f(a, b) and y2 = f(a, b) give y1 = y2. "
               "The pass keeps the first and lets the readers of the second read the first's outputs. "
               "Nodes are numbered in topological order (value numbering, as in MLIR's CSE), so once two "
               "nodes are merged their consumers have equal inputs too and merge in the same sweep: "
               "duplicated chains collapse at once. Equal Constant nodes merge the same way. Nodes that "
               "draw random numbers (each is its own sample) and nodes with sub-graphs are never merged, "
               "and two nodes that both write graph outputs stay, since each output keeps its own name.";
    }
    void run(Rewriter& rw, PassContext&) override {
        std::unordered_multimap<size_t, NodeId> seen;
        const std::unordered_set<std::string> readBySubgraphs = namesReadBySubgraphs(rw.graph());
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Node& n = rw.graph().node(id);
            if (drawsRandomNumbers(n) || hasSubgraph(n) || n.outputs().empty()) continue;
            const size_t h = hashNode(n);
            auto [first, last] = seen.equal_range(h);
            auto match = std::find_if(first, last, [&](const auto& e) { return sameComputation(rw.graph().node(e.second), n); });
            if (match == last) {
                seen.emplace(h, id);
                continue;
            }
            if (const std::optional<NodeId> kept = merge(match->second, id, readBySubgraphs, rw)) match->second = *kept;
        }
    }

private:
    /// Merges `dup` into the equal earlier node `keep`; returns the node now computing both, or
    /// nullopt when both write graph outputs or a sub-graph reads the outputs that would go.
    static std::optional<NodeId> merge(NodeId keep, NodeId dup, const std::unordered_set<std::string>& readBySubgraphs,
                                       Rewriter& rw) {
        const Graph& g = rw.graph();
        if (writesGraphOutput(g, g.node(keep)) && writesGraphOutput(g, g.node(dup))) {
            rw.decline(dup, "kept: it computes what " + describe(g.node(keep)) +
                                " does, but both write graph outputs, which keep their own names");
            return std::nullopt;
        }
        // The survivor is the one writing a graph output (if any), so that output keeps its name.
        if (writesGraphOutput(g, g.node(dup))) std::swap(keep, dup);
        for (ValueId out : g.node(dup).outputs())
            if (out != kNoId && readBySubgraphs.count(g.value(out).name)) {
                rw.decline(dup, "kept: a sub-graph reads its output " + quoted(g, out) + " by name");
                return std::nullopt;
            }
        const std::string sentence = "merged " + describe(g.node(dup)) + " into " + describe(g.node(keep)) +
                                     ": same operator, attributes and inputs";
        const Node& survivor = g.node(keep);
        for (size_t i = 0; i < survivor.outputs().size(); ++i) {
            const ValueId from = g.node(dup).output(i), to = survivor.output(i);
            if (from != kNoId) rw.replaceAllUses(from, to);
        }
        // Re-made in place with the union of both provenances: it now computes both.
        const NodeId merged = rw.replaceNodes({dup, keep}, survivor.opType, survivor.inputs(), survivor.attributes,
                                              survivor.domain);
        rw.count("numMerged");
        rw.commit("eliminate-common-subexpression", sentence);
        return merged;
    }
};

} // namespace

std::unique_ptr<Pass> makeEliminateCommonSubexpressionsPass() {
    return std::make_unique<EliminateCommonSubexpressions>();
}

} // namespace graphlens
