// Runs a pipeline of passes over a model: times each pass, counts nodes, optionally verifies
// each pass numerically and stops at (or skips) the first one that breaks the tolerance.
#pragma once

#include "core/graph/model.h"
#include "core/passes/pass.h"
#include "core/passes/verify.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

struct PassRun {
    PassResult result;
    std::optional<VerifyReport> verification;  ///< set when the pipeline verifies
    bool reverted = false;  ///< failed verification and was undone (--skip-failing)
};

struct PipelineOptions {
    bool verify = false;
    bool skipFailing = false;  ///< undo a pass that fails verification and go on
    VerifyOptions verifyOptions;
    /// Inputs for verification (every graph input without a default).
    std::map<std::string, Tensor> feeds;
    /// Called after each pass (for progress in the window).
    std::function<void(const PassRun&)> onPass;
};

struct PipelineReport {
    std::vector<PassRun> passes;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    /// Empty when every pass ran (and verified); else one sentence naming the pass that broke
    /// the tolerance and its rewrite.
    std::string failure;
};

/// Runs one pass on `model`, filling timing, node counts and the domains it used into the
/// model's opset imports. A pass that refreshesShapes() is followed by shape inference unless
/// `refreshShapes` is false (a caller running several passes infers once after them).
PassResult runPass(Pass& pass, Model& model, PassContext& context, bool refreshShapes = true);

/// Runs `passes` in order. Throws ExecutionError when verification cannot run the original model.
PipelineReport runPipeline(Model& model, const std::vector<std::unique_ptr<Pass>>& passes,
                           PassContext& context, const PipelineOptions& options);

/// A PassContext for `model` (its opset).
PassContext contextFor(const Model& model);

} // namespace graphlens
