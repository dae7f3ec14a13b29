// Pairing the nodes of two models, and the tensors to compare between them: by provenance when B
// came from A through GraphLens, else by node (or output) name, else by structure: op type, the
// partners of the nodes feeding it, the hashes of its weights, its place in topological order.
// A fused node of B (Conv+BatchNormalization+Relu as one Conv) is compared at the group's
// boundary: its output against the output of the group's last A node.
#pragma once

#include "core/compare/provenance_map.h"
#include "core/graph/graph.h"

#include <string>
#include <vector>

namespace graphlens {

enum class MatchMethod { Provenance, Name, Structure };

/// "provenance", "name", "structure".
const char* matchMethodName(MatchMethod method);

struct NodeMatch {
    NodeId a = kNoId;         ///< the A node that is the same operation as `b` (structural diff)
    NodeId b = kNoId;
    /// The A node whose outputs `b`'s outputs are compared against: the last node of the group
    /// `b` stands for (`a` itself when `b` stands for one node).
    NodeId boundaryA = kNoId;
    std::vector<NodeId> groupA;  ///< every A node `b` stands for, in A's topological order
    MatchMethod method = MatchMethod::Name;
    /// The tensors to compare: (A value, B value), one per output both nodes have.
    std::vector<std::pair<ValueId, ValueId>> values;
};

struct NodeMatching {
    std::vector<NodeMatch> matches;  ///< in B's topological order
    std::vector<NodeId> onlyA;       ///< A nodes no B node is paired with, in A's order
    /// The nodes of onlyA a matched B node's group stands for: folded or fused into it (a
    /// BatchNormalization folded into a Conv), gone as nodes but computed inside B's node.
    std::vector<NodeId> foldedA;
    std::vector<NodeId> onlyB;       ///< B nodes with no partner, in B's order
};

/// Pairs the nodes of `a` and `b` (Constant nodes are weights, not nodes: never paired).
/// `provenance` (possibly empty) takes precedence over names and structure.
NodeMatching matchNodes(const Graph& a, const Graph& b, const ProvenanceMap& provenance = {});

/// A 64-bit hash of a constant's type, shape and bytes.
uint64_t tensorHash(const Tensor& tensor);

/// A node's name for reports: its name, else its first output's name, else its op type.
std::string nodeDisplayName(const Graph& graph, NodeId node);

} // namespace graphlens
