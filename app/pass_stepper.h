// The pass pipeline of the window: a model's snapshot per applied pass, so stepping back and
// forward is instant and exact. Holds no widgets; the PassPanel shows it.
#pragma once

#include "core/graph/model.h"
#include "core/passes/pass_manager.h"

#include <memory>
#include <string>
#include <vector>

namespace graphlens {

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

    /// Runs the next enabled pass after the current step, dropping any steps ahead; false when
    /// no pass is left. Throws what a pass throws.
    bool applyNext();
    /// Applies every remaining enabled pass.
    void applyAll();
    bool stepBack();
    bool stepForward();

    /// The model after the current step (the original at step 0).
    const Model& current() const { return snapshots_.at(step_); }
    const Model& previous() const { return snapshots_.at(step_ == 0 ? 0 : step_ - 1); }
    size_t step() const { return step_; }
    size_t stepCount() const { return results_.size(); }
    /// The result of the pass that made the current step (nullptr at step 0).
    const PassResult* currentResult() const { return step_ == 0 ? nullptr : &results_.at(step_ - 1); }
    /// Results of the steps up to the current one.
    std::vector<const PassResult*> appliedResults() const;

private:
    std::vector<std::string> ids_;
    std::vector<bool> enabled_;
    std::vector<Model> snapshots_;      ///< snapshots_[k]: after k steps
    std::vector<PassResult> results_;   ///< results_[k]: the pass that made snapshots_[k + 1]
    std::vector<size_t> passOfStep_;    ///< which pipeline entry each step ran
    size_t step_ = 0;
};

} // namespace graphlens
