// Per-node execution events: what a backend reports to the profiler while it runs a plan.
#pragma once

#include "core/graph/graph.h"

#include <cstdint>

namespace graphlens {

struct NodeEvent {
    NodeId node = kNoId;
    int64_t beginNs = 0;  ///< steady-clock (CPU) or device-timestamp (GPU) nanoseconds
    int64_t endNs = 0;
    uint64_t bytesRead = 0;
    uint64_t bytesWritten = 0;
    int track = 0;  ///< thread or queue the node ran on
};

/// Receives one event per executed node. Runs without an observer take no timestamps at all.
class ExecutionObserver {
public:
    virtual ~ExecutionObserver() = default;
    virtual void nodeFinished(const NodeEvent& event) = 0;
};

} // namespace graphlens
