// What the two panes of the window compare at the current step: the model as loaded (the
// default: what every pass so far changed) or the step before it (what the last pass changed)
// on the left, the current step on the right; the diff marks of both sides and their captions.
#pragma once

#include "app/pass_stepper.h"

#include <QString>

#include <vector>

namespace graphlens {

/// What the left pane shows against the current step on the right.
enum class CompareWith { Original, PreviousStep };

struct StepComparison {
    size_t leftStep = 0;          ///< the snapshot on the left (0: the original)
    std::vector<NodeId> removed;  ///< nodes of the left graph that the steps in between removed or replaced
    std::vector<NodeId> added;    ///< nodes of the right graph that those steps added
    QString leftCaption;          ///< "Original · 236 nodes"
    QString rightCaption;         ///< "After 18 passes (step 18 of 18) · 120 nodes"
};

/// The comparison of `stepper`'s current step with the original or the step before it. A node
/// of the left graph counts as removed when the right graph lacks it or a rewrite in between
/// removed it (replaced it by a node made from it); a node of the right graph counts as added
/// when the left graph lacks it or a rewrite in between added it.
StepComparison compareStep(const PassStepper& stepper, CompareWith with);

/// The original nodes rewrite `index` of step `step` (1-based) is about: the provenance of the
/// nodes it removed and added. Each side of a split view finds its own nodes from them.
std::vector<NodeId> rewriteOrigins(const PassStepper& stepper, size_t step, size_t index);
/// The original nodes the node that decline `index` of step `step` names came from.
std::vector<NodeId> declineOrigins(const PassStepper& stepper, size_t step, size_t index);

} // namespace graphlens
