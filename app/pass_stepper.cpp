// PassStepper: snapshots per applied pass.
#include "app/pass_stepper.h"

#include "core/passes/pass_registry.h"
#include "core/passes/verify.h"

namespace graphlens {

PassStep runPassStep(const std::string& passId, size_t pass, const Model& from, NumericChecker* checker) {
    PassStep step{pass, from, {}, std::nullopt};  // a snapshot: tensors shared
    PassContext context = contextFor(step.model);
    auto passes = makePipeline(passId);
    step.result = runPass(*passes.front(), step.model, context);
    if (checker) {
        // Nothing rewritten is exactly equal; otherwise the error of this step alone, so the
        // baseline moves on even when it is out of tolerance.
        step.verification = step.result.rewrites.empty() ? VerifyReport{} : checker->check(step.model, /*adoptAnyway=*/true);
    }
    return step;
}

void PassStepper::reset(const Model& original) {
    ids_.clear();
    for (const auto& pass : makePipeline("default")) ids_.push_back(pass->id());
    enabled_.assign(ids_.size(), true);
    snapshots_.clear();
    snapshots_.push_back(std::make_shared<const Model>(original));  // one copy ({original} made two)
    results_.clear();
    verifications_.clear();
    passOfStep_.clear();
    step_ = 0;
}

std::shared_ptr<const Graph> PassStepper::sharedGraph(size_t step) const {
    std::shared_ptr<const Model> snapshot = sharedSnapshot(step);
    return {snapshot, &snapshot->graph};  // aliasing: keeps the snapshot alive
}

std::string PassStepper::title(size_t pass) const { return makePipeline(ids_.at(pass)).front()->title(); }

std::string PassStepper::explanation(size_t pass) const {
    return makePipeline(ids_.at(pass)).front()->explanation();
}

std::vector<size_t> PassStepper::pendingPasses() const {
    std::vector<size_t> pending;
    for (size_t p = step_ == 0 ? 0 : passOfStep_.at(step_ - 1) + 1; p < ids_.size(); ++p)
        if (enabled_[p]) pending.push_back(p);
    return pending;
}

void PassStepper::commit(PassStep step) {
    snapshots_.resize(step_ + 1);
    results_.resize(step_);
    verifications_.resize(step_);
    passOfStep_.resize(step_);
    snapshots_.push_back(std::make_shared<const Model>(std::move(step.model)));
    results_.push_back(std::move(step.result));
    verifications_.push_back(std::move(step.verification));
    passOfStep_.push_back(step.pass);
    ++step_;
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

const VerifyReport* PassStepper::currentVerification() const { return step_ == 0 ? nullptr : verificationOf(step_); }

const VerifyReport* PassStepper::verificationOf(size_t step) const {
    const auto& report = verifications_.at(step - 1);
    return report ? &*report : nullptr;
}

std::vector<const PassResult*> PassStepper::appliedResults() const {
    std::vector<const PassResult*> out;
    for (size_t i = 0; i < step_; ++i) out.push_back(&results_[i]);
    return out;
}

} // namespace graphlens
