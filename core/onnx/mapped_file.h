// A read-only memory mapping of a whole file, shared by whoever views its bytes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>

namespace graphlens {

class MappedFile {
public:
    /// Maps `path`; throws OnnxError "cannot open ..." / "... is not a regular file".
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    /// Tells the kernel the bytes will be read once, front to back.
    void adviseSequential() const;

private:
    MappedFile() = default;
    const std::byte* data_ = nullptr;
    size_t size_ = 0;
};

} // namespace graphlens
