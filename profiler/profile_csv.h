// Per-node profile statistics as CSV (RFC 4180: a header row, fields with commas, quotes or line
// breaks quoted), for spreadsheets and scripts.
#pragma once

#include "profiler/node_profile.h"

#include <string>
#include <vector>

namespace graphlens {

/// The header row names the columns: name, op, kernel, output_shape, median_ms, min_ms, max_ms,
/// share, flops (empty when unknown), gflops, intensity, bytes_read, bytes_written,
/// weight_bytes, output_bytes; then one row per node in the given order. Lines end in "\r\n".
std::string nodeProfileCsv(const std::vector<NodeProfile>& nodes);

/// `field` quoted when it holds a comma, a double quote or a line break (quotes doubled).
std::string csvField(const std::string& field);

} // namespace graphlens
