// The registry: one line per pass, in pipeline order.
#include "core/passes/pass_registry.h"

#include <algorithm>
#include <functional>

namespace graphlens {

// Factories, one per pass file (core/passes/<name>.cpp).
std::unique_ptr<Pass> makeEliminateNoOpsPass();
std::unique_ptr<Pass> makeRemoveDeadNodesPass();
// @@ factories: folding and cleanup
// @@ factories: weight folding and fusion
// @@ factories: sub-graph fusion and lossy

namespace {

using Factory = std::function<std::unique_ptr<Pass>()>;

/// Pipeline order: cleanup first (so patterns see through Identity and dead code), then
/// folding, weight folding, fusions, and the lossy passes last.
const std::vector<Factory>& factories() {
    static const std::vector<Factory> all = {
        makeEliminateNoOpsPass,
        makeRemoveDeadNodesPass,
        // @@ registry: folding and cleanup
        // @@ registry: weight folding and fusion
        // @@ registry: sub-graph fusion and lossy
    };
    return all;
}

std::vector<std::string> split(std::string_view spec) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= spec.size()) {
        size_t comma = spec.find(',', start);
        if (comma == std::string_view::npos) comma = spec.size();
        std::string part(spec.substr(start, comma - start));
        part.erase(0, part.find_first_not_of(" \t"));
        part.erase(part.find_last_not_of(" \t") + 1);
        parts.push_back(part);
        start = comma + 1;
    }
    return parts;
}

} // namespace

std::vector<std::unique_ptr<Pass>> makeAllPasses() {
    std::vector<std::unique_ptr<Pass>> passes;
    for (const Factory& f : factories()) passes.push_back(f());
    return passes;
}

std::vector<std::unique_ptr<Pass>> makePipeline(std::string_view spec) {
    std::vector<std::unique_ptr<Pass>> all = makeAllPasses();
    std::vector<std::unique_ptr<Pass>> chosen;
    if (spec == "none") return chosen;
    if (spec == "all") return all;
    if (spec == "default") {
        for (auto& p : all)
            if (!p->lossy()) chosen.push_back(std::move(p));
        return chosen;
    }
    for (const std::string& id : split(spec)) {
        auto found = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p->id() == id; });
        if (found == all.end()) {
            std::string known;
            for (const auto& p : all) known += (known.empty() ? "" : ", ") + p->id();
            throw PassError("unknown pass '" + id +
                            "'; the pipelines are default, all and none, and the passes are " + known);
        }
        const size_t index = size_t(found - all.begin());
        chosen.push_back(factories()[index]());  // a fresh instance: an id may repeat
    }
    return chosen;
}

} // namespace graphlens
