// Loading ONNX models into the graph IR: parse, validate, check, infer shapes.
#pragma once

#include "core/graph/model.h"

#include <filesystem>
#include <string_view>

namespace graphlens {

struct LoadOptions {
    bool runChecker = true;      ///< the ONNX checker; its findings become Model::warnings
    bool inferShapes = true;     ///< ONNX shape inference; results fill Value::dtype/shape
};

/// Loads `path`. Raw tensor data is not copied out of the parsed file, and external data is
/// memory-mapped. Throws OnnxError with one sentence for files that are not valid models.
Model loadModel(const std::filesystem::path& path, const LoadOptions& options = {});

/// Loads a serialized ModelProto held in memory; external data resolves against `baseDir`
/// (none allowed when it is empty).
Model loadModelFromBytes(std::string_view bytes, const std::filesystem::path& baseDir = {},
                         const LoadOptions& options = {});

} // namespace graphlens
