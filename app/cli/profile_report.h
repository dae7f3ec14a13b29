// What `graphlens profile` prints: the hotspot table and summary, and the JSON document, for a
// session of our own or an imported ONNX Runtime profile.
#pragma once

#include "profiler/ort_profile.h"
#include "profiler/profile_compare.h"
#include "profiler/profile_session.h"

#include <QJsonArray>
#include <QJsonObject>

#include <optional>
#include <string>

namespace graphlens::cli {

/// The top `rows` nodes by median time: node, op, output shape, median ms, share %, GFLOP/s.
std::string hotspotTable(const std::vector<NodeProfile>& nodes, int rows);

/// Whole-run median and CPU time, sum of node medians and their ratio, observer overhead, memory.
std::string sessionSummary(const ProfileResult& result);

/// Mapped fraction, unmapped names, whole-run median (ORT's model_run events) and node sum.
std::string importSummary(const OrtProfileImport& import, const std::vector<NodeProfile>& nodes);

/// One object per node: name, op, kernel, output_shape, median_ms, min_ms, max_ms, share, flops
/// (null when unknown), gflops, intensity, bytes_read, bytes_written, weight_bytes, output_bytes.
QJsonArray nodesJson(const std::vector<NodeProfile>& nodes);

/// median_ms (whole run), min_ms, max_ms, observed_median_ms, cpu_median_ms, overhead_percent,
/// node_median_sum_ms, arena_bytes, naive_bytes, lower_bound_bytes, live_bytes, runs, nodes.
QJsonObject sessionJson(const ProfileResult& result);

/// median_ms (ORT's model_run), node_median_sum_ms, node_events, mapped_events,
/// mapped_fraction, unmapped_names, nodes.
QJsonObject importJson(const OrtProfileImport& import, const std::vector<NodeProfile>& nodes);

/// Per original node, in execution order: node, op, before ms, after ms (its folded share),
/// group, the group's speedup, and the after nodes the group became.
std::string comparisonTable(const ProfileComparison& comparison);

/// "total speedup 1.23x (median 2.000 ms -> 1.626 ms); nodes 1.900 ms -> 1.500 ms; arena
/// 196.61 kB -> 131.07 kB (-33.3%)", one line.
std::string comparisonSummary(const ProfileComparison& comparison);

/// speedup, median_ms_before, median_ms_after, node_median_sum_ms_before/after,
/// arena_bytes_before/after, nodes (name, op, before_ms, after_ms, group, speedup: null when
/// removed), groups (nodes, after_nodes, before_ms, after_ms, speedup).
QJsonObject comparisonJson(const ProfileComparison& comparison);

} // namespace graphlens::cli
