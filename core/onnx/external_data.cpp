// Reading external tensor data safely: path containment, bounds checks, shared mappings.
#include "core/onnx/external_data.h"

#include "core/onnx/onnx_error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <optional>

namespace graphlens {

namespace fs = std::filesystem;

std::optional<fs::path> pathInsideFolder(const fs::path& dir, const std::string& relative) {
    const fs::path path(relative);
    bool escapes = relative.empty() || path.is_absolute() || path.has_root_name() || path.has_root_directory();
    for (const fs::path& part : path) escapes = escapes || part == "..";
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(dir, ec);
    const fs::path target = fs::weakly_canonical(root / path, ec);
    if (!escapes) {  // a symbolic link inside the folder can still point outside it
        auto [rootEnd, ignored] = std::mismatch(root.begin(), root.end(), target.begin(), target.end());
        escapes = ec || rootEnd != root.end();
    }
    if (escapes) return std::nullopt;
    return target;
}

ExternalDataReader::ExternalDataReader(fs::path modelDir) : modelDir_(std::move(modelDir)) {}

fs::path ExternalDataReader::resolve(const std::string& location, const std::string& label) const {
    if (modelDir_.empty())
        throw OnnxError(label + " keeps its data in an external file, which needs the model to be "
                                "loaded from a file");
    if (location.empty())
        throw OnnxError(label + " keeps its data in an external file but names no location");
    const auto target = pathInsideFolder(modelDir_, location);
    if (!target)
        throw OnnxError("the external data location '" + location + "' of " + label +
                        " points outside the model's folder");
    return *target;
}

std::shared_ptr<const MappedFile> ExternalDataReader::map(const fs::path& path,
                                                         const std::string& label) {
    if (auto it = files_.find(path); it != files_.end()) return it->second;
    try {
        auto file = MappedFile::open(path);
        files_.emplace(path, file);
        return file;
    } catch (const OnnxError& e) {
        throw OnnxError("the external data file '" + path.filename().string() + "' of " + label +
                        " cannot be read: " + e.what());
    }
}

namespace {

uint64_t parseUnsigned(const std::string& text, const std::string& key, const std::string& label) {
    uint64_t value = 0;
    if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
        throw OnnxError("the external data " + key + " '" + text + "' of " + label +
                        " is not a number");
    for (char c : text) value = value * 10 + uint64_t(c - '0');
    return value;
}

} // namespace

Tensor ExternalDataReader::read(const onnx::TensorProto& proto, DType dtype,
                                std::vector<int64_t> dims, uint64_t expectedBytes,
                                const std::string& label) {
    std::string location;
    uint64_t offset = 0;
    std::optional<uint64_t> length;
    for (const auto& entry : proto.external_data()) {
        if (entry.key() == "location") location = entry.value();
        else if (entry.key() == "offset") offset = parseUnsigned(entry.value(), "offset", label);
        else if (entry.key() == "length") length = parseUnsigned(entry.value(), "length", label);
    }
    const fs::path path = resolve(location, label);
    if (!fs::exists(path))
        throw OnnxError("the external data file '" + location + "' of " + label +
                        " does not exist in the model's folder");
    auto file = map(path, label);
    if (length && *length != expectedBytes)
        throw OnnxError(label + " declares " + std::to_string(*length) +
                        " bytes of external data but its shape and type need " +
                        std::to_string(expectedBytes));
    if (offset > file->size() || file->size() - offset < expectedBytes)
        throw OnnxError(label + " needs " + std::to_string(expectedBytes) + " bytes at offset " +
                        std::to_string(offset) + " of '" + location + "', which holds only " +
                        std::to_string(file->size()) + " bytes");
    const std::byte* bytes = file->data() ? file->data() + offset : nullptr;
    const size_t align = std::max<size_t>(1, size_t(dtypeBits(dtype) / 8));
    Tensor tensor;
    if (reinterpret_cast<uintptr_t>(bytes) % align != 0) {  // misaligned: copy once
        std::string copy(reinterpret_cast<const char*>(bytes), expectedBytes);
        tensor = Tensor::fromBytes(dtype, std::move(dims), std::move(copy));
    } else {
        tensor = Tensor::view(dtype, std::move(dims), bytes, expectedBytes, file);
    }
    tensor.setExternalOrigin({location, offset, expectedBytes});
    return tensor;
}

} // namespace graphlens
