// Name-scope groups: exporters name nodes after the module that made them
// ("/layer1/layer1.0/conv1/Conv"), so the '/'-separated prefixes form a tree of groups that the
// canvas can draw as boxes around their nodes or collapse into one box.
#pragma once

#include "core/graph/graph.h"

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace graphlens {

using GroupId = int32_t;

/// One name scope with at least two nodes in it.
struct ScopeGroup {
    GroupId id = kNoId;
    GroupId parent = kNoId;  ///< kNoId for a top-level group
    /// The scope's own part of the path: "layer1.0"; a chain of scopes that only hold each other
    /// is one group, named "encoder/layers".
    std::string name;
    std::string path;  ///< the whole scope, "/layer1/layer1.0"
    int depth = 1;     ///< 1 for a top-level group
    std::vector<GroupId> children;
    std::vector<NodeId> nodes;  ///< nodes directly in this group, in graph order
    size_t totalNodes = 0;      ///< nodes in this group and all groups inside it
};

/// Groups drawn as a single box.
using CollapsedGroups = std::set<GroupId>;

class ScopeTree {
public:
    ScopeTree() = default;
    /// Groups the nodes of `graph` that the canvas draws as boxes (those isDrawnAsParameter()
    /// leaves out are not) by the scopes of their names. A scope with fewer than two nodes is
    /// no group: its node stays in the enclosing one.
    explicit ScopeTree(const Graph& graph);

    const std::vector<ScopeGroup>& groups() const { return groups_; }
    const ScopeGroup& group(GroupId id) const { return groups_.at(size_t(id)); }
    bool empty() const { return groups_.empty(); }
    std::vector<GroupId> topLevelGroups() const;
    /// Shown nodes outside every group.
    const std::vector<NodeId>& ungroupedNodes() const { return ungrouped_; }
    size_t nodeCount() const { return nodeCount_; }
    int maxDepth() const;

    /// The innermost group holding `node`; kNoId for an ungrouped or unknown node.
    GroupId groupOf(NodeId node) const;
    /// The outermost collapsed group around `node` (or around group `inner`); kNoId when none is.
    GroupId collapsedAncestor(NodeId node, const CollapsedGroups& collapsed) const;
    GroupId collapsedAncestorOfGroup(GroupId inner, const CollapsedGroups& collapsed) const;
    /// The group whose path is `path` ("/layer1/layer1.0"); kNoId when there is none.
    GroupId findGroup(std::string_view path) const;

private:
    std::vector<ScopeGroup> groups_;
    std::vector<NodeId> ungrouped_;
    std::unordered_map<NodeId, GroupId> groupOfNode_;
    size_t nodeCount_ = 0;
};

/// The groups nested deeper than `expandedLevels`: 0 collapses every top-level group, 1 shows
/// the top-level groups open with their sub-groups collapsed, and so on.
CollapsedGroups collapseBelowDepth(const ScopeTree& tree, int expandedLevels);

/// How many boxes the canvas shows for `tree`'s nodes when `collapsed` are collapsed (nodes not
/// hidden in a collapsed group, plus one per outermost collapsed group; terminals not counted).
size_t visibleNodeCount(const ScopeTree& tree, const CollapsedGroups& collapsed);

/// Nothing collapsed when the graph has at most `maxVisible` nodes; otherwise its top-level
/// groups collapsed, so a big graph opens as an overview of a few readable boxes: the
/// shallowest collapseBelowDepth() that shows at least `minOverview` boxes, none of them
/// holding more than half of the nodes (a model wrapped in one scope, "/bert/...", or with all
/// its layers in "/layers", opens one level further in), and at most `maxVisible` boxes (the
/// deepest level under that limit when none does).
CollapsedGroups automaticCollapse(const ScopeTree& tree, size_t maxVisible = 1000, size_t minOverview = 8);

} // namespace graphlens
