// A profiling session: warm-up runs, then measured runs of one compiled plan on one backend.
// Runs without an observer (the whole-run latency) alternate with runs that record one event
// per node, so the observer's cost is measured rather than assumed.
#pragma once

#include "core/graph/model.h"
#include "core/runtime/backend.h"
#include "profiler/node_profile.h"

#include <map>
#include <string>
#include <vector>

namespace graphlens {

struct ProfileOptions {
    int warmupRuns = 3;
    int runs = 10;  ///< measured runs of each kind (with and without the observer)
};

/// One step of a plan (the node it runs, in the plan's order) and the arena bytes alive while it
/// runs: MemoryPlan::liveBytes joined with the node it belongs to.
struct MemoryStep {
    NodeId node = kNoId;
    std::string name;  ///< the node's name, its op type when it has none
    std::string op;
    uint64_t liveBytes = 0;
};

struct ProfileResult {
    std::vector<NodeProfile> nodes;  ///< in execution order
    SampleStats runMs;               ///< whole runs without an observer
    /// CPU time of the process (all its threads) over those runs: on a busy machine, wall time
    /// well above it (with one thread) is time spent waiting for a CPU.
    SampleStats runCpuMs;
    SampleStats observedRunMs;       ///< whole runs with the event recorder
    double overheadPercent = 0;      ///< observerOverheadPercent of the two medians
    double nodeMedianSumMs = 0;      ///< sumOfMedians(nodes)
    MemoryPlan memory;               ///< the plan's arena, naive sum, lower bound, live bytes per step
    std::vector<MemoryStep> memorySteps;  ///< one per node of the plan, in execution order
    std::vector<NodeEvent> events;   ///< every recorded event, run after run
    int runs = 0;
};

/// Records events into storage reserved up front: nothing is allocated while a run is timed.
class EventRecorder final : public ExecutionObserver {
public:
    explicit EventRecorder(size_t capacity) { events_.reserve(capacity); }
    void nodeFinished(const NodeEvent& event) override {
        if (events_.size() < events_.capacity()) events_.push_back(event);
    }
    std::vector<NodeEvent> take() { return std::move(events_); }

private:
    std::vector<NodeEvent> events_;
};

/// `model`'s graph with every shape inferred for `inputShapes`, through shape computations too
/// (graphWithStaticShapes; the graph as it is when inference fails): what FLOP and byte counts read.
Graph graphWithShapes(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes);

/// The live-bytes timeline of `plan`: step i runs plan.nodes()[i] (both backends plan memory
/// over that order) with memoryPlan().liveBytes[i] alive, 0 past the last planned tensor.
std::vector<MemoryStep> memorySteps(const Plan& plan, const Graph& graph);

/// Profiles `plan` on `feeds`. `graph` is the graph the plan was compiled from, with shapes
/// (graphWithShapes). Throws ExecutionError from the runs.
ProfileResult profilePlan(Plan& plan, const Graph& graph, const std::map<std::string, Tensor>& feeds,
                          const ProfileOptions& options);

} // namespace graphlens
