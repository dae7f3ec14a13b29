// Tensors on disk as single onnx.TensorProto files (input_0.pb, output_0.pb): the layout of the
// ONNX backend test data, used by `graphlens run` and the conformance runner.
#pragma once

#include "core/graph/tensor.h"

#include <filesystem>
#include <string>

namespace graphlens {

/// Reads a TensorProto file; `name` receives the tensor's name when not null. Throws OnnxError.
Tensor readTensorFile(const std::filesystem::path& path, std::string* name = nullptr);

/// Reads the value file of a model input or output whose type is `opaqueType` (Value::opaqueType:
/// a serialized TypeProto of a sequence or an optional; empty for a tensor, a TensorProto file):
/// a SequenceProto or an OptionalProto file, as the ONNX backend test data writes them, into
/// Tensor::sequence() or Tensor::optional(). Throws OnnxError.
Tensor readValueFile(const std::filesystem::path& path, const std::string& opaqueType);

/// Writes `tensor` as a TensorProto named `name` (a sequence as a SequenceProto, an optional as
/// an OptionalProto, as readValueFile reads them), atomically. Throws OnnxError.
void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name);

} // namespace graphlens
