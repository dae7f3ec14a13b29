// Profiling sessions: warm-up, alternating plain and observed runs, per-node statistics.
#include "profiler/profile_session.h"

#include "core/passes/static_shapes.h"

#include <time.h>

#include <chrono>

namespace graphlens {
namespace {

double processCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// Wall time of one run in ms; adds the process CPU time it took to `cpuMs` when given.
double runMs(Plan& plan, const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer,
             std::vector<double>* cpuMs = nullptr) {
    const double cpuStart = cpuMs ? processCpuMs() : 0;
    const auto start = std::chrono::steady_clock::now();
    plan.run(feeds, observer);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (cpuMs) cpuMs->push_back(processCpuMs() - cpuStart);
    return wall;
}

} // namespace

Graph graphWithShapes(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    return graphWithStaticShapes(model, inputShapes);  // through shape computations too: FLOPs need every shape
}

std::vector<MemoryStep> memorySteps(const Plan& plan, const Graph& graph) {
    const std::vector<uint64_t>& live = plan.memoryPlan().liveBytes;
    std::vector<MemoryStep> steps;
    for (size_t i = 0; i < plan.nodes().size(); ++i) {
        const Node& n = graph.node(plan.nodes()[i].node);
        steps.push_back({n.id, displayName(n), opLabel(n), i < live.size() ? live[i] : 0});
    }
    return steps;
}

ProfileResult profilePlan(Plan& plan, const Graph& graph, const std::map<std::string, Tensor>& feeds,
                          const ProfileOptions& options) {
    for (int i = 0; i < options.warmupRuns; ++i) plan.run(feeds);
    EventRecorder recorder(plan.nodes().size() * size_t(options.runs));
    std::vector<double> plain, plainCpu, observed;
    for (int i = 0; i < options.runs; ++i) {
        // Alternate which kind goes first, so neither always runs on the other's warm caches.
        if (i % 2) observed.push_back(runMs(plan, feeds, &recorder));
        plain.push_back(runMs(plan, feeds, nullptr, &plainCpu));
        if (i % 2 == 0) observed.push_back(runMs(plan, feeds, &recorder));
    }
    ProfileResult result;
    result.runs = options.runs;
    result.events = recorder.take();
    result.nodes = profileNodes(graph, result.events);
    std::map<NodeId, const PlannedNode*> plannedOf;
    for (const PlannedNode& n : plan.nodes()) plannedOf[n.node] = &n;
    for (NodeProfile& p : result.nodes)
        if (const PlannedNode* planned = plannedOf[p.node]) {
            p.kernel = planned->kernel;
            p.device = planned->device;
            p.why = planned->why;
        }
    result.runMs = summarizeSamples(std::move(plain));
    result.runCpuMs = summarizeSamples(std::move(plainCpu));
    result.observedRunMs = summarizeSamples(std::move(observed));
    result.overheadPercent = observerOverheadPercent(result.observedRunMs.median, result.runMs.median);
    result.nodeMedianSumMs = sumOfMedians(result.nodes);
    result.memory = plan.memoryPlan();
    result.memorySteps = memorySteps(plan, graph);
    return result;
}

} // namespace graphlens
