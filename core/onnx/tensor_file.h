// Tensors on disk as single onnx.TensorProto files (input_0.pb, output_0.pb): the layout of the
// ONNX backend test data, used by `graphlens run` and the conformance runner.
#pragma once

#include "core/graph/tensor.h"

#include <filesystem>
#include <string>

namespace graphlens {

/// Reads a TensorProto file; `name` receives the tensor's name when not null. Throws OnnxError.
Tensor readTensorFile(const std::filesystem::path& path, std::string* name = nullptr);

/// Writes `tensor` as a TensorProto named `name`, atomically. Throws OnnxError.
void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name);

} // namespace graphlens
