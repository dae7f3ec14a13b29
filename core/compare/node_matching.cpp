// Node matching: provenance first, then names, then structure propagated from the graph inputs.
#include "core/compare/node_matching.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

namespace graphlens {
namespace {

bool isConstantNode(const Node& n) { return n.opType == "Constant" && n.domain.empty(); }

/// Where a node input comes from, in A's terms: a graph input, an output of a (paired) node, or
/// a constant with its hash. Unknown: the B producer has no partner (yet).
struct Source {
    enum Kind { Unknown, Input, Output, Constant } kind = Unknown;
    int64_t id = kNoId;  ///< A's input value or producing node
    int output = 0;
    uint64_t hash = 0;
    std::vector<int64_t> dims;

    static Source input(ValueId v) { return make(Input, v, 0); }
    static Source producedBy(NodeId node, int index) { return make(Output, node, index); }

private:
    static Source make(Kind kind, int64_t id, int index) {
        Source s;
        s.kind = kind;
        s.id = id;
        s.output = index;
        return s;
    }
};

class Matcher {
public:
    Matcher(const Graph& a, const Graph& b) : a_(a), b_(b) {
        orderA_ = nodesInOrder(a, positionA_);
        orderB_ = nodesInOrder(b, positionB_);
        pairInputs();
    }

    NodeMatching run(const ProvenanceMap& provenance) {
        byProvenance(provenance);
        byName();
        byStructure();
        // Then through nodes one side has and the other left out (a Mul by one, a Reshape to the
        // same shape): an unpaired node with one computed input of its output's size.
        lookThroughUnpaired_ = true;
        byStructure();
        NodeMatching result;
        for (NodeId b : orderB_) {
            auto it = matchOfB_.find(b);
            if (it == matchOfB_.end()) result.onlyB.push_back(b);
            else result.matches.push_back(std::move(it->second));
        }
        std::set<NodeId> inGroups;
        for (const NodeMatch& m : result.matches) inGroups.insert(m.groupA.begin(), m.groupA.end());
        for (NodeId a : orderA_)
            if (!pairedA_.count(a)) {
                result.onlyA.push_back(a);
                if (inGroups.count(a)) result.foldedA.push_back(a);
            }
        return result;
    }

private:
    static std::vector<NodeId> nodesInOrder(const Graph& g, std::unordered_map<NodeId, size_t>& position) {
        std::vector<NodeId> order;
        for (NodeId id : g.topologicalOrder())
            if (!isConstantNode(g.node(id))) {
                position[id] = order.size();
                order.push_back(id);
            }
        return order;
    }

    /// Graph inputs pair by name, the rest by position.
    void pairInputs() {
        const auto& inA = a_.inputs();
        const auto& inB = b_.inputs();
        std::vector<bool> taken(inA.size(), false);
        for (ValueId vb : inB)
            for (size_t i = 0; i < inA.size(); ++i)
                if (!taken[i] && a_.value(inA[i]).name == b_.value(vb).name) {
                    inputOfB_[vb] = inA[i];
                    taken[i] = true;
                }
        for (size_t i = 0; i < inB.size() && i < inA.size(); ++i)
            if (!inputOfB_.count(inB[i]) && !taken[i]) {
                inputOfB_[inB[i]] = inA[i];
                taken[i] = true;
            }
    }

    void pair(NodeId a, NodeId b, MatchMethod method, std::vector<NodeId> group, NodeId boundary) {
        NodeMatch m;
        m.a = a;
        m.b = b;
        m.method = method;
        if (group.empty()) {
            group = {a};
            // A fused node often keeps the output name of the group's last node (fold-batchnorm
            // writes the BatchNormalization's output): that node is the boundary.
            boundary = a;
            const Node& nb = b_.node(b);
            if (!nb.outputs().empty() && nb.output(0) != kNoId)
                if (auto v = a_.findValue(b_.value(nb.output(0)).name)) {
                    const NodeId producer = a_.value(*v).producer();
                    if (producer != kNoId && producer != a && positionA_.count(producer) && positionA_[producer] > positionA_[a]) {
                        boundary = producer;
                        group.push_back(producer);
                    }
                }
        }
        m.groupA = std::move(group);
        m.boundaryA = boundary;
        const Node& nb = b_.node(b);
        const Node& na = a_.node(boundary);
        for (size_t i = 0; i < nb.outputs().size() && i < na.outputs().size(); ++i) {
            const ValueId vb = nb.output(i), va = na.output(i);
            if (vb == kNoId || va == kNoId || b_.value(vb).name.empty() || a_.value(va).name.empty()) continue;
            m.values.emplace_back(va, vb);
        }
        matchOfB_[b] = std::move(m);
        pairedA_[a] = b;
    }

    void byProvenance(const ProvenanceMap& provenance) {
        std::unordered_map<NodeId, std::vector<NodeId>> groups;   // B node -> A nodes, in A's order
        std::unordered_map<NodeId, std::vector<NodeId>> holders;  // A node -> B nodes whose group has it
        for (NodeId b : orderB_) {
            auto it = provenance.find(b);
            if (it == provenance.end()) continue;
            std::vector<NodeId> group;
            for (NodeId a : it->second)
                if (positionA_.count(a)) group.push_back(a);
            if (group.empty()) continue;
            std::sort(group.begin(), group.end(), [&](NodeId x, NodeId y) { return positionA_[x] < positionA_[y]; });
            for (NodeId a : group) holders[a].push_back(b);
            groups[b] = std::move(group);
        }
        for (NodeId b : orderB_) {
            auto it = groups.find(b);
            if (it == groups.end()) continue;
            const std::vector<NodeId>& group = it->second;
            const NodeId boundary = boundaryOf(b, group);
            // A node a rewrite added beside the one it rewrote (the DequantizeLinear of a weight
            // quantize-int8-weights put before a Conv, the Reshape to rows before a Gemm that
            // took in a MatMul and its Add) shares provenance but computes something else: its
            // output's size differs, or a later node stands for more of the same nodes. New: only in B.
            if (!sameFirstSize(boundary, b) || partOfLaterRewrite(b, group, groups, holders)) {
                newInB_.insert(b);
                continue;
            }
            pair(sameOperation(b, group), b, MatchMethod::Provenance, group, boundary);
        }
    }

    /// True when a node after `b` in B's order stands for every node of `group` and more.
    bool partOfLaterRewrite(NodeId b, const std::vector<NodeId>& group, const std::unordered_map<NodeId, std::vector<NodeId>>& groups,
                            const std::unordered_map<NodeId, std::vector<NodeId>>& holders) {
        for (NodeId c : holders.at(group.front())) {
            if (positionB_[c] <= positionB_[b]) continue;
            const std::vector<NodeId>& bigger = groups.at(c);
            if (bigger.size() > group.size() &&
                std::all_of(group.begin(), group.end(), [&](NodeId a) { return std::find(bigger.begin(), bigger.end(), a) != bigger.end(); }))
                return true;
        }
        return false;
    }

    /// False when both first outputs have static shapes with different element counts (a Gemm
    /// on flattened rows still computes a MatMul+Add's [B, S, N] as [B*S, N]: comparable).
    bool sameFirstSize(NodeId a, NodeId b) const {
        const Node& na = a_.node(a);
        const Node& nb = b_.node(b);
        if (na.outputs().empty() || nb.outputs().empty() || na.output(0) == kNoId || nb.output(0) == kNoId) return true;
        const auto sa = a_.value(na.output(0)).shape.numel(), sb = b_.value(nb.output(0)).shape.numel();
        return !sa || !sb || *sa == *sb;
    }

    /// The group member producing the value `b`'s first output is named after, else the last.
    NodeId boundaryOf(NodeId b, const std::vector<NodeId>& group) const {
        const Node& nb = b_.node(b);
        if (!nb.outputs().empty() && nb.output(0) != kNoId)
            if (auto v = a_.findValue(b_.value(nb.output(0)).name))
                if (std::find(group.begin(), group.end(), a_.value(*v).producer()) != group.end()) return a_.value(*v).producer();
        return group.back();
    }

    /// The group member that is `b`'s own operation: the one whose name it carries (rewrites
    /// keep a name), else one of its op type, else the op its fused form is named after
    /// (FusedConv: a Conv), else the boundary; members another node took come last.
    NodeId sameOperation(NodeId b, const std::vector<NodeId>& group) const {
        const Node& nb = b_.node(b);
        const auto first = [&](const auto& fits) {
            NodeId found = kNoId;
            for (NodeId a : group)
                if (fits(a_.node(a)) && (found == kNoId || (pairedA_.count(found) && !pairedA_.count(a)))) found = a;
            return found;
        };
        for (NodeId a : {first([&](const Node& n) { return !nb.name.empty() && n.name == nb.name; }),
                         first([&](const Node& n) { return n.opType == nb.opType && n.domain == nb.domain; }),
                         first([&](const Node& n) {
                             return nb.opType.size() > n.opType.size() &&
                                    nb.opType.compare(nb.opType.size() - n.opType.size(), n.opType.size(), n.opType) == 0;
                         })})
            if (a != kNoId) return a;
        return boundaryOf(b, group);
    }

    void byName() {
        std::unordered_map<std::string, NodeId> byNodeName, byOutputName;
        std::unordered_map<std::string, int> nameCount;
        for (NodeId a : orderA_) ++nameCount[a_.node(a).name];
        for (NodeId a : orderA_) {
            const Node& n = a_.node(a);
            if (!n.name.empty() && nameCount[n.name] == 1) byNodeName[n.name] = a;
            if (!n.outputs().empty() && n.output(0) != kNoId) byOutputName[a_.value(n.output(0)).name] = a;
        }
        for (NodeId b : orderB_) {
            if (matchOfB_.count(b) || newInB_.count(b)) continue;
            const Node& nb = b_.node(b);
            NodeId a = kNoId;
            if (auto it = byNodeName.find(nb.name); !nb.name.empty() && it != byNodeName.end()) a = it->second;
            if (a == kNoId && nb.name.empty() && !nb.outputs().empty() && nb.output(0) != kNoId)
                if (auto it = byOutputName.find(b_.value(nb.output(0)).name); it != byOutputName.end() &&
                                                                              a_.node(it->second).opType == nb.opType)
                    a = it->second;
            if (a != kNoId && !pairedA_.count(a)) pair(a, b, MatchMethod::Name, {}, kNoId);
        }
    }

    /// Through Identity and Dropout, which one exporter writes and another leaves out.
    static ValueId throughPassThrough(const Graph& g, ValueId v) {
        for (int hops = 0; hops < 64; ++hops) {
            const NodeId producer = g.value(v).producer();
            if (producer == kNoId) break;
            const Node& n = g.node(producer);
            if (!n.domain.empty() || (n.opType != "Identity" && n.opType != "Dropout") || n.inputs().empty() ||
                n.input(0) == kNoId || g.value(v).producerOutput() != 0)
                break;
            v = n.input(0);
        }
        return v;
    }

    /// Through a node that has no partner, one computed input, and an output of that input's
    /// size: what one side may have and the other not.
    template <typename Paired>
    static ValueId throughUnpaired(const Graph& g, ValueId v, const Paired& paired) {
        for (int hops = 0; hops < 64; ++hops) {
            const NodeId producer = g.value(v).producer();
            if (producer == kNoId || paired(producer)) break;
            const Node& n = g.node(producer);
            ValueId data = kNoId;
            int computed = 0;
            for (ValueId in : n.inputs())
                if (in != kNoId && !g.constantValue(in)) {
                    data = in;
                    ++computed;
                }
            if (computed != 1 || n.outputs().size() != 1) break;
            const auto before = g.value(data).shape.numel(), after = g.value(v).shape.numel();
            if (!before || !after || *before != *after) break;
            v = data;
        }
        return v;
    }

    Source sourceInA(ValueId v) {
        v = throughPassThrough(a_, v);
        if (lookThroughUnpaired_) v = throughUnpaired(a_, v, [this](NodeId n) { return pairedA_.count(n) > 0; });
        const Value& value = a_.value(v);
        if (const Tensor* t = a_.constantValue(v)) return constantSource(*t);
        if (a_.isGraphInput(v)) return Source::input(v);
        if (value.producer() != kNoId) return Source::producedBy(value.producer(), value.producerOutput());
        return {};
    }

    /// A B value's source translated into A's terms through the pairs made so far.
    Source sourceInB(ValueId v) {
        v = throughPassThrough(b_, v);
        if (lookThroughUnpaired_) v = throughUnpaired(b_, v, [this](NodeId n) { return matchOfB_.count(n) > 0; });
        const Value& value = b_.value(v);
        if (const Tensor* t = b_.constantValue(v)) return constantSource(*t);
        if (auto it = inputOfB_.find(v); it != inputOfB_.end()) return Source::input(it->second);
        if (auto it = matchOfB_.find(value.producer()); it != matchOfB_.end()) {
            // Compared at the boundary: the B value stands for the boundary's output.
            return Source::producedBy(it->second.boundaryA, value.producerOutput());
        }
        return {};
    }

    Source constantSource(const Tensor& t) {
        Source s;
        s.kind = Source::Constant;
        s.hash = tensorHash(t);
        s.dims = t.dims();
        return s;
    }

    /// How well A node `a` fits as `b`'s partner: -1 when the topology contradicts it.
    int score(NodeId a, NodeId b) {
        const Node& na = a_.node(a);
        const Node& nb = b_.node(b);
        int total = 0;
        for (size_t i = 0; i < na.inputs().size() && i < nb.inputs().size(); ++i) {
            if ((na.input(i) == kNoId) != (nb.input(i) == kNoId)) return -1;
            if (na.input(i) == kNoId) continue;
            const Source sa = sourceInA(na.input(i)), sb = sourceInB(nb.input(i));
            if (sb.kind == Source::Unknown || sa.kind == Source::Unknown) continue;
            if ((sa.kind == Source::Constant) != (sb.kind == Source::Constant)) return -1;
            if (sa.kind == Source::Constant) total += sa.hash == sb.hash ? 2 : sa.dims == sb.dims ? 1 : 0;
            else if (sa.kind == sb.kind && sa.id == sb.id && sa.output == sb.output) total += 4;
            else return -1;
        }
        for (size_t i = 0; i < na.outputs().size() && i < nb.outputs().size(); ++i) {
            if (na.output(i) == kNoId || nb.output(i) == kNoId) continue;
            const auto sa = a_.value(na.output(i)).shape.sizes(), sb = b_.value(nb.output(i)).shape.sizes();
            if (sa && sb && *sa != *sb) total -= 3;
        }
        return total;
    }

    void byStructure() {
        std::unordered_map<std::string, std::vector<NodeId>> byOp;
        for (NodeId a : orderA_) byOp[a_.node(a).domain + ":" + a_.node(a).opType].push_back(a);
        for (NodeId b : orderB_) {
            if (matchOfB_.count(b) || newInB_.count(b)) continue;
            const Node& nb = b_.node(b);
            const auto& candidates = byOp[nb.domain + ":" + nb.opType];
            NodeId best = kNoId;
            int bestScore = -1, free = 0;
            double bestDistance = 0;
            const double where = double(positionB_[b]) / double(std::max<size_t>(1, orderB_.size()));
            for (NodeId a : candidates) {
                if (pairedA_.count(a)) continue;
                ++free;
                const int s = score(a, b);
                const double distance = std::abs(double(positionA_[a]) / double(std::max<size_t>(1, orderA_.size())) - where);
                if (s > bestScore || (s == bestScore && distance < bestDistance)) {
                    best = a;
                    bestScore = s;
                    bestDistance = distance;
                }
            }
            // Nothing ties it down (no paired input, no weight): only the last one of its kind pairs.
            if (best != kNoId && (bestScore > 0 || (bestScore == 0 && free == 1))) pair(best, b, MatchMethod::Structure, {}, kNoId);
        }
    }

    const Graph& a_;
    const Graph& b_;
    std::vector<NodeId> orderA_, orderB_;
    std::unordered_map<NodeId, size_t> positionA_, positionB_;
    std::unordered_map<ValueId, ValueId> inputOfB_;  ///< B graph input -> A graph input
    std::unordered_map<NodeId, NodeMatch> matchOfB_;
    std::unordered_map<NodeId, NodeId> pairedA_;     ///< A node -> B node
    std::set<NodeId> newInB_;  ///< B nodes provenance places beside (not instead of) A nodes
    bool lookThroughUnpaired_ = false;
};

} // namespace

const char* matchMethodName(MatchMethod method) {
    switch (method) {
    case MatchMethod::Provenance: return "provenance";
    case MatchMethod::Name: return "name";
    case MatchMethod::Structure: return "structure";
    }
    return "";
}

NodeMatching matchNodes(const Graph& a, const Graph& b, const ProvenanceMap& provenance) {
    return Matcher(a, b).run(provenance);
}

uint64_t tensorHash(const Tensor& tensor) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    const auto mix = [&h](const void* data, size_t size) {
        const auto* bytes = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < size; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
    };
    const int type = int(tensor.dtype());
    mix(&type, sizeof type);
    for (int64_t d : tensor.dims()) mix(&d, sizeof d);
    if (tensor.dtype() == DType::String) {
        for (const std::string& s : tensor.strings()) mix(s.data(), s.size() + 1);
    } else if (tensor.data()) {
        mix(tensor.data(), tensor.byteSize());
    }
    return h;
}

std::string nodeDisplayName(const Graph& graph, NodeId node) {
    const Node& n = graph.node(node);
    if (!n.name.empty()) return n.name;
    if (!n.outputs().empty() && n.output(0) != kNoId && !graph.value(n.output(0)).name.empty()) return graph.value(n.output(0)).name;
    return n.opType;
}

} // namespace graphlens
