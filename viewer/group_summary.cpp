// summarizeGroup: walks the group and its sub-groups; shared weights count once.
#include "viewer/group_summary.h"

#include "core/graph/model_summary.h"
#include "core/graph/op_key.h"
#include "viewer/node_label.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace graphlens {
namespace {

/// The nodes of `group` and of every group inside it.
void collectNodes(const ScopeTree& scopes, GroupId group, std::vector<NodeId>& out) {
    const ScopeGroup& g = scopes.group(group);
    out.insert(out.end(), g.nodes.begin(), g.nodes.end());
    for (GroupId child : g.children) collectNodes(scopes, child, out);
}

std::string opKey(const Node& node) {
    return OpKey::of(node).toString();
}

} // namespace

GroupSummary summarizeGroup(const Graph& graph, const ScopeTree& scopes, GroupId group) {
    const ScopeGroup& g = scopes.group(group);
    GroupSummary summary;
    summary.name = g.name;
    summary.path = g.path;
    summary.subgroups = g.children.size();
    std::vector<NodeId> nodes;
    collectNodes(scopes, group, nodes);
    summary.nodes = nodes.size();
    std::map<std::string, int> ops;
    std::unordered_set<const Tensor*> seen;
    for (NodeId id : nodes) {
        const Node& node = graph.node(id);
        ++ops[opKey(node)];
        if (const auto flops = estimateNodeFlops(graph, node)) summary.flops += *flops;
        for (ValueId input : node.inputs()) {
            const Tensor* tensor = input == kNoId || !isParameterValue(graph, input) ? nullptr : parameterTensor(graph, input);
            if (!tensor || !seen.insert(tensor).second) continue;
            ++summary.parameterTensors;
            summary.parameters += std::max<int64_t>(tensor->numel(), 0);
            summary.parameterBytes += int64_t(tensor->byteSize());
        }
    }
    summary.ops.assign(ops.begin(), ops.end());
    std::stable_sort(summary.ops.begin(), summary.ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return summary;
}

} // namespace graphlens
