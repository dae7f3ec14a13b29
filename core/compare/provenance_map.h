// Where the nodes of a model B came from in a model A: in memory, through Node::provenance (B made
// from A by passes in this process), and across a save, through an entry of the model's
// metadata_props that `graphlens optimize` writes (graphlens.provenance).
#pragma once

#include "core/graph/model.h"

#include <map>
#include <vector>

namespace graphlens {

/// B node id -> the A node ids it stands for (a fused node: several). Nodes of B absent here
/// have no known origin in A.
using ProvenanceMap = std::map<NodeId, std::vector<NodeId>>;

/// The metadata_props key of the recorded provenance. Its value has one line per node of the
/// model: the node's first output name, then a tab before each original node's first output name.
inline constexpr const char* kProvenanceMetadataKey = "graphlens.provenance";

/// Provenance of `b` in terms of `a`'s nodes when both come from one original graph in this
/// process: an A node belongs to a B node when all of A's provenance is within B's.
ProvenanceMap provenanceBetween(const Graph& a, const Graph& b);

/// Records in `derived`'s metadata (replacing an older entry) which nodes of `original` each of
/// its nodes came from, by output names, so the relation survives a save.
void recordProvenance(Model& derived, const Graph& original);

/// The provenance `b`'s metadata records, resolved against `a`'s output names; empty when the
/// entry is absent or names nodes `a` does not have (then `b` was not made from `a`).
ProvenanceMap provenanceFromMetadata(const Model& b, const Graph& a);

} // namespace graphlens
