// Writing the graph IR back to ONNX, atomically (temp file + rename), with external data where
// the model had it or needs it (over 2 GiB).
#pragma once

#include "core/graph/model.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace onnx { class ModelProto; }

namespace graphlens {

struct SaveOptions {
    enum class ExternalData { Auto, Never, Always };
    /// Auto: external when the loaded model used it, or when the model would exceed 2 GiB.
    ExternalData externalData = ExternalData::Auto;
    /// Tensors smaller than this stay inside the model file even when data goes external.
    uint64_t externalThresholdBytes = 1024;
    /// Write the shapes inferred on load as value_info (off: only what the file declared).
    bool writeInferredShapes = false;
    /// Initializers larger than this are written with type and dims but no data (for tools that
    /// only need shapes, such as shape inference); the file is then not a complete model.
    uint64_t omitDataAboveBytes = UINT64_MAX;
    /// Wait until the files are on the disk (fsync) before renaming them into place. Off: the
    /// rename does not wait for the disk, as onnx.save and ONNX Runtime write models (the kernel
    /// writes the file back within seconds); readers still never see half a file, but a crash in
    /// the seconds after can leave a new file empty.
    bool waitForDisk = true;
};

/// Converts `model` to a ModelProto; tensors are copied in (raw_data).
void modelToProto(const Model& model, onnx::ModelProto& proto, const SaveOptions& options = {});

/// Serializes to bytes (no external data).
std::string serializeModel(const Model& model, const SaveOptions& options = {});

/// Writes `model` to `path`; external data goes to "<stem>.data" beside it. Both files are
/// written to temporary names and renamed into place. Throws OnnxError on failure.
void saveModel(const Model& model, const std::filesystem::path& path, const SaveOptions& options = {});

} // namespace graphlens
