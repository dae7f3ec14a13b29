// Import of ONNX Runtime profiles (the JSON an InferenceSession writes with profiling enabled):
// node events are mapped onto graph nodes by name, so an ORT run profiles like our own.
#pragma once

#include "core/graph/graph.h"
#include "core/runtime/observer.h"

#include <string>
#include <vector>

namespace graphlens {

struct OrtProfileImport {
    /// One event per mapped "<node>_kernel_time" event, in file order (µs turned into ns);
    /// bytes read are ORT's activation_size + parameter_size, bytes written its output_size.
    std::vector<NodeEvent> events;
    size_t nodeEvents = 0;    ///< events of category "Node" (kernel times and fences)
    size_t mappedEvents = 0;  ///< those whose node name is a node of the graph
    std::vector<std::string> unmappedNames;  ///< node names not in the graph, sorted, once each
    std::vector<double> runMs;  ///< whole runs: the "model_run" session events, in ms

    double mappedFraction() const { return nodeEvents ? double(mappedEvents) / double(nodeEvents) : 0; }
};

/// The node name in an ORT event name: "conv1_kernel_time" -> "conv1" (also "_fence_before",
/// "_fence_after"); other names are returned as they are.
std::string ortNodeName(const std::string& eventName);

/// Reads profile JSON text (a list of trace events). Throws std::runtime_error with one
/// sentence when the text is not such a list.
OrtProfileImport importOrtProfile(const std::string& json, const Graph& graph);

} // namespace graphlens
