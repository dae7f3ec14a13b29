// Provenance between two models, in memory and through metadata_props.
#include "core/compare/provenance_map.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>

namespace graphlens {
namespace {

/// The name a node is known by in the metadata: its first output's (unique in a graph).
std::string keyOf(const Graph& g, const Node& n) {
    return n.outputs().empty() || n.output(0) == kNoId ? std::string() : g.value(n.output(0)).name;
}

} // namespace

ProvenanceMap provenanceBetween(const Graph& a, const Graph& b) {
    std::unordered_map<NodeId, std::vector<NodeId>> owners;  // original id -> A nodes holding it
    for (NodeId id : a.nodeIds())
        for (NodeId origin : a.node(id).provenance) owners[origin].push_back(id);
    ProvenanceMap map;
    for (NodeId id : b.nodeIds()) {
        const std::vector<NodeId>& from = b.node(id).provenance;
        const std::set<NodeId> within(from.begin(), from.end());
        std::set<NodeId> group;
        for (NodeId origin : from) {
            auto it = owners.find(origin);
            if (it == owners.end()) continue;
            for (NodeId candidate : it->second) {
                const auto& prov = a.node(candidate).provenance;
                if (std::all_of(prov.begin(), prov.end(), [&](NodeId p) { return within.count(p) > 0; })) group.insert(candidate);
            }
        }
        if (!group.empty()) map[id] = {group.begin(), group.end()};
    }
    return map;
}

void recordProvenance(Model& derived, const Graph& original) {
    const ProvenanceMap map = provenanceBetween(original, derived.graph);
    std::string text;
    for (const auto& [node, from] : map) {
        const std::string key = keyOf(derived.graph, derived.graph.node(node));
        if (key.empty()) continue;
        text += key;
        for (NodeId a : from) text += "\t" + keyOf(original, original.node(a));
        text += "\n";
    }
    auto& metadata = derived.metadata;
    metadata.erase(std::remove_if(metadata.begin(), metadata.end(), [](const auto& entry) { return entry.first == kProvenanceMetadataKey; }),
                   metadata.end());
    metadata.emplace_back(kProvenanceMetadataKey, text);
}

ProvenanceMap provenanceFromMetadata(const Model& b, const Graph& a) {
    auto entry = std::find_if(b.metadata.begin(), b.metadata.end(), [](const auto& e) { return e.first == kProvenanceMetadataKey; });
    if (entry == b.metadata.end()) return {};
    const auto producerOf = [](const Graph& g, const std::string& name) -> NodeId {
        auto v = g.findValue(name);
        return v ? g.value(*v).producer() : kNoId;
    };
    ProvenanceMap map;
    std::istringstream lines(entry->second);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string key, name;
        std::getline(fields, key, '\t');
        const NodeId node = producerOf(b.graph, key);
        if (node == kNoId) continue;  // the model was edited after the save: that node has no record
        std::vector<NodeId> from;
        while (std::getline(fields, name, '\t')) {
            const NodeId original = producerOf(a, name);
            if (original == kNoId) return {};  // recorded against another model
            from.push_back(original);
        }
        std::sort(from.begin(), from.end());
        if (!from.empty()) map[node] = std::move(from);
    }
    return map;
}

} // namespace graphlens
