// Numeric verification of passes: the graph before and after a pass run on the same inputs, and
// every graph output plus every intermediate tensor that provenance matches is compared. This is
// the proof that a pass still computes the same thing, reported as max absolute/relative error.
#pragma once

#include "core/graph/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace graphlens {

struct VerifyOptions {
    double rtol = 1e-3;  ///< an element passes when |after - before| <= atol + rtol * |before|
    double atol = 1e-4;
    int threads = 0;
    /// Refuse to run a graph whose plan needs more than this many bytes; 0: the memory available.
    uint64_t maxMemory = 0;
    bool intermediates = true;  ///< compare provenance-matched intermediates, not only outputs
};

struct VerifyReport {
    bool passed = true;
    double maxAbsError = 0;
    double maxRelError = 0;
    size_t outputsCompared = 0;
    size_t intermediatesCompared = 0;
    /// When not passed: one sentence naming the tensor and the first element out of tolerance.
    std::string failure;
    /// The tensor with the largest absolute error, and the first (in execution order) out of
    /// tolerance: the one nearest to the rewrite that broke it.
    std::string worstTensor;
    std::string failingTensor;
};

/// Keeps the tensors of the last accepted graph and checks each rewritten graph against them.
class NumericChecker {
public:
    NumericChecker(std::map<std::string, Tensor> feeds, VerifyOptions options);

    /// Runs `model` and remembers every value it computes. Throws ExecutionError when it cannot.
    void setBaseline(const Model& model);
    /// Runs `after` and compares its outputs, and each intermediate whose name and producer's
    /// provenance match the baseline, against the baseline. When it passes, `after` becomes the
    /// baseline. Never throws for a numeric mismatch; an `after` that fails to run fails the check.
    /// With `adoptAnyway` (lossy passes, whose error is reported rather than enforced) `after`
    /// becomes the baseline even when it is out of tolerance.
    VerifyReport check(const Model& after, bool adoptAnyway = false);

private:
    struct Computed {
        std::map<std::string, Tensor> tensors;           ///< value name -> tensor
        std::map<std::string, std::vector<NodeId>> provenance;  ///< value name -> producer's provenance
        std::vector<std::string> outputs;
        std::vector<std::string> order;  ///< every computed value, in execution order
    };
    Computed runAll(const Model& model) const;

    std::map<std::string, Tensor> feeds_;
    VerifyOptions options_;
    Computed baseline_;
};

} // namespace graphlens
