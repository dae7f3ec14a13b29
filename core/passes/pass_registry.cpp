// The registry: one line per pass, in pipeline order.
#include "core/passes/pass_registry.h"

#include <algorithm>
#include <functional>

namespace graphlens {

// Factories, one per pass file (core/passes/<name>.cpp).
std::unique_ptr<Pass> makeEliminateNoOpsPass();
std::unique_ptr<Pass> makeRemoveDeadNodesPass();
std::unique_ptr<Pass> makeFoldShapesPass();
std::unique_ptr<Pass> makeFoldConstantsPass();
std::unique_ptr<Pass> makeEliminateCommonSubexpressionsPass();
std::unique_ptr<Pass> makeMergeDuplicateInitializersPass();
std::unique_ptr<Pass> makeSimplifyTransposeReshapePass();
// @@ factories: folding and cleanup
std::unique_ptr<Pass> makeFoldBatchNormPass();
std::unique_ptr<Pass> makeFoldScaleIntoConvPass();
std::unique_ptr<Pass> makeMatMulAddToGemmPass();
std::unique_ptr<Pass> makeFuseMatMulScalePass();
std::unique_ptr<Pass> makeFuseConvAddPass();
std::unique_ptr<Pass> makeFuseConvActivationPass();
// @@ factories: weight folding and fusion
std::unique_ptr<Pass> makeFuseGeluPass();
std::unique_ptr<Pass> makeFuseLayerNormPass();
std::unique_ptr<Pass> makeFuseSkipLayerNormPass();
std::unique_ptr<Pass> makeFuseHardSwishPass();
std::unique_ptr<Pass> makeFuseSiluPass();
std::unique_ptr<Pass> makeQuantizeInt8WeightsPass();
std::unique_ptr<Pass> makePruneMagnitudePass();
std::unique_ptr<Pass> makeQuantizeInt8StaticPass();
// @@ factories: sub-graph fusion and lossy

namespace {

using Factory = std::function<std::unique_ptr<Pass>()>;

/// Pipeline order: cleanup first (so patterns see through Identity and dead code), then
/// folding, sub-graph fusions, weight folding and Conv/Gemm fusions, and the lossy passes last.
const std::vector<Factory>& factories() {
    static const std::vector<Factory> all = {
        makeEliminateNoOpsPass,
        makeRemoveDeadNodesPass,
        makeFoldShapesPass,
        makeFoldConstantsPass,
        makeEliminateCommonSubexpressionsPass,
        makeMergeDuplicateInitializersPass,
        makeSimplifyTransposeReshapePass,
        // @@ registry: folding and cleanup
        // Sub-graph fusions before the Conv fusions, so a Conv followed by a fused HardSwish
        // can still take it as its activation.
        makeFuseGeluPass,
        makeFuseLayerNormPass,
        makeFuseSkipLayerNormPass,  // after fuse-layernorm, which makes the LayerNormalization it needs
        makeFuseHardSwishPass,
        makeFuseSiluPass,
        makeFoldBatchNormPass,
        makeFoldScaleIntoConvPass,
        makeMatMulAddToGemmPass,
        makeFuseMatMulScalePass,  // after fold-scale-into-conv, which takes scales into constant operands
        makeFuseConvAddPass,  // before fuse-conv-activation: conv -> add -> relu is one FusedConv
        makeFuseConvActivationPass,
        // @@ registry: weight folding and fusion
        // Lossy, last: pruning first, so the quantized weights keep its zeros; static
        // quantization before weight-only quantization, which then finds no float weight left
        // on the nodes it quantized.
        makePruneMagnitudePass,
        makeQuantizeInt8StaticPass,
        makeQuantizeInt8WeightsPass,
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
    const std::vector<std::unique_ptr<Pass>> all = makeAllPasses();
    std::vector<std::unique_ptr<Pass>> chosen;
    const auto add = [&](size_t index) { chosen.push_back(factories()[index]()); };  // an id may repeat
    for (const std::string& item : split(spec)) {
        if (item == "none") continue;
        if (item == "all" || item == "default") {  // a pipeline inside a list, e.g. default,quantize-int8-weights
            for (size_t i = 0; i < all.size(); ++i)
                if (item == "all" || !all[i]->lossy()) add(i);
            continue;
        }
        auto found = std::find_if(all.begin(), all.end(), [&](const auto& p) { return p->id() == item; });
        if (found == all.end()) {
            std::string known;
            for (const auto& p : all) known += (known.empty() ? "" : ", ") + p->id();
            throw PassError("unknown pass '" + item +
                            "'; the pipelines are default, all and none, and the passes are " + known);
        }
        add(size_t(found - all.begin()));
    }
    return chosen;
}

} // namespace graphlens
