// Re-running ONNX shape inference for concrete input shapes (a batch size for a symbolic dim,
// another image size), so a plan knows every intermediate shape before it runs.
#pragma once

#include "core/graph/model.h"

#include <map>
#include <string>
#include <vector>

namespace onnx { class ModelProto; }

namespace graphlens {

/// ONNX shape inference on `proto` in place, with data propagation (Shape -> Gather -> Reshape
/// chains). `strict` also fails on node-level errors. Throws OnnxError with libonnx's first line.
void runOnnxShapeInference(onnx::ModelProto& proto, bool strict);

/// Sets the main graph's input shapes of `model` to `inputShapes` and replaces every inferred
/// intermediate and output shape accordingly. Weights are not copied: large initializers travel
/// as shapes only. Throws OnnxError when ONNX shape inference fails.
void inferShapesForInputs(Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes);

} // namespace graphlens
