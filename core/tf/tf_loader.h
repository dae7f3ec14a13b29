// Loading TensorFlow models: TF.js GraphModels (model.json + weight shards) and frozen GraphDefs (.pb).
#pragma once

#include "core/graph/model.h"

#include <filesystem>
#include <string_view>

namespace graphlens::tf {

/// A TF.js GraphModel: `path` is its model.json; shards are read from the same folder.
Model loadTfjsModel(const std::filesystem::path& path);

/// A frozen TensorFlow GraphDef (binary protobuf, variables frozen into Const nodes).
Model loadFrozenGraph(const std::filesystem::path& path);

/// Whether `bytes` (the start of a file) look like a serialized GraphDef rather than an ONNX
/// ModelProto: GraphDef's first field is `node` (tag 0x0a), a ModelProto's is ir_version (0x08).
bool looksLikeGraphDef(std::string_view bytes);

} // namespace graphlens::tf
