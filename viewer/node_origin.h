// Where a node of an optimized graph came from: the nodes of another snapshot that share its
// provenance (for the before/after highlight), the rewrites that made it and the original nodes
// it replaces, and for a folded BatchNormalization the fold's numbers per channel. Qt-free.
#pragma once

#include "core/passes/pass.h"

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens {

/// The nodes of one graph by the original nodes they came from (Node::provenance).
class ProvenanceIndex {
public:
    ProvenanceIndex() = default;
    explicit ProvenanceIndex(const Graph& graph);

    /// Nodes of the indexed graph sharing an original node with `provenance`, in topological order.
    std::vector<NodeId> nodesFrom(std::span<const NodeId> provenance) const;

private:
    std::unordered_map<NodeId, std::vector<NodeId>> byOrigin_;
    std::unordered_map<NodeId, size_t> order_;
};

/// One channel of a BatchNormalization folded into the node before it:
/// k = gamma / sqrt(var + eps), b = beta - mean * k.
struct ChannelFold {
    float gamma = 0, beta = 0, mean = 0, var = 0;
    float k = 0, b = 0;
};

struct BatchNormFold {
    NodeRef batchNorm;
    float epsilon = 1e-5f;
    size_t channels = 0;
    std::vector<ChannelFold> first;  ///< the first few channels
};

struct NodeOrigin {
    /// Sentences of the rewrites that made the node, oldest first; empty for a loaded node.
    std::vector<std::string> rewrites;
    /// The original nodes it stands for (from its provenance), when it is not one of them.
    std::vector<NodeRef> sources;
    /// BatchNormalizations among the sources, with the fold computed from their constants.
    std::vector<BatchNormFold> batchNorms;
};

/// The origin of `node`, a node of the graph that `applied` (oldest first) made from `original`.
/// `channels` limits the channels listed per BatchNorm fold.
NodeOrigin nodeOrigin(const Graph& original, std::span<const PassResult* const> applied, const Node& node,
                      size_t channels = 4);

} // namespace graphlens
