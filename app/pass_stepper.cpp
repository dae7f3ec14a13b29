// PassStepper: snapshots per applied pass.
#include "app/pass_stepper.h"

#include "core/passes/pass_registry.h"

namespace graphlens {

void PassStepper::reset(const Model& original) {
    ids_.clear();
    for (const auto& pass : makePipeline("default")) ids_.push_back(pass->id());
    enabled_.assign(ids_.size(), true);
    snapshots_ = {original};
    results_.clear();
    passOfStep_.clear();
    step_ = 0;
}

std::string PassStepper::title(size_t pass) const { return makePipeline(ids_.at(pass)).front()->title(); }

std::string PassStepper::explanation(size_t pass) const {
    return makePipeline(ids_.at(pass)).front()->explanation();
}

bool PassStepper::applyNext() {
    size_t next = step_ == 0 ? 0 : passOfStep_.at(step_ - 1) + 1;
    while (next < ids_.size() && !enabled_[next]) ++next;
    if (next >= ids_.size()) return false;
    snapshots_.resize(step_ + 1);
    results_.resize(step_);
    passOfStep_.resize(step_);
    Model model = snapshots_.back();  // a snapshot: tensors shared
    PassContext context = contextFor(model);
    auto pass = makePipeline(ids_[next]);
    results_.push_back(runPass(*pass.front(), model, context));
    snapshots_.push_back(std::move(model));
    passOfStep_.push_back(next);
    ++step_;
    return true;
}

void PassStepper::applyAll() {
    while (applyNext()) {
    }
}

bool PassStepper::stepBack() {
    if (step_ == 0) return false;
    --step_;
    return true;
}

bool PassStepper::stepForward() {
    if (step_ >= results_.size()) return false;
    ++step_;
    return true;
}

std::vector<const PassResult*> PassStepper::appliedResults() const {
    std::vector<const PassResult*> out;
    for (size_t i = 0; i < step_; ++i) out.push_back(&results_[i]);
    return out;
}

} // namespace graphlens
