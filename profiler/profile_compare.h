// Before vs after: the profiles of a graph and of its optimized form folded onto the original
// graph's nodes through provenance, the speedup of each group of original nodes, and the
// summary (whole-run speedup, arena change).
//
// The fold rule: a profiled node's median time is split among the original nodes of its
// provenance in proportion to their FLOPs in the original graph, in equal parts when none of
// them has a positive count. So the folded times of one side sum to that side's sum of node
// medians, and a FusedConv made of a Conv and a Relu puts nearly all its time on the Conv.
// Since a fused kernel's time cannot honestly be told apart, speedup is a figure of a *group*:
// the original nodes linked through the provenance of any node on either side (that Conv and
// Relu are one group), its before time over its after time.
#pragma once

#include "profiler/profile_session.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens {

struct CostGroup {
    std::vector<NodeId> origins;      ///< original node ids, in the order of OriginCost rows
    std::vector<NodeId> beforeNodes;  ///< profiled nodes of the before graph, execution order
    std::vector<NodeId> afterNodes;   ///< profiled nodes of the after graph, execution order
    std::vector<std::string> afterLabels;  ///< "name (op)" of each of afterNodes
    double beforeMs = 0;              ///< sum of the medians of beforeNodes
    double afterMs = 0;               ///< sum of the medians of afterNodes
    /// beforeMs / afterMs: +infinity when the group no longer costs anything (folded away,
    /// removed), 0 when it is new; 1 when it cost nothing on either side.
    double speedup() const;
};

/// One original node and its share of each side's time.
struct OriginCost {
    NodeId origin = kNoId;
    std::string name;  ///< from the original graph (or the side that has the node, for a new one)
    std::string op;
    double beforeMs = 0;
    double afterMs = 0;
    size_t group = 0;  ///< index into ProfileComparison::groups
};

struct ProfileComparison {
    /// Original nodes with time on either side: groups in the before side's execution order
    /// (groups only the after side has come last), within a group in execution order.
    std::vector<OriginCost> origins;
    std::vector<CostGroup> groups;
    std::unordered_map<NodeId, size_t> groupOfBefore;  ///< profiled before node -> group
    std::unordered_map<NodeId, size_t> groupOfAfter;   ///< profiled after node -> group
    double beforeRunMs = 0, afterRunMs = 0;            ///< whole-run medians
    double beforeNodeSumMs = 0, afterNodeSumMs = 0;    ///< sums of node medians
    uint64_t beforeArenaBytes = 0, afterArenaBytes = 0;

    /// Whole-run speedup: median before over median after (0 without an after time).
    double speedup() const { return afterRunMs > 0 ? beforeRunMs / afterRunMs : 0; }
};

/// Median time per original node of `nodes` (profiled nodes of `graph`, whose provenance names
/// nodes of `original`), split by the fold rule above. `original` needs shapes for FLOPs.
std::unordered_map<NodeId, double> foldOntoOrigins(const Graph& original, const Graph& graph,
                                                   const std::vector<NodeProfile>& nodes);

/// Compares the profile of `before` with that of `after`; both descend from `original` (which
/// may be `before` itself) and carry provenance into it.
ProfileComparison compareProfiles(const Graph& original, const Graph& before, const ProfileResult& beforeProfile,
                                  const Graph& after, const ProfileResult& afterProfile);

/// "1.23x", "removed" for an infinite speedup, "new" for 0.
std::string speedupText(double speedup);

} // namespace graphlens
