// `graphlens bench MODEL [--backend cpu|vulkan] [--device N] [--runs N] [--warmup W] [--threads T]
// [--json]`: whole-run latency over repeated runs of one compiled plan (inputs made once, as `run`
// makes them).
#include "app/cli/cli.h"
#include "app/cli/model_inputs.h"
#include "app/cli/model_report.h"
#include "app/cli/pass_options.h"
#include "core/runtime/backend.h"
#include "profiler/statistics.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>

namespace graphlens::cli {
namespace {

/// Sums node times per (op type, kernel, where it ran and why) over the measured runs, for --by-op.
/// Nodes run inside another node's kernel (PlannedNode::fusedInto) have no time of their own: they
/// are counted per op type under the line, not listed as 0 ms rows.
class OpTimes final : public ExecutionObserver {
public:
    OpTimes(const Graph& graph, const Plan& plan) : graph_(graph) {
        for (const PlannedNode& n : plan.nodes()) {
            if (n.fusedInto != kNoId) {
                fusedNodes_.insert(n.node);
                ++fused_[graph.node(n.node).opType];
            }
            kernelOf_[n.node] = n.kernel + " on " + n.device + (n.why.empty() ? "" : ": " + n.why);
        }
    }
    void nodeFinished(const NodeEvent& e) override {
        if (fusedNodes_.count(e.node)) return;
        const Node& n = graph_.node(e.node);
        totals_[n.opType + " [" + kernelOf_[e.node] + "]"] += double(e.endNs - e.beginNs) / 1e6;
    }
    void print(int runs) const {
        std::vector<std::pair<double, std::string>> rows;
        double all = 0;
        for (const auto& [key, ms] : totals_) {
            rows.emplace_back(ms / runs, key);
            all += ms / runs;
        }
        std::sort(rows.rbegin(), rows.rend());
        std::printf("time per run by op and kernel (sum %.3f ms):\n", all);
        for (const auto& [ms, key] : rows) std::printf("  %9.3f ms  %5.1f%%  %s\n", ms, 100 * ms / all, key.c_str());
        if (fused_.empty()) return;
        std::string counts;
        int total = 0;
        for (const auto& [op, n] : fused_) {
            counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + op;
            total += n;
        }
        std::printf("  %d nodes ran inside the kernels above (fused, no time of their own): %s\n", total, counts.c_str());
    }

private:
    const Graph& graph_;
    std::map<NodeId, std::string> kernelOf_;
    std::set<NodeId> fusedNodes_;
    std::map<std::string, int> fused_;  ///< fused nodes by op type
    std::map<std::string, double> totals_;
};

} // namespace

int runBench(const QStringList& args) {
    QCommandLineParser parser;
    parser.setApplicationDescription("Measure a model's latency.");
    parser.addPositionalArgument("MODEL", "the .onnx file");
    addRunOptions(parser);
    addDeviceOption(parser);
    addPassOption(parser, "none");
    parser.addOption({"runs", "measured runs (default 20)", "N", "20"});
    parser.addOption({"warmup", "runs before measuring (default 3)", "W", "3"});
    parser.addOption({"json", "print JSON"});
    parser.addOption({"by-op", "after the figures, time per op type and kernel (an extra timed pass)"});
    if (auto status = parseArguments(parser, args)) return *status;
    if (parser.positionalArguments().size() != 1) return fail("bench takes exactly one MODEL argument");
    bool runsOk = false, warmupOk = false;
    const int runs = parser.value("runs").toInt(&runsOk);
    const int warmup = parser.value("warmup").toInt(&warmupOk);
    if (!runsOk || runs < 1 || !warmupOk || warmup < 0) return fail("--runs must be at least 1 and --warmup at least 0");
    auto model = loadOrReport(parser.positionalArguments()[0]);
    if (!model) return 1;
    const std::unique_ptr<Backend> backend = openBackend(parser, true);
    if (!backend) return 1;
    try {
        applyPassOption(*model, parser);
        const auto feeds = feedsFromOptions(*model, parser);
        const CompileOptions options = compileOptionsFor(parser, feeds);
        const auto compileStart = std::chrono::steady_clock::now();
        const std::unique_ptr<Plan> plan = backend->compile(*model, options);
        const double compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - compileStart).count();
        for (int i = 0; i < warmup; ++i) plan->run(feeds);
        std::vector<double> samples;
        for (int i = 0; i < runs; ++i) {
            const auto start = std::chrono::steady_clock::now();
            plan->run(feeds);
            samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        const SampleStats s = summarizeSamples(samples);
        int optimized = 0;
        int fallbacks = 0;
        std::map<std::string, int> reasons;  // nodes off the backend's own fast path, by why
        for (const PlannedNode& n : plan->nodes()) {
            optimized += n.kernel != "reference";
            fallbacks += backend->name() == "vulkan" && n.device == "cpu";
            if (!n.why.empty()) ++reasons[n.why];
        }
        const MemoryPlan& memory = plan->memoryPlan();
        if (parser.isSet("json")) {
            QJsonArray all;
            for (double v : samples) all.append(v);
            QJsonArray preparation;
            for (const std::string& step : plan->preparation()) preparation.append(QString::fromStdString(step));
            QJsonObject why;
            for (const auto& [reason, count] : reasons) why[QString::fromStdString(reason)] = count;
            const QJsonObject json{{"model", parser.positionalArguments()[0]}, {"backend", QString::fromStdString(backend->name())},
                                   {"runs", runs}, {"warmup", warmup}, {"threads", options.threads},
                                   {"min_ms", s.min}, {"median_ms", s.median}, {"max_ms", s.max},
                                   {"mean_ms", s.mean}, {"samples_ms", all}, {"compile_ms", compileMs},
                                   {"nodes", qint64(plan->nodes().size())}, {"optimized_nodes", optimized},
                                   {"cpu_fallback_nodes", fallbacks}, {"preparation", preparation},
                                   {"nodes_off_fast_path_by_why", why},
                                   {"cpu", QString::fromStdString(cpuBackendMachine())},
                                   {"arena_bytes", qint64(memory.arenaBytes)},
                                   {"naive_bytes", qint64(memory.naiveBytes)},
                                   {"lower_bound_bytes", qint64(memory.lowerBoundBytes)}};
            std::cout << QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString();
        } else {
            std::printf("%d runs after %d warm-up: min %.3f ms  median %.3f ms  max %.3f ms\n", runs, warmup, s.min,
                        s.median, s.max);
            for (const std::string& step : plan->preparation()) std::printf("prepared: %s\n", step.c_str());
            if (backend->name() == "vulkan")
                std::printf("plan: %zu nodes on vulkan, %d of them CPU fallbacks; compiled in %.1f ms\n",
                            plan->nodes().size(), fallbacks, compileMs);
            else
                std::printf("plan: %zu nodes, %d with optimized kernels (%s); compiled in %.1f ms\n",
                            plan->nodes().size(), optimized, cpuBackendMachine().c_str(), compileMs);
            if (parser.isSet("by-op")) {
                OpTimes times(model->graph, *plan);
                for (int i = 0; i < runs; ++i) plan->run(feeds, &times);
                times.print(runs);
            }
            std::printf("memory: arena %s, naive %s, lower bound %s\n",
                        humanCount(double(memory.arenaBytes), "B").toUtf8().constData(),
                        humanCount(double(memory.naiveBytes), "B").toUtf8().constData(),
                        humanCount(double(memory.lowerBoundBytes), "B").toUtf8().constData());
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return 0;
}

} // namespace graphlens::cli
