// The long work of the window, as it runs on the TaskRunner's worker thread: opening a model
// (parse, checker, shape inference and the figures the overview shows) and applying passes one
// after another (each verified numerically when asked), stopping between passes on a cancel.
#pragma once

#include "app/pass_stepper.h"
#include "app/task_runner.h"
#include "core/graph/model_summary.h"

#include <QString>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace graphlens {

struct LoadedModel {
    Model model;
    ModelSummary summary;
};

/// Loads and summarizes `path` (FLOPs on the shapes as loaded: see ModelSummary::flopsComplete).
/// Throws what openModel() throws.
LoadedModel loadForWindow(const QString& path);

/// The status bar's line for `summary` at `step` of `steps`: "step 2/9 · 320 nodes · 14 op
/// types · 25.6 M parameters · 8.20 GFLOPs with batch, sequence = 1".
QString statusText(size_t step, size_t steps, const ModelSummary& summary);

/// Summarizes `model` on a worker thread of its own (FLOPs on static shapes take a shape
/// inference) and calls `done` with the summary on `context`'s thread, unless `context` is gone.
void summarizeInBackground(std::shared_ptr<const Model> model, QObject* context, std::function<void(const ModelSummary&)> done);

/// One pipeline entry to run: its index in the pipeline and its pass id.
struct PassToRun {
    size_t pass = 0;
    std::string id;
};

struct AppliedSteps {
    std::vector<PassStep> steps;  ///< the passes that ran, in order
    size_t asked = 0;             ///< how many passes were asked for
    bool cancelled = false;       ///< stopped early on a cancel request
    QString error;                ///< the pass that threw and why; the steps before it are kept
    QString verifyError;          ///< why the steps could not be verified (they ran anyway)
    QString verifyNote;           ///< the sizes verification gave symbolic dimensions, if any
};

/// Runs `passes` in order starting from `from`, each on the result of the one before. Before
/// each pass it reports "Applying pass k of n: id" and stops when a cancel was asked for. With
/// `verify`, each step is compared numerically with the one before it on seeded random inputs.
AppliedSteps applyPasses(const Model& from, const std::vector<PassToRun>& passes, bool verify, const TaskRunner::Control& control);

} // namespace graphlens
