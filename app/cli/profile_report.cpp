// Text and JSON of profiles.
#include "app/cli/profile_report.h"

#include "app/cli/model_report.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace graphlens::cli {
namespace {

std::string format(const char* pattern, auto... args) {
    char line[512];
    std::snprintf(line, sizeof line, pattern, args...);
    return line;
}

/// `text` cut to `width` characters, keeping its end (where node names differ), "..." marking the cut.
std::string fit(const std::string& text, size_t width) {
    return text.size() <= width ? text : "..." + text.substr(text.size() - (width - 3));
}

std::string bytes(uint64_t n) { return humanCount(double(n), "B").toStdString(); }

QJsonArray numbers(const auto& values) {
    QJsonArray array;
    for (auto v : values) array.append(double(v));
    return array;
}

} // namespace

std::string hotspotTable(const std::vector<NodeProfile>& nodes, int rows) {
    std::vector<const NodeProfile*> order;
    for (const NodeProfile& p : nodes) order.push_back(&p);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->ms.median > b->ms.median; });
    order.resize(std::min(order.size(), size_t(std::max(rows, 0))));
    std::string text = format("hotspots (top %zu of %zu nodes by median time):\n", order.size(), nodes.size());
    text += format("  %-40s %-24s %-18s %10s %7s %9s\n", "node", "op", "output shape", "median ms", "share", "GFLOP/s");
    for (const NodeProfile* p : order)
        text += format("  %-40s %-24s %-18s %10.3f %6.1f%% %9s\n", fit(p->name, 40).c_str(), fit(p->op, 24).c_str(),
                       fit(p->outputShape, 18).c_str(), p->ms.median, 100 * p->share,
                       p->flops ? format("%.1f", p->gflops()).c_str() : "-");
    return text;
}

std::string sessionSummary(const ProfileResult& r) {
    const double ratio = r.runMs.median > 0 ? 100 * r.nodeMedianSumMs / r.runMs.median : 0;
    return format("whole run: median %.3f ms (min %.3f, max %.3f) over %d runs without the observer\n", r.runMs.median,
                  r.runMs.min, r.runMs.max, r.runs) +
           format("process CPU time per run: median %.3f ms (%.0f%% of the wall-clock median)\n", r.runCpuMs.median,
                  r.runMs.median > 0 ? 100 * r.runCpuMs.median / r.runMs.median : 0) +
           format("sum of node medians: %.3f ms (%.1f%% of the whole-run median)\n", r.nodeMedianSumMs, ratio) +
           format("observer overhead: %+.2f%% (median %.3f ms with per-node events)\n", r.overheadPercent,
                  r.observedRunMs.median) +
           "memory: arena " + bytes(r.memory.arenaBytes) + ", naive " + bytes(r.memory.naiveBytes) + ", lower bound " +
           bytes(r.memory.lowerBoundBytes) + "\n";
}

std::string importSummary(const OrtProfileImport& import, const std::vector<NodeProfile>& nodes) {
    std::string text = format("mapped %zu of %zu ONNX Runtime node events onto the graph (%.1f%%)\n",
                              import.mappedEvents, import.nodeEvents, 100 * import.mappedFraction());
    if (!import.unmappedNames.empty()) {
        text += "unmapped:";
        for (size_t i = 0; i < import.unmappedNames.size() && i < 10; ++i) text += " " + import.unmappedNames[i];
        if (import.unmappedNames.size() > 10) text += format(" (and %zu more)", import.unmappedNames.size() - 10);
        text += "\n";
    }
    const SampleStats run = summarizeSamples(import.runMs);
    text += format("whole run: median %.3f ms over %zu runs; sum of node medians %.3f ms\n", run.median, run.count,
                   sumOfMedians(nodes));
    return text;
}

QJsonArray nodesJson(const std::vector<NodeProfile>& nodes) {
    QJsonArray array;
    for (const NodeProfile& p : nodes)
        array.append(QJsonObject{{"name", QString::fromStdString(p.name)}, {"op", QString::fromStdString(p.op)},
                                 {"kernel", QString::fromStdString(p.kernel)},
                                 {"device", QString::fromStdString(p.device)},
                                 {"why", QString::fromStdString(p.why)},
                                 {"output_shape", QString::fromStdString(p.outputShape)},
                                 {"median_ms", p.ms.median}, {"min_ms", p.ms.min}, {"max_ms", p.ms.max},
                                 {"share", p.share},
                                 {"flops", p.flops ? QJsonValue(qint64(*p.flops)) : QJsonValue()},
                                 {"gflops", p.gflops()}, {"intensity", p.arithmeticIntensity()},
                                 {"bytes_read", qint64(p.bytesRead)}, {"bytes_written", qint64(p.bytesWritten)},
                                 {"weight_bytes", qint64(p.weightBytes)}, {"output_bytes", qint64(p.outputBytes)}});
    return array;
}

QJsonObject sessionJson(const ProfileResult& r) {
    return {{"median_ms", r.runMs.median}, {"min_ms", r.runMs.min}, {"max_ms", r.runMs.max},
            {"observed_median_ms", r.observedRunMs.median},
            {"cpu_median_ms", r.runCpuMs.median}, {"overhead_percent", r.overheadPercent},
            {"node_median_sum_ms", r.nodeMedianSumMs}, {"arena_bytes", qint64(r.memory.arenaBytes)},
            {"naive_bytes", qint64(r.memory.naiveBytes)}, {"lower_bound_bytes", qint64(r.memory.lowerBoundBytes)},
            {"live_bytes", numbers(r.memory.liveBytes)}, {"runs", r.runs}, {"nodes", nodesJson(r.nodes)}};
}

QJsonObject importJson(const OrtProfileImport& import, const std::vector<NodeProfile>& nodes) {
    QJsonArray unmapped;
    for (const std::string& name : import.unmappedNames) unmapped.append(QString::fromStdString(name));
    return {{"median_ms", summarizeSamples(import.runMs).median}, {"node_median_sum_ms", sumOfMedians(nodes)},
            {"node_events", qint64(import.nodeEvents)}, {"mapped_events", qint64(import.mappedEvents)},
            {"mapped_fraction", import.mappedFraction()}, {"unmapped_names", unmapped}, {"nodes", nodesJson(nodes)}};
}

std::string comparisonTable(const ProfileComparison& c) {
    std::string text = format("before vs after, per original node (a fused node's time split by its original nodes' "
                              "FLOPs; speedup per group):\n");
    text += format("  %-40s %-20s %10s %10s %6s %8s  %s\n", "node", "op", "before ms", "after ms", "group", "speedup", "now");
    for (size_t i = 0; i < c.origins.size(); ++i) {
        const OriginCost& row = c.origins[i];
        const CostGroup& group = c.groups[row.group];
        const bool firstOfGroup = i == 0 || c.origins[i - 1].group != row.group;  // the group's figures once
        std::string now = group.afterLabels.empty() ? "-" : group.afterLabels.front();
        if (group.afterLabels.size() > 1) now += format(" +%zu more", group.afterLabels.size() - 1);
        text += format("  %-40s %-20s %10.3f %10.3f %6zu %8s  %s\n", fit(row.name, 40).c_str(), fit(row.op, 20).c_str(),
                       row.beforeMs, row.afterMs, row.group + 1, firstOfGroup ? speedupText(group.speedup()).c_str() : "",
                       firstOfGroup ? now.c_str() : "");
    }
    return text;
}

std::string comparisonSummary(const ProfileComparison& c) {
    const double arenaChange = c.beforeArenaBytes ? 100.0 * (double(c.afterArenaBytes) - double(c.beforeArenaBytes)) / double(c.beforeArenaBytes) : 0;
    return format("total speedup %.2fx (median %.3f ms -> %.3f ms); nodes %.3f ms -> %.3f ms; arena ", c.speedup(),
                  c.beforeRunMs, c.afterRunMs, c.beforeNodeSumMs, c.afterNodeSumMs) +
           bytes(c.beforeArenaBytes) + " -> " + bytes(c.afterArenaBytes) + format(" (%+.1f%%)\n", arenaChange);
}

QJsonObject comparisonJson(const ProfileComparison& c) {
    auto speedup = [](double s) { return std::isfinite(s) ? QJsonValue(s) : QJsonValue(); };
    QJsonArray nodes, groups;
    for (const OriginCost& row : c.origins)
        nodes.append(QJsonObject{{"name", QString::fromStdString(row.name)}, {"op", QString::fromStdString(row.op)},
                                 {"before_ms", row.beforeMs}, {"after_ms", row.afterMs}, {"group", qint64(row.group)},
                                 {"speedup", speedup(c.groups[row.group].speedup())}});
    std::vector<QJsonArray> originsOf(c.groups.size());
    for (const OriginCost& row : c.origins) originsOf[row.group].append(QString::fromStdString(row.name));
    for (size_t i = 0; i < c.groups.size(); ++i) {
        const CostGroup& g = c.groups[i];
        QJsonArray after;
        for (const std::string& label : g.afterLabels) after.append(QString::fromStdString(label));
        groups.append(QJsonObject{{"nodes", originsOf[i]}, {"after_nodes", after}, {"before_ms", g.beforeMs},
                                  {"after_ms", g.afterMs}, {"speedup", speedup(g.speedup())}});
    }
    return {{"speedup", c.speedup()}, {"median_ms_before", c.beforeRunMs}, {"median_ms_after", c.afterRunMs},
            {"node_median_sum_ms_before", c.beforeNodeSumMs}, {"node_median_sum_ms_after", c.afterNodeSumMs},
            {"arena_bytes_before", qint64(c.beforeArenaBytes)}, {"arena_bytes_after", qint64(c.afterArenaBytes)},
            {"nodes", nodes}, {"groups", groups}};
}

} // namespace graphlens::cli
