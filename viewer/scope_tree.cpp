// ScopeTree: a trie of name scopes, then pruned (scopes of one node dissolve into their parent)
// and compressed (a scope holding only one other scope merges with it).
#include "viewer/scope_tree.h"

#include "viewer/node_label.h"

#include <algorithm>
#include <functional>
#include <map>

namespace graphlens {
namespace {

/// The trie before pruning: one entry per distinct scope prefix.
struct ScopeTrie {
    struct Entry {
        std::string name;
        std::vector<int> children;
        std::map<std::string, int, std::less<>> childByName;
        std::vector<NodeId> nodes;
        size_t total = 0;
    };
    std::vector<Entry> entries{Entry{}};  // entry 0 is the root

    void add(NodeId node, std::string_view name) {
        int at = 0;
        size_t start = 0;
        // Every '/'-separated part but the last (the node's own name) is a scope.
        for (size_t slash = name.find('/'); slash != std::string_view::npos;
             start = slash + 1, slash = name.find('/', start)) {
            const std::string_view part = name.substr(start, slash - start);
            if (!part.empty()) at = child(at, part);
        }
        entries[size_t(at)].nodes.push_back(node);
    }

    int child(int parent, std::string_view part) {
        auto& map = entries[size_t(parent)].childByName;
        if (auto it = map.find(part); it != map.end()) return it->second;
        const int id = int(entries.size());
        entries.push_back(Entry{std::string(part), {}, {}, {}, 0});
        entries[size_t(parent)].childByName.emplace(std::string(part), id);
        entries[size_t(parent)].children.push_back(id);
        return id;
    }

    size_t countTotals(int at) {
        Entry& e = entries[size_t(at)];
        e.total = e.nodes.size();
        for (int c : std::vector<int>(e.children)) e.total += countTotals(c);
        return entries[size_t(at)].total;
    }

    void collectNodes(int at, std::vector<NodeId>& out) const {
        const Entry& e = entries[size_t(at)];
        out.insert(out.end(), e.nodes.begin(), e.nodes.end());
        for (int c : e.children) collectNodes(c, out);
    }
};

} // namespace

ScopeTree::ScopeTree(const Graph& graph) {
    ScopeTrie trie;
    for (NodeId id : graph.nodeIds()) {
        const Node& node = graph.node(id);
        if (isDrawnAsParameter(graph, node)) continue;
        trie.add(id, node.name);
        ++nodeCount_;
    }
    trie.countTotals(0);

    // Turns trie entry `at` into a group under `parent` (or dissolves it into `parentNodes`).
    std::function<void(int, GroupId, const std::string&, int, std::vector<NodeId>&)> place =
        [&](int at, GroupId parent, const std::string& parentPath, int depth, std::vector<NodeId>& parentNodes) {
            std::string name = trie.entries[size_t(at)].name;
            while (trie.entries[size_t(at)].nodes.empty() && trie.entries[size_t(at)].children.size() == 1) {
                at = trie.entries[size_t(at)].children.front();
                name += "/" + trie.entries[size_t(at)].name;
            }
            const ScopeTrie::Entry& entry = trie.entries[size_t(at)];
            if (entry.total < 2) {
                trie.collectNodes(at, parentNodes);
                return;
            }
            const GroupId id = GroupId(groups_.size());
            groups_.push_back({id, parent, name, parentPath + "/" + name, depth, {}, entry.nodes, entry.total});
            if (parent != kNoId) groups_[size_t(parent)].children.push_back(id);
            std::vector<NodeId> nodes = entry.nodes;
            for (int c : entry.children) place(c, id, groups_[size_t(id)].path, depth + 1, nodes);
            groups_[size_t(id)].nodes = std::move(nodes);
        };
    ungrouped_ = trie.entries[0].nodes;
    for (int c : trie.entries[0].children) place(c, kNoId, "", 1, ungrouped_);
    for (const ScopeGroup& g : groups_)
        for (NodeId n : g.nodes) groupOfNode_[n] = g.id;
}

std::vector<GroupId> ScopeTree::topLevelGroups() const {
    std::vector<GroupId> top;
    for (const ScopeGroup& g : groups_)
        if (g.parent == kNoId) top.push_back(g.id);
    return top;
}

int ScopeTree::maxDepth() const {
    int depth = 0;
    for (const ScopeGroup& g : groups_) depth = std::max(depth, g.depth);
    return depth;
}

GroupId ScopeTree::groupOf(NodeId node) const {
    const auto it = groupOfNode_.find(node);
    return it == groupOfNode_.end() ? kNoId : it->second;
}

GroupId ScopeTree::collapsedAncestor(NodeId node, const CollapsedGroups& collapsed) const {
    return collapsedAncestorOfGroup(groupOf(node), collapsed);
}

GroupId ScopeTree::collapsedAncestorOfGroup(GroupId inner, const CollapsedGroups& collapsed) const {
    GroupId outermost = kNoId;
    for (GroupId g = inner; g != kNoId; g = groups_[size_t(g)].parent)
        if (collapsed.count(g)) outermost = g;
    return outermost;
}

GroupId ScopeTree::findGroup(std::string_view path) const {
    for (const ScopeGroup& g : groups_)
        if (g.path == path) return g.id;
    return kNoId;
}

CollapsedGroups collapseBelowDepth(const ScopeTree& tree, int expandedLevels) {
    CollapsedGroups collapsed;
    for (const ScopeGroup& g : tree.groups())
        if (g.depth == expandedLevels + 1) collapsed.insert(g.id);
    return collapsed;
}

size_t visibleNodeCount(const ScopeTree& tree, const CollapsedGroups& collapsed) {
    std::function<size_t(GroupId)> count = [&](GroupId id) -> size_t {
        if (collapsed.count(id)) return 1;
        const ScopeGroup& g = tree.group(id);
        size_t n = g.nodes.size();
        for (GroupId c : g.children) n += count(c);
        return n;
    };
    size_t visible = tree.ungroupedNodes().size();
    for (GroupId top : tree.topLevelGroups()) visible += count(top);
    return visible;
}

CollapsedGroups automaticCollapse(const ScopeTree& tree, size_t maxVisible, size_t minOverview) {
    if (tree.nodeCount() <= maxVisible) return {};
    CollapsedGroups fitting = collapseBelowDepth(tree, 0);
    for (int levels = 0; levels < tree.maxDepth(); ++levels) {
        CollapsedGroups collapsed = collapseBelowDepth(tree, levels);
        const size_t visible = visibleNodeCount(tree, collapsed);
        if (visible > maxVisible) break;  // deeper levels only show more
        size_t largest = 0;
        for (GroupId g : collapsed) largest = std::max(largest, tree.group(g).totalNodes);
        if (visible >= minOverview && 2 * largest <= tree.nodeCount()) return collapsed;
        fitting = std::move(collapsed);
    }
    return fitting;
}

} // namespace graphlens
