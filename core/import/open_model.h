// One entry point for every model format GraphLens opens: the format is sniffed from the file's
// first bytes and its extension, then the importer for it runs. ONNX, TF.js GraphModels and frozen
// TensorFlow GraphDefs import today; TFLite and Keras files are recognized and refused in a sentence.
#pragma once

#include "core/graph/model.h"
#include "core/onnx/loader.h"

#include <filesystem>
#include <string_view>

namespace graphlens {

enum class ModelFormat { Onnx, TfjsGraphModel, TfGraphDef, TfLite, Keras };

/// The format of `path` by content first (JSON, GraphDef's leading `node` field, the TFLite,
/// HDF5 and zip magic numbers), then by extension; ONNX when nothing else matches.
ModelFormat sniffModelFormat(const std::filesystem::path& path);

/// A human name of a format ("TF.js GraphModel").
std::string_view modelFormatName(ModelFormat format);

struct OpenOptions {
    LoadOptions onnx;  ///< checker and shape inference for ONNX files
};

/// Loads `path` in whatever supported format it is. Throws OnnxError (TfImportError for TF
/// files) with one sentence when it cannot.
Model openModel(const std::filesystem::path& path, const OpenOptions& options = {});

} // namespace graphlens
