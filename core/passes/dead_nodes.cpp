// remove-dead-nodes: nodes whose results reach no graph output, and initializers nothing reads.
#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"

#include <unordered_set>

namespace graphlens {
namespace {

/// Nodes some graph output depends on: a walk backwards from the outputs.
std::unordered_set<NodeId> liveNodes(const Graph& g) {
    std::unordered_set<NodeId> live;
    std::vector<ValueId> pending = g.outputs();
    while (!pending.empty()) {
        const ValueId v = pending.back();
        pending.pop_back();
        const NodeId p = g.value(v).producer();
        if (p == kNoId || !live.insert(p).second) continue;
        for (ValueId in : g.node(p).inputs())
            if (in != kNoId) pending.push_back(in);
    }
    return live;
}

class RemoveDeadNodes final : public Pass {
public:
    std::string id() const override { return "remove-dead-nodes"; }
    std::string title() const override { return "Remove dead branches and unused weights"; }
    std::string explanation() const override {
        return "A node whose results flow into no graph output cannot change what the model "
               "computes, however expensive it is: walking backwards from the outputs marks every "
               "node they depend on, and the rest are removed together with the initializers only "
               "they read. Exporters leave such branches behind (auxiliary heads, shape "
               "computations that folding made unnecessary). Graph inputs stay even when unused, "
               "because they are part of the model's interface.";
    }
    void run(Rewriter& rw, PassContext&) override {
        const std::unordered_set<NodeId> live = liveNodes(rw.graph());
        // Reverse topological order: consumers go before the producers they leave dead.
        std::vector<NodeId> order = rw.graph().topologicalOrder();
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            if (live.count(*it)) continue;
            const std::string sentence = "removed " + describe(rw.graph().node(*it)) + ": no graph output depends on it";
            rw.removeNode(*it);
            rw.count("numNodesRemoved");
            rw.commit("remove-dead-node", sentence);
        }
        for (ValueId v : rw.graph().initializers()) {
            const std::string name = rw.graph().value(v).name;
            if (!rw.eraseIfDead(v)) continue;
            rw.count("numInitializersRemoved");
            rw.commit("remove-unused-initializer", "removed the initializer '" + name + "': nothing reads it");
        }
    }
};

} // namespace

std::unique_ptr<Pass> makeRemoveDeadNodesPass() { return std::make_unique<RemoveDeadNodes>(); }

} // namespace graphlens
