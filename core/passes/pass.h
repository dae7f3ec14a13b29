// What a graph optimization pass is and what it reports: the rewrites it made (kind, nodes
// removed and added, one sentence each), why it declined where it did not fire, named counters
// and the time it took. Every change a pass makes goes through a Rewriter (rewriter.h).
#pragma once

#include "core/graph/graph.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graphlens {

/// A node as a rewrite saw it; kept by value because removed nodes leave the graph.
struct NodeRef {
    NodeId id = kNoId;
    std::string name;
    std::string opType;
};

/// One change a pass made: "folded BatchNormalization bn1 into Conv conv1".
struct Rewrite {
    std::string kind;  ///< short machine-readable kind: "fold-batchnorm", "eliminate-identity", ...
    std::vector<NodeRef> removed;
    std::vector<NodeRef> added;
    std::string sentence;
};

/// Why a pattern did not fire on a node it looked at.
struct Decline {
    NodeRef node;
    std::string reason;
};

struct PassResult {
    std::string passId;
    std::vector<Rewrite> rewrites;
    std::vector<Decline> declines;
    /// Named counters the pass declares ("numFolded", "numFused"), in the order first touched.
    std::vector<std::pair<std::string, int64_t>> counters;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    double milliseconds = 0;
    bool converged = true;  ///< false when the greedy driver hit its iteration cap
    bool lossy = false;     ///< the pass changes results beyond rounding (see Pass::lossy)
    /// For lossy passes: what the pass measured about the error it introduces (e.g. weight
    /// quantization error), one sentence per entry.
    std::vector<std::string> notes;
    /// Domains whose operators the pass added (e.g. "com.microsoft": 1), so export imports them.
    std::map<std::string, int64_t> domainsUsed;

    int64_t counter(const std::string& name) const;
    void addToCounter(const std::string& name, int64_t delta);
};

/// quantize-int8: the inputs its activation ranges are calibrated on.
struct CalibrationSettings {
    /// Input sets, each naming every graph input (read by readCalibrationSets); empty: seeded
    /// random inputs.
    std::vector<std::map<std::string, Tensor>> inputSets;
    std::string source;  ///< where the sets came from, for the report ("DIR")
    int randomSamples = 4;  ///< without inputSets: this many seeded random input sets
    uint64_t seed = 0;
    int threads = 0;  ///< CPU threads of the calibration runs (0: every core)
};

/// Settings and facts every pass may read.
struct PassContext {
    int64_t opset = 17;  ///< the model's default-domain opset
    /// False where the graph is a CPU plan's own copy, run and never written out: a rewrite may
    /// then use an operator the model's opset does not have yet (HardSwish in an opset-11 model),
    /// since the plan's kernels do not depend on the opset it was defined in.
    bool writesModel = true;
    /// Constant folding never creates a tensor larger than this many bytes (nor one larger than
    /// the node's inputs together), so folding cannot bloat the model.
    size_t foldSizeLimitBytes = 1 << 20;
    /// Folding that only needs the shapes it opens up (graphWithStaticShapes) never folds a result
    /// over foldSizeLimitBytes, even one no larger than its inputs: a weight's Transpose has a
    /// known shape already, and moving a transformer's 200 MB of weights for it is wasted.
    bool foldShapesOnly = false;
    int maxIterations = 32;  ///< greedy driver cap per pass
    bool failIfNotConverged = false;  ///< tests: throw when the cap is hit
    double pruneSparsity = 0.5;  ///< magnitude pruning: fraction of weights set to zero
    /// quantize-int8: weights in [-63, 63] (7 bits, ONNX Runtime's reduce_range), which int8
    /// products on machines without VNNI cannot saturate (int8ProductsSaturate), at twice the
    /// weight rounding error.
    bool reduceRange = false;
    CalibrationSettings calibration;  ///< quantize-int8
};

class Rewriter;

/// A graph optimization pass: a stable id, a title, an explanation a student can read.
class Pass {
public:
    virtual ~Pass() = default;
    virtual std::string id() const = 0;
    virtual std::string title() const = 0;
    /// One paragraph: what the pass does, the math behind it, when it declines.
    virtual std::string explanation() const = 0;
    /// Lossy passes change results beyond rounding; they are off in the `default` pipeline.
    virtual bool lossy() const { return false; }
    /// True when the pass can make shapes knowable (folding turns computed shapes into
    /// constants); the pass manager then re-runs shape inference after it, so later patterns
    /// that need shapes (LayerNorm over the last axis, no-op Reshape) can see them.
    virtual bool refreshesShapes() const { return false; }
    /// Rewrites `graph`; every change goes through `rewriter`, which fills the result.
    virtual void run(Rewriter& rewriter, PassContext& context) = 0;
};

} // namespace graphlens
