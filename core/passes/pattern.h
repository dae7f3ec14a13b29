// Rewrite patterns and the one greedy driver that applies them to a fixed point (MLIR's
// OpRewritePattern + applyPatternsGreedily). A pattern names the op types it roots at and
// changes the graph only through the rewriter; when it looks at a node and does not fire it
// says why with rewriter.decline().
#pragma once

#include "core/passes/pass.h"
#include "core/passes/rewriter.h"

#include <memory>
#include <string>
#include <vector>

namespace graphlens {

class RewritePattern {
public:
    virtual ~RewritePattern() = default;
    /// Op types the pattern roots at: "Conv" for the default domain, "com.microsoft:FusedConv".
    virtual std::vector<std::string> rootOps() const = 0;
    /// Rewrites at `root` and commits, returning true; or returns false having changed nothing
    /// (after rewriter.decline(root, why) when the node looked like a match but must not fire).
    virtual bool matchAndRewrite(NodeId root, Rewriter& rewriter, const PassContext& context) const = 0;
};

/// Sweeps the graph in topological order, trying the patterns rooted at each node's op, until a
/// sweep changes nothing or context.maxIterations sweeps ran (result.converged = false; throws
/// std::runtime_error when context.failIfNotConverged). Declines of the last sweep are kept.
void applyPatternsGreedily(const std::vector<std::unique_ptr<RewritePattern>>& patterns,
                           Rewriter& rewriter, const PassContext& context);

/// A pass made of rewrite patterns.
class PatternPass : public Pass {
public:
    void run(Rewriter& rewriter, PassContext& context) override {
        applyPatternsGreedily(patterns_, rewriter, context);
    }

protected:
    template <typename P, typename... Args>
    void addPattern(Args&&... args) {
        patterns_.push_back(std::make_unique<P>(std::forward<Args>(args)...));
    }

private:
    std::vector<std::unique_ptr<RewritePattern>> patterns_;
};

/// "Conv" or "com.microsoft:FusedConv": the key rootOps() uses for a node.
std::string opKey(const Node& node);

} // namespace graphlens
