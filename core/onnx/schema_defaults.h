// Attribute defaults read from the ONNX operator schemas libonnx carries (and the com.microsoft
// ones contrib_schemas.cpp registers), so kernels and passes do not restate numbers such as
// LayerNormalization's epsilon or Softmax's axis, which change by op and by opset.
#pragma once

#include "core/graph/attribute.h"
#include "core/graph/op_key.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens {

/// The default the schema of `op` in force at `opset` gives attribute `name`; nullopt when there is
/// no such schema, attribute or default (opset 0: the latest schema). Float, int, string and
/// their lists are returned.
std::optional<Attribute> schemaDefault(const OpKey& op, int64_t opset, std::string_view name);

/// What the schema of `op` at `opset` requires that a node lacks, as a sentence: "the required
/// attribute 'axis' is missing" (the first attribute the schema requires that `attributes` lacks),
/// else "its required input 1 ('starts') is omitted" (the first input neither optional nor variadic
/// that `present[i]` says is not given); nullopt when nothing is missing or there is no such
/// schema. One schema lookup: validation asks this of every node of a model, twice.
std::optional<std::string> missingRequiredArgument(const OpKey& op, int64_t opset, const Attributes& attributes,
                                                   const std::vector<bool>& present);

/// Attribute `name` as the node gives it, else the schema default at `opset`, else the newest
/// schema's (for ops models use before ONNX took them in, as ONNX Runtime allows). Throws
/// std::invalid_argument when none exists: the caller asked for an attribute without a default.
float floatAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset, std::string_view name);
int64_t intAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset, std::string_view name);
std::string stringAttributeOrDefault(const Attributes& attributes, const OpKey& op, int64_t opset,
                                     std::string_view name);

} // namespace graphlens
