// One run of a profile laid out in time: the recorded events split into runs, the run to show
// (the median one) and one bar per executed node, what a timeline view draws.
#pragma once

#include "profiler/node_profile.h"

#include <string>
#include <vector>

namespace graphlens {

struct TimelineBar {
    NodeId node = kNoId;
    std::string name;
    std::string op;
    int track = 0;          ///< thread or queue, as in the trace
    double startMs = 0;     ///< from the run's first event
    double durationMs = 0;
};

/// `events` (run after run, as a session records them) cut into runs: a run ends where a node
/// it already holds comes again.
std::vector<std::vector<NodeEvent>> splitRuns(const std::vector<NodeEvent>& events);

/// Milliseconds from a run's first begin to its last end; 0 for an empty run.
double runSpanMs(const std::vector<NodeEvent>& run);

/// The index of the run whose span is the median of `runs` (the lower middle for an even count).
size_t medianRun(const std::vector<std::vector<NodeEvent>>& runs);

/// One bar per event of `run`, in execution order (the order the events were recorded), with
/// names and ops from `nodes` (the node id in words where a node has no profile).
std::vector<TimelineBar> timelineBars(const std::vector<NodeEvent>& run, const std::vector<NodeProfile>& nodes);

} // namespace graphlens
