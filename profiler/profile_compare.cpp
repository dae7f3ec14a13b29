// Profiles compared through provenance: groups of original nodes joined by a union-find over
// every node's provenance on both sides, then each side's time folded onto them.
#include "profiler/profile_compare.h"

#include "profiler/flops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>

namespace graphlens {
namespace {

/// A node's original nodes: its provenance, or itself when it has none.
std::vector<NodeId> originsOf(const Node& node) {
    return node.provenance.empty() ? std::vector<NodeId>{node.id} : node.provenance;
}

/// Original node ids joined into groups (union-find; an id not yet seen is its own root).
class OriginSets {
public:
    NodeId find(NodeId id) {
        NodeId root = id;
        for (auto it = parent_.find(root); it != parent_.end() && it->second != root; it = parent_.find(root))
            root = it->second;
        for (NodeId x = id; x != root;) {  // path compression
            const NodeId next = parent_[x];
            parent_[x] = root;
            x = next;
        }
        return root;
    }
    void join(const std::vector<NodeId>& ids) {
        for (size_t i = 1; i < ids.size(); ++i) {
            const NodeId a = find(ids[0]), b = find(ids[i]);
            if (a != b) parent_[std::max(a, b)] = std::min(a, b);
        }
    }

private:
    std::unordered_map<NodeId, NodeId> parent_;
};

/// Name and op of an original id: from `original`, else from a side that holds such a node.
std::pair<std::string, std::string> describeOrigin(NodeId id, const Graph& original, const Graph& before,
                                                   const Graph& after) {
    for (const Graph* g : {&original, &before, &after})
        if (g->hasNode(id)) return {displayName(g->node(id)), opLabel(g->node(id))};
    return {"node " + std::to_string(id), ""};
}

/// Builds groups from the folded times of both sides, in first-seen order of `ordered`.
struct GroupBuilder {
    OriginSets sets;
    std::map<NodeId, size_t> groupOfRoot;
    std::map<NodeId, size_t> rowOfOrigin;
    ProfileComparison& out;

    size_t groupOf(NodeId origin) {
        const auto [it, added] = groupOfRoot.try_emplace(sets.find(origin), out.groups.size());
        if (added) out.groups.emplace_back();
        return it->second;
    }
    OriginCost& rowOf(NodeId origin) {
        const auto [it, added] = rowOfOrigin.try_emplace(origin, 0);
        if (added) {
            it->second = out.origins.size();
            out.origins.push_back({origin, {}, {}, 0, 0, groupOf(origin)});
        }
        return out.origins[it->second];
    }
};

} // namespace

double CostGroup::speedup() const {
    if (afterMs > 0) return beforeMs / afterMs;
    return beforeMs > 0 ? std::numeric_limits<double>::infinity() : 1;
}

std::unordered_map<NodeId, double> foldOntoOrigins(const Graph& original, const Graph& graph,
                                                   const std::vector<NodeProfile>& nodes) {
    std::unordered_map<NodeId, double> folded;
    for (const NodeProfile& p : nodes) {
        const std::vector<NodeId> origins = originsOf(graph.node(p.node));
        std::vector<double> weights;
        for (NodeId o : origins) {
            const auto flops = original.hasNode(o) ? nodeFlops(original, original.node(o)) : std::nullopt;
            weights.push_back(flops && *flops > 0 ? double(*flops) : 0);
        }
        double total = std::accumulate(weights.begin(), weights.end(), 0.0);
        if (total <= 0) {
            std::fill(weights.begin(), weights.end(), 1.0);
            total = double(weights.size());
        }
        for (size_t i = 0; i < origins.size(); ++i) folded[origins[i]] += p.ms.median * weights[i] / total;
    }
    return folded;
}

ProfileComparison compareProfiles(const Graph& original, const Graph& before, const ProfileResult& beforeProfile,
                                  const Graph& after, const ProfileResult& afterProfile) {
    ProfileComparison out;
    GroupBuilder groups{{}, {}, {}, out};
    for (const Graph* g : {&before, &after})
        for (NodeId id : g->nodeIds()) groups.sets.join(originsOf(g->node(id)));

    const auto beforeFolded = foldOntoOrigins(original, before, beforeProfile.nodes);
    const auto afterFolded = foldOntoOrigins(original, after, afterProfile.nodes);
    struct Side {
        const Graph& graph;
        const ProfileResult& profile;
        const std::unordered_map<NodeId, double>& folded;
        std::unordered_map<NodeId, size_t>& groupOf;
        bool isBefore;
    };
    for (const Side& side : {Side{before, beforeProfile, beforeFolded, out.groupOfBefore, true},
                             Side{after, afterProfile, afterFolded, out.groupOfAfter, false}}) {
        for (const NodeProfile& p : side.profile.nodes) {
            const std::vector<NodeId> origins = originsOf(side.graph.node(p.node));
            const size_t g = groups.groupOf(origins.front());
            CostGroup& group = out.groups[g];
            (side.isBefore ? group.beforeNodes : group.afterNodes).push_back(p.node);
            (side.isBefore ? group.beforeMs : group.afterMs) += p.ms.median;
            if (!side.isBefore) group.afterLabels.push_back(p.name + " (" + p.op + ")");
            side.groupOf[p.node] = g;
            for (NodeId o : origins) {
                OriginCost& row = groups.rowOf(o);
                (side.isBefore ? row.beforeMs : row.afterMs) = side.folded.at(o);
            }
        }
    }
    // Rows grouped: stable by group, so within a group they keep their execution order.
    std::stable_sort(out.origins.begin(), out.origins.end(), [](const OriginCost& a, const OriginCost& b) { return a.group < b.group; });
    for (OriginCost& row : out.origins) {
        std::tie(row.name, row.op) = describeOrigin(row.origin, original, before, after);
        out.groups[row.group].origins.push_back(row.origin);
    }
    out.beforeRunMs = beforeProfile.runMs.median;
    out.afterRunMs = afterProfile.runMs.median;
    out.beforeNodeSumMs = beforeProfile.nodeMedianSumMs;
    out.afterNodeSumMs = afterProfile.nodeMedianSumMs;
    out.beforeArenaBytes = beforeProfile.memory.arenaBytes;
    out.afterArenaBytes = afterProfile.memory.arenaBytes;
    return out;
}

std::string speedupText(double speedup) {
    if (std::isinf(speedup)) return "removed";
    if (speedup <= 0) return "new";
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", speedup);
    return text;
}

} // namespace graphlens
