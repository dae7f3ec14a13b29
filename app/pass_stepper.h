// The pass pipeline of the window: a model's snapshot per applied pass, so stepping back and
// forward is instant and exact. Holds no widgets; the PassPanel shows it. Running a pass and
// recording its step are apart (runPassStep(), commit()), so the window runs passes in a worker
// thread and commits each step on the UI thread.
#pragma once

#include "core/graph/model.h"
#include "core/passes/pass_manager.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {

class NumericChecker;

/// What one pass made of a snapshot.
struct PassStep {
    size_t pass = 0;  ///< the pipeline entry that ran
    Model model;      ///< the snapshot after it
    PassResult result;
    std::optional<VerifyReport> verification;  ///< set when the step was verified
};

/// Runs pass `passId` (pipeline entry `pass`) on a copy of `from`. With a `checker` whose
/// baseline is `from`, the step is verified and its result becomes the checker's baseline. Reads
/// no PassStepper, so it can run in a worker thread. Throws what the pass throws.
PassStep runPassStep(const std::string& passId, size_t pass, const Model& from, NumericChecker* checker = nullptr);

class PassStepper {
public:
    /// Starts over on `original` with the lossless (`default`) pipeline.
    void reset(const Model& original);

    /// The pipeline's pass ids in order, and whether each is enabled.
    const std::vector<std::string>& passIds() const { return ids_; }
    std::string title(size_t pass) const;
    std::string explanation(size_t pass) const;
    bool enabled(size_t pass) const { return enabled_.at(pass); }
    void setEnabled(size_t pass, bool on) { enabled_.at(pass) = on; }

    /// The enabled pipeline entries after the current step, in order: what Apply next (the
    /// first) and Apply all (every one) run.
    std::vector<size_t> pendingPasses() const;
    /// Makes `step` the step after the current one, dropping any steps ahead, and moves there.
    void commit(PassStep step);

    bool stepBack();
    bool stepForward();

    /// The model as loaded (the snapshot of step 0).
    const Model& original() const { return *snapshots_.at(0); }
    /// The model after the current step (the original at step 0).
    const Model& current() const { return *snapshots_.at(step_); }
    const Model& previous() const { return *snapshots_.at(step_ == 0 ? 0 : step_ - 1); }
    /// The snapshot after `step` steps itself, shared rather than copied (a copy of a
    /// 60,000-node graph takes a fifth of a second): what background work reads.
    std::shared_ptr<const Model> sharedSnapshot(size_t step) const { return snapshots_.at(step); }
    std::shared_ptr<const Model> sharedCurrent() const { return snapshots_.at(step_); }
    /// The graph of sharedSnapshot(step): what the panes show.
    std::shared_ptr<const Graph> sharedGraph(size_t step) const;
    size_t step() const { return step_; }
    size_t stepCount() const { return results_.size(); }
    /// The result of the pass that made the current step (nullptr at step 0).
    const PassResult* currentResult() const { return step_ == 0 ? nullptr : &results_.at(step_ - 1); }
    /// How the current step verified; nullptr at step 0 or when it was not verified.
    const VerifyReport* currentVerification() const;
    /// Results of the steps up to the current one.
    std::vector<const PassResult*> appliedResults() const;

    /// The model after `step` steps (0: the original); `step` up to stepCount().
    const Model& snapshot(size_t step) const { return *snapshots_.at(step); }
    /// The result of step `step` (1-based: the pass that made snapshot(step)).
    const PassResult& resultOf(size_t step) const { return results_.at(step - 1); }
    /// How step `step` (1-based) verified; nullptr when it was not verified.
    const VerifyReport* verificationOf(size_t step) const;
    /// The pipeline entry step `step` (1-based) ran.
    size_t passOfStep(size_t step) const { return passOfStep_.at(step - 1); }

private:
    std::vector<std::string> ids_;
    std::vector<bool> enabled_;
    std::vector<std::shared_ptr<const Model>> snapshots_;  ///< snapshots_[k]: after k steps
    std::vector<PassResult> results_;   ///< results_[k]: the pass that made snapshots_[k + 1]
    std::vector<std::optional<VerifyReport>> verifications_;  ///< parallel to results_
    std::vector<size_t> passOfStep_;    ///< which pipeline entry each step ran
    size_t step_ = 0;
};

} // namespace graphlens
