// Chrome trace event JSON (the format chrome://tracing and Perfetto open) of node events.
#pragma once

#include "profiler/node_profile.h"

#include <string>
#include <vector>

namespace graphlens {

/// {"traceEvents": [...], "displayTimeUnit": "ms"}: one complete ("X") event per node event, ts
/// and dur in microseconds from the first event, pid 1, tid track + 1, args op, kernel, run
/// (0-based, counted per node), input and output shapes; "M" events name the process
/// `processName` and each thread track. `nodes` describes every event's node.
std::string chromeTraceJson(const std::vector<NodeEvent>& events, const std::vector<NodeProfile>& nodes,
                            const std::string& processName);

} // namespace graphlens
