// ONNX external data: tensors whose bytes live in files next to the model. Locations are checked
// so nothing outside the model's folder is ever read, and files are memory-mapped, not copied.
#pragma once

#include "core/graph/tensor.h"
#include "core/onnx/mapped_file.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace graphlens {

/// `relative` resolved inside `dir`, or nothing when it names a place outside it: an absolute path,
/// a `..` part, or a symbolic link inside the folder that points out. Shared by every format that
/// keeps data in files beside the model (ONNX external data, TF.js weight shards).
std::optional<std::filesystem::path> pathInsideFolder(const std::filesystem::path& dir, const std::string& relative);

class ExternalDataReader {
public:
    /// `modelDir` is the folder of the model file; empty for a model that came from memory.
    explicit ExternalDataReader(std::filesystem::path modelDir);

    /// The tensor described by `proto` (whose data_location is EXTERNAL), viewing mapped bytes.
    /// Throws OnnxError naming `label` when the location escapes the folder, the file is missing,
    /// or offset/length do not fit the file or the tensor's shape.
    Tensor read(const onnx::TensorProto& proto, DType dtype, std::vector<int64_t> dims,
                uint64_t expectedBytes, const std::string& label);

private:
    std::filesystem::path resolve(const std::string& location, const std::string& label) const;
    std::shared_ptr<const MappedFile> map(const std::filesystem::path& path,
                                          const std::string& label);

    std::filesystem::path modelDir_;
    std::map<std::filesystem::path, std::shared_ptr<const MappedFile>> files_;
};

} // namespace graphlens
