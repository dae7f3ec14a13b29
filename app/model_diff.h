// A comparison the window shows: two models (a file opened with File > Compare with..., the
// loaded model against the current step, e.g. float against quantized, or a bisection's
// divergent step) or one model on two backends, compared node by node by compareModels in the
// background, with the statistics of every compared tensor on both sides (taken in one more run
// of each side, a tensor at a time, so nothing but the statistics is kept), and what the canvas
// paints from it: only-A / only-B / changed marks and the Error overlay (max relative error per
// node on a log scale, nodes without a comparison neutral grey).
#pragma once

#include "app/task_runner.h"
#include "core/compare/compare.h"
#include "profiler/heat_scale.h"
#include "viewer/weight_stats.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace graphlens {

/// What a comparison compares.
enum class DiffKind {
    Models,    ///< the model shown against another file (File > Compare with...)
    Backends,  ///< the current step on the CPU against a Vulkan device
    Steps,     ///< the left side's snapshot against the current step
    Quantized, ///< the current step against itself after quantize-int8-weights (float against int8)
    Bisect,    ///< the model as loaded against the first pipeline step that diverges
};

/// What to compare, as the window hands it to the worker.
struct DiffRequest {
    DiffKind kind = DiffKind::Models;
    std::shared_ptr<const Model> a, b;  ///< the reference and the model compared with it
    QString nameA, nameB;               ///< "resnet50.onnx", "CPU", "step 3"
    std::string backendA = "cpu", backendB = "cpu";
    int deviceB = -1;
    ProvenanceMap provenance;  ///< B node -> A nodes where known
};

/// Statistics of one compared pair of tensors: the first output of a matched pair.
struct TensorPairStats {
    std::optional<WeightStats> a, b;
    std::string valueA, valueB;
};

struct ModelDiff {
    DiffKind kind = DiffKind::Models;
    std::shared_ptr<const Model> a, b;
    QString nameA, nameB;
    ComparisonReport report;
    /// By match index (ComparisonReport::matching.matches): both sides' statistics.
    std::map<size_t, TensorPairStats> stats;
    QString sentence;  ///< a bisection's verdict; empty for other kinds
    QStringList symbolicDims;  ///< the sizes given to symbolic input dims ("batch=1")
    std::string passId;  ///< the divergent pass of a bisection; empty when none diverged
    QStringList bisectSteps;  ///< a bisection's passes: "fold-batchnorm · 53 rewrites · max rel error 2.1e-06"
    std::vector<NodeId> involvedA, involvedB;  ///< a bisection's nodes (by id on each side)
};

/// The error scale of the overlay and its legend: max relative error 1e-7 .. 1 on a log scale.
HeatScale errorScale();
/// The overlay's color of a max relative error (below 1e-7: the coolest, infinite: the hottest).
QColor errorColor(double maxRelError);
/// The fill of a node the comparison did not measure.
QColor neutralErrorFill(bool dark);

/// What the canvas marks and paints on each side.
struct DiffMarks {
    std::vector<NodeId> onlyA, onlyB, changedA, changedB;
    /// Max relative error by node: a B node's own, an A node's that of the B node it is
    /// compared through (a fused group's nodes all take the group's). Infinite for a pair that
    /// could not be compared (a NaN on one side, shapes that differ).
    std::unordered_map<NodeId, double> errorA, errorB;
};
DiffMarks diffMarks(const ModelDiff& diff);

/// The fills of every box of `graph` for the overlay: `errors` colored, the rest neutral grey.
std::unordered_map<NodeId, QColor> errorFills(const Graph& graph, const std::unordered_map<NodeId, double>& errors, bool dark);

/// The index of the match of B node `b` (or of A node `a` when `b` is kNoId); nullopt when none.
std::optional<size_t> matchOfNode(const ModelDiff& diff, NodeId a, NodeId b);
/// The numeric result of match `match`; nullptr when the comparison ran nothing for it.
const NodeError* nodeErrorOf(const ModelDiff& diff, size_t match);

/// The summary the Comparison dock shows, one fact a line: what was compared, matched / only A
/// / only B / changed, the first divergence, each output's errors.
QString diffSummary(const ModelDiff& diff);

/// Runs in the worker thread: compareModels on seeded random inputs (as `graphlens compare`
/// makes them) with its progress reported to `control` (whose cancel stops it: CompareCancelled),
/// then the statistics of every compared pair. Throws what compareModels throws.
ModelDiff computeDiff(const DiffRequest& request, const TaskRunner::Control& control);

/// "NAME=1" for each symbolic dimension of `graph`'s inputs: the sizes the window's comparisons run with.
QStringList symbolicDimsAsOne(const Graph& graph);

/// The comparison options computeDiff uses for `request` (tolerance 1e-3, seeded feeds).
CompareOptions diffOptions(const DiffRequest& request);

/// Fills `diff.stats` from one more run of each side (a tensor's statistics as it is computed).
void collectPairStats(ModelDiff& diff, const CompareOptions& options);

} // namespace graphlens
