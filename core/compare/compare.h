// The comparison engine: two models (or one model on two backends) matched node by node, their
// structural diff, and both run on the same inputs with every matched tensor compared (max
// absolute and relative error, cosine similarity), the first divergence in B's topological order
// named. Memory stays bounded: A's matched values are copied as A computes them (a value
// observer, not extra graph outputs) and each is dropped once B's partner was compared; with a
// budget, the matched values are taken in rounds that each hold at most that many bytes.
// `graphlens compare` prints the report; the window can call compareModels with a progress
// callback that also cancels.
#pragma once

#include "core/compare/node_matching.h"
#include "core/compare/structural_diff.h"
#include "core/compare/tensor_error.h"
#include "core/graph/model.h"
#include "core/passes/pass.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace graphlens {

struct CompareOptions {
    std::string backendA = "cpu", backendB = "cpu";  ///< "cpu" or "vulkan"
    int deviceA = -1, deviceB = -1;                  ///< Vulkan device indices (-1: the preferred one)
    /// Inputs of both runs by name (every graph input without an initializer default).
    std::map<std::string, Tensor> feeds;
    /// A tensor diverges when its max relative error exceeds this (or it cannot be compared);
    /// the pass verifier's rtol.
    double tolerance = 1e-3;
    int threads = 0;  ///< CPU threads (0: every core)
    /// Bytes of A's values the comparison may hold at once (the values are then taken in
    /// several rounds, each running both models); 0: no limit, one round.
    uint64_t memoryBudget = 0;
    bool numeric = true;  ///< false: matching and structural diff only, nothing runs
    /// Called before each run with what it is ("run A, round 1") and the fraction done; return
    /// false to cancel (compareModels then throws CompareCancelled).
    std::function<bool(const std::string& stage, double fraction)> progress;
};

class CompareCancelled : public std::runtime_error {
public:
    CompareCancelled() : std::runtime_error("the comparison was cancelled") {}
};

/// The numeric comparison of one matched pair: B's node against its A boundary.
struct NodeError {
    size_t match = 0;          ///< index into ComparisonReport::matching.matches
    std::string nameA, nameB;  ///< the A boundary node and the B node (nodeDisplayName)
    std::string op;            ///< B's op type
    /// False when the pair was not compared: a value one side never computed (folded away),
    /// or no output pairs; `note` says which.
    bool compared = false;
    TensorError error;         ///< over the pair's outputs: worst errors, lowest cosine
    std::string note;
};

struct OutputError {
    std::string nameA, nameB;  ///< graph output value names
    TensorError error;
};

struct ComparisonReport {
    NodeMatching matching;
    std::vector<NodeChange> changed;
    std::vector<NodeError> nodes;      ///< one per match, in B's topological order (numeric only)
    std::vector<OutputError> outputs;  ///< graph outputs paired by name, else by position
    std::optional<size_t> firstDivergence;  ///< index into nodes: the first beyond tolerance
    double tolerance = 0;
    bool numeric = false;
    /// The most bytes of tensors the comparison held at once: A's captured values, both runs'
    /// graph outputs, and what a Vulkan run read back (not the plans' own arenas and weights).
    uint64_t peakBytes = 0;
    /// Every value both runs computed, side by side: what making every tensor an output would hold.
    uint64_t intermediateBytes = 0;
    int rounds = 0;

    /// True when `e` is beyond the report's tolerance (or could not be compared).
    bool diverges(const TensorError& e) const { return !e.comparable() || e.maxRelError > tolerance; }
    /// The first output beyond tolerance; nullopt when all are within it.
    std::optional<size_t> firstDivergentOutput() const;
};

/// Compares `b` against the reference `a`. `provenance` (B node -> A nodes; see provenance_map.h)
/// drives the matching where known. Throws ExecutionError when a model cannot run on its backend,
/// CompareCancelled when the progress callback says so.
ComparisonReport compareModels(const Model& a, const Model& b, const ProvenanceMap& provenance,
                               const CompareOptions& options);

/// One pass of a bisection.
struct BisectStep {
    std::string passId;
    size_t rewrites = 0;
    bool compared = false;  ///< false for a pass that changed nothing
    bool diverged = false;
    double maxRelError = 0;  ///< worst over matched tensors and outputs
};

struct BisectReport {
    std::vector<BisectStep> steps;  ///< the passes run, up to and including the divergent one
    std::optional<size_t> divergentStep;
    /// The rewrite of the divergent pass that made (or changed) the first divergent node.
    std::optional<Rewrite> rewrite;
    std::vector<std::string> nodesA, nodesB;  ///< the nodes involved, by display name
    ComparisonReport comparison;  ///< A against `model`
    Model model;                  ///< A after the passes up to the divergent one (else all of them)
    std::string sentence;         ///< "pass 'x' diverges ... in the rewrite '...'" or "no pass diverges"
};

/// Applies `passes` to a copy of `a` one at a time, comparing each result with `a` (provenance
/// matching), and stops at the first whose result diverges beyond the tolerance.
BisectReport bisectPasses(const Model& a, const std::vector<std::unique_ptr<Pass>>& passes, const CompareOptions& options);

} // namespace graphlens
