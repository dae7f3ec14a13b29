// Runs cut out of an event stream, and their bars.
#include "profiler/run_timeline.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace graphlens {

std::vector<std::vector<NodeEvent>> splitRuns(const std::vector<NodeEvent>& events) {
    std::vector<std::vector<NodeEvent>> runs;
    std::unordered_set<NodeId> seen;
    for (const NodeEvent& e : events) {
        if (runs.empty() || !seen.insert(e.node).second) {
            runs.emplace_back();
            seen = {e.node};
        }
        runs.back().push_back(e);
    }
    return runs;
}

double runSpanMs(const std::vector<NodeEvent>& run) {
    if (run.empty()) return 0;
    int64_t begin = run.front().beginNs, end = run.front().endNs;
    for (const NodeEvent& e : run) {
        begin = std::min(begin, e.beginNs);
        end = std::max(end, e.endNs);
    }
    return double(end - begin) / 1e6;
}

size_t medianRun(const std::vector<std::vector<NodeEvent>>& runs) {
    if (runs.empty()) return 0;
    std::vector<size_t> bySpan(runs.size());
    std::iota(bySpan.begin(), bySpan.end(), 0);
    std::vector<double> spans;
    for (const auto& run : runs) spans.push_back(runSpanMs(run));
    std::stable_sort(bySpan.begin(), bySpan.end(), [&](size_t a, size_t b) { return spans[a] < spans[b]; });
    return bySpan[(runs.size() - 1) / 2];
}

std::vector<TimelineBar> timelineBars(const std::vector<NodeEvent>& run, const std::vector<NodeProfile>& nodes) {
    std::unordered_map<NodeId, const NodeProfile*> profileOf;
    for (const NodeProfile& p : nodes) profileOf[p.node] = &p;
    int64_t origin = run.empty() ? 0 : run.front().beginNs;
    for (const NodeEvent& e : run) origin = std::min(origin, e.beginNs);
    std::vector<TimelineBar> bars;
    for (const NodeEvent& e : run) {
        const auto p = profileOf.find(e.node);
        TimelineBar bar;
        bar.node = e.node;
        bar.name = p != profileOf.end() ? p->second->name : "node " + std::to_string(e.node);
        if (p != profileOf.end()) bar.op = p->second->op;
        bar.track = e.track;
        bar.startMs = double(e.beginNs - origin) / 1e6;
        bar.durationMs = double(e.endNs - e.beginNs) / 1e6;
        bars.push_back(std::move(bar));
    }
    return bars;
}

} // namespace graphlens
