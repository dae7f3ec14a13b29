// The greedy pattern driver.
#include "core/passes/pattern.h"

#include "core/graph/op_key.h"

#include <stdexcept>
#include <unordered_map>

namespace graphlens {

std::string opKey(const Node& node) {
    return OpKey::of(node).toString();
}

namespace {

using PatternIndex = std::unordered_map<std::string, std::vector<const RewritePattern*>>;

PatternIndex indexByRoot(const std::vector<std::unique_ptr<RewritePattern>>& patterns) {
    PatternIndex index;
    for (const auto& p : patterns)
        for (const std::string& op : p->rootOps()) index[op].push_back(p.get());
    return index;
}

/// One sweep; true when some pattern fired.
bool sweep(const PatternIndex& index, Rewriter& rewriter, const PassContext& context) {
    bool changed = false;
    for (NodeId id : rewriter.graph().topologicalOrder()) {
        if (!rewriter.graph().hasNode(id)) continue;  // removed by an earlier rewrite
        auto found = index.find(opKey(rewriter.graph().node(id)));
        if (found == index.end()) continue;
        for (const RewritePattern* pattern : found->second) {
            const bool fired = pattern->matchAndRewrite(id, rewriter, context);
            if (rewriter.hasPendingChanges())
                throw std::logic_error("a pattern of pass '" + rewriter.result().passId +
                                       "' changed the graph without committing a rewrite");
            if (!fired) continue;
            changed = true;
            break;  // the root may be gone; later sweeps revisit what it became
        }
    }
    return changed;
}

} // namespace

void applyPatternsGreedily(const std::vector<std::unique_ptr<RewritePattern>>& patterns,
                           Rewriter& rewriter, const PassContext& context) {
    const PatternIndex index = indexByRoot(patterns);
    PassResult& result = rewriter.result();
    const size_t declinesBefore = result.declines.size();
    for (int iteration = 0; iteration < context.maxIterations; ++iteration) {
        result.declines.resize(declinesBefore);  // only the last sweep's reasons still hold
        if (!sweep(index, rewriter, context)) return;
    }
    result.converged = false;
    if (context.failIfNotConverged)
        throw std::runtime_error("pass '" + result.passId + "' did not reach a fixed point in " +
                                 std::to_string(context.maxIterations) + " sweeps");
}

} // namespace graphlens
