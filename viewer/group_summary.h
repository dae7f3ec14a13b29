// What the inspector shows for a name-scope group (a collapsed box has no node of its own): how
// many nodes it holds, which op types, the parameters those nodes read and their FLOPs.
#pragma once

#include "core/graph/graph.h"
#include "viewer/scope_tree.h"

#include <string>
#include <utility>
#include <vector>

namespace graphlens {

struct GroupSummary {
    std::string name;  ///< the group's own part of the path ("layer1.0")
    std::string path;  ///< the whole scope ("/layer1/layer1.0")
    size_t nodes = 0;  ///< nodes drawn as boxes in the group and its sub-groups
    size_t subgroups = 0;  ///< groups directly inside it
    /// Op type ("domain:Op" outside the default domain) -> nodes of it, most frequent first
    /// (ties by name).
    std::vector<std::pair<std::string, int>> ops;
    size_t parameterTensors = 0;  ///< distinct constants and initializers the nodes read
    int64_t parameters = 0;       ///< their elements
    int64_t parameterBytes = 0;
    int64_t flops = 0;            ///< estimateNodeFlops() summed over the nodes that have one
};

/// The summary of group `group` of `scopes`, a ScopeTree of `graph`.
GroupSummary summarizeGroup(const Graph& graph, const ScopeTree& scopes, GroupId group);

} // namespace graphlens
