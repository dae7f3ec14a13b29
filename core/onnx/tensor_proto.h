// Conversion between onnx.TensorProto and Tensor, with the size checks a loader needs.
#pragma once

#include "core/graph/tensor.h"

#include <onnx/onnx_pb.h>

#include <memory>
#include <span>
#include <string>

namespace graphlens {

class ExternalDataReader;

/// Reads `proto` into a Tensor. Raw data is not copied: the tensor views it and keeps `owner`
/// (the parsed model that holds `proto`) alive. `label` names the tensor in error messages
/// ("initializer 'conv1.weight'"). Throws OnnxError for unknown types, negative or overflowing
/// dims, data that does not match the shape, and bad external data. `liftedRawData`, when not
/// empty, is the tensor's raw data, which the loader left in the file buffer `owner` instead of
/// `proto` (raw_data_split.h).
Tensor tensorFromProto(const onnx::TensorProto& proto, const std::shared_ptr<const void>& owner,
                       ExternalDataReader* external, const std::string& label,
                       std::span<const std::byte> liftedRawData = {});

/// Writes `tensor` into `proto` as raw_data (string_data for strings). Name is left to the caller.
void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto);

} // namespace graphlens
