// ProvenanceIndex and nodeOrigin. Node ids are never reused along a line of snapshots (a copy
// keeps the id space, new nodes append), so a rewrite's added ids identify nodes of later steps.
#include "viewer/node_origin.h"
#include "viewer/visual_graph.h"

#include "core/passes/tensor_math.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace graphlens {

ProvenanceIndex::ProvenanceIndex(const Graph& graph) {
    for (NodeId id : drawingOrder(graph)) {
        order_[id] = order_.size();
        for (NodeId origin : graph.node(id).provenance) byOrigin_[origin].push_back(id);
    }
}

std::vector<NodeId> ProvenanceIndex::nodesFrom(std::span<const NodeId> provenance) const {
    std::vector<NodeId> nodes;
    for (NodeId origin : provenance)
        if (const auto it = byOrigin_.find(origin); it != byOrigin_.end())
            nodes.insert(nodes.end(), it->second.begin(), it->second.end());
    std::sort(nodes.begin(), nodes.end(), [this](NodeId a, NodeId b) { return order_.at(a) < order_.at(b); });
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
}

namespace {

/// The rewrites whose added nodes lead to `node`, newest first: a rewrite that added it, then
/// the rewrites that added the nodes that one removed, and so on.
std::vector<std::string> rewritesLeadingTo(std::span<const PassResult* const> applied, NodeId node) {
    std::set<NodeId> wanted{node};
    std::vector<std::string> sentences;
    for (auto result = applied.rbegin(); result != applied.rend(); ++result)
        for (auto w = (*result)->rewrites.rbegin(); w != (*result)->rewrites.rend(); ++w) {
            const bool made = std::any_of(w->added.begin(), w->added.end(), [&](const NodeRef& n) { return wanted.count(n.id); });
            if (!made) continue;
            sentences.push_back(w->sentence);
            for (const NodeRef& n : w->removed) wanted.insert(n.id);
        }
    return sentences;
}

std::optional<BatchNormFold> foldOf(const Graph& original, const Node& bn, size_t channels) {
    if (bn.inputs().size() < 5) return std::nullopt;
    std::vector<math::FloatTensor> constants;  // gamma, beta, mean, var
    for (size_t i = 1; i < 5; ++i) {
        const Tensor* t = bn.input(i) == kNoId ? nullptr : original.constantValue(bn.input(i));
        auto f = t ? math::FloatTensor::from(*t) : std::nullopt;
        if (!f || f->size() != (constants.empty() ? f->size() : constants.front().size())) return std::nullopt;
        constants.push_back(std::move(*f));
    }
    BatchNormFold fold{{bn.id, bn.name, bn.opType}, bn.attributes.getFloat("epsilon", 1e-5f), constants[0].size(), {}};
    for (size_t c = 0; c < std::min(channels, fold.channels); ++c) {
        ChannelFold ch{constants[0][c], constants[1][c], constants[2][c], constants[3][c], 0, 0};
        ch.k = ch.gamma / std::sqrt(ch.var + fold.epsilon);  // as fold-batchnorm computes it, in float
        ch.b = ch.beta - ch.mean * ch.k;
        fold.first.push_back(ch);
    }
    return fold;
}

} // namespace

NodeOrigin nodeOrigin(const Graph& original, std::span<const PassResult* const> applied, const Node& node,
                      size_t channels) {
    NodeOrigin origin;
    origin.rewrites = rewritesLeadingTo(applied, node.id);
    std::reverse(origin.rewrites.begin(), origin.rewrites.end());
    const bool itself = node.provenance.size() == 1 && node.provenance.front() == node.id;
    if (itself && origin.rewrites.empty()) return origin;
    for (NodeId id : node.provenance) {
        if (!original.hasNode(id)) continue;
        const Node& source = original.node(id);
        origin.sources.push_back({id, source.name, source.opType});
        if (source.opType == "BatchNormalization")
            if (auto fold = foldOf(original, source, channels)) origin.batchNorms.push_back(std::move(*fold));
    }
    return origin;
}

} // namespace graphlens
