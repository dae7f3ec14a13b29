// Value types between onnx.ValueInfoProto / TypeProto and the IR's dtype + Shape.
#pragma once

#include "core/graph/graph.h"

#include <onnx/onnx_pb.h>

namespace graphlens {

/// Copies the element type and shape of `info` into `value` and marks it declared. With
/// `onlyIfMoreKnown`, a known type or shape already on the value is kept unless `info` knows more.
void applyValueInfo(const onnx::ValueInfoProto& info, Value& value, bool onlyIfMoreKnown = false);

/// Writes `value`'s name and type into `info`.
void valueToValueInfo(const Value& value, onnx::ValueInfoProto& info);

} // namespace graphlens
