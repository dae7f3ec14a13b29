// Per-node figures of a profile: time statistics over repeated runs of the same node, and what
// the graph says about the node (shapes, FLOPs, weight and output bytes). Built from execution
// events, whether our own sessions recorded them or an ONNX Runtime profile was imported.
#pragma once

#include "core/runtime/observer.h"
#include "profiler/statistics.h"

#include <optional>
#include <string>
#include <vector>

namespace graphlens {

struct NodeProfile {
    NodeId node = kNoId;
    std::string name;    ///< the node's name, its op type when it has none
    std::string op;      ///< op type, "domain:Op" outside the default domain
    std::string kernel;  ///< how the backend ran it ("onednn:conv", ...); empty when unknown
    std::string device;  ///< where it ran: "cpu" or "vulkan"; empty when unknown
    /// Why it ran there on that kernel and not the backend's own fast path (PlannedNode::why).
    std::string why;
    std::vector<std::string> inputShapes;  ///< "[1,3,224,224]" per input, "" for an omitted one
    std::string outputShape;               ///< the first output's
    SampleStats ms;                        ///< time per run
    double share = 0;                      ///< ms.median over the sum of every node's median
    std::optional<int64_t> flops;
    uint64_t bytesRead = 0;     ///< inputs, weights included, as the backend reported them
    uint64_t bytesWritten = 0;  ///< outputs, as the backend reported them
    uint64_t weightBytes = 0;   ///< inputs that are initializers or constants
    uint64_t outputBytes = 0;   ///< outputs from their static shapes (bytesWritten without them)
    int track = 0;              ///< thread or queue the node ran on

    /// Achieved GFLOP/s at the median time; 0 without a FLOP count or a time.
    double gflops() const;
    /// FLOPs per byte read or written; 0 without a FLOP count or bytes.
    double arithmeticIntensity() const;
};

/// The op as profiles show it: the op type, "domain:Op" outside the default domain.
std::string opLabel(const Node& node);
/// The node's name, its op type when it has none.
std::string displayName(const Node& node);

/// Bytes of `node`'s outputs from their static shapes (0 for outputs without one).
uint64_t nodeOutputBytes(const Graph& graph, const Node& node);

/// Whether the backend ran the node inside another node's kernel (its kernel reads "fused into
/// ...", PlannedNode::fusedInto): its time is counted in that node's, and it has none of its own.
bool fusedAway(const NodeProfile& p);

/// One NodeProfile per node that has events, in the order nodes first appear in `events`; each
/// event of a node is one sample of its time. Static figures come from `graph` (which holds
/// every event's node), shares sum to 1.
std::vector<NodeProfile> profileNodes(const Graph& graph, const std::vector<NodeEvent>& events);

/// Sum of the nodes' median times, in ms.
double sumOfMedians(const std::vector<NodeProfile>& nodes);

/// How much slower runs with an observer are, in percent of runs without one.
double observerOverheadPercent(double observedMedianMs, double plainMedianMs);

} // namespace graphlens
