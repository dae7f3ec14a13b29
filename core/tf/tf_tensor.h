// TensorFlow's element types, shapes and TensorProtos converted to the IR's DType, Shape and Tensor.
#pragma once

#include "core/graph/shape.h"
#include "core/graph/tensor.h"
#include "core/tf/tf_graph.pb.h"

#include <optional>
#include <string>

namespace graphlens::tf {

/// The IR type of a TensorFlow DataType (reference types read as their value type); nullopt for
/// types the IR has no equivalent of (resource, variant, quantized).
std::optional<DType> dtypeFromTf(int dataType);

/// The TensorFlow spelling of a DataType ("DT_FLOAT"), for messages.
std::string tfTypeName(int dataType);

/// The shape of `proto`; unknown sizes (-1) become symbolic dims named `symbolPrefix` + index.
Shape shapeFromTf(const TensorShapeProto& proto, const std::string& symbolPrefix);

/// The static sizes of `proto`; throws TfImportError naming `label` when one is unknown or negative.
std::vector<int64_t> staticSizes(const TensorShapeProto& proto, const std::string& label);

/// The tensor `proto` holds: tensor_content as raw little-endian bytes, or the typed value lists,
/// where fewer values than elements repeat the last one (TensorFlow's rule; none at all is zeros).
/// Throws TfImportError naming `label` for unknown types and data that does not fit the shape.
Tensor tensorFromTf(const TensorProto& proto, const std::string& label);

} // namespace graphlens::tf
