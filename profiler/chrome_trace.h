// Chrome trace event JSON (the format chrome://tracing and Perfetto open) of node events.
#pragma once

#include "profiler/node_profile.h"
#include "profiler/profile_session.h"

#include <string>
#include <vector>

namespace graphlens {

/// {"traceEvents": [...], "displayTimeUnit": "ms"}: one complete ("X") event per node event, ts
/// and dur in microseconds from the first event, pid 1, tid track + 1, args op, kernel, run
/// (0-based, counted per node), input and output shapes; "M" events name the process
/// `processName` and each thread track. `nodes` describes every event's node. With `memory`
/// (a plan's steps), each event of a planned node also gets a counter ("C") event "live bytes" at
/// its start, args {"bytes": live arena bytes of that step}: Perfetto draws it as a memory track.
std::string chromeTraceJson(const std::vector<NodeEvent>& events, const std::vector<NodeProfile>& nodes,
                            const std::string& processName, const std::vector<MemoryStep>& memory = {});

} // namespace graphlens
