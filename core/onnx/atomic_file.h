// Files written under a temporary name in the target's folder and renamed into place on commit,
// so a reader never sees half a file and a failed write leaves nothing behind.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace google::protobuf { class MessageLite; }

namespace graphlens {

class AtomicFile {
public:
    /// Creates the temporary file next to `target`; throws OnnxError "cannot write '...': ...".
    explicit AtomicFile(std::filesystem::path target);
    ~AtomicFile();  ///< removes the temporary file unless committed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t size);
    /// Serializes `message` into the file.
    void writeMessage(const google::protobuf::MessageLite& message);
    /// Flushes to disk and renames the file into place; with `waitForDisk` false, renames without
    /// waiting for the disk (the kernel writes the file back later, as after onnx.save).
    void commit(bool waitForDisk = true);
    [[noreturn]] void fail() const;

private:
    std::filesystem::path target_;
    std::string temp_;
    int fd_ = -1;
    bool committed_ = false;
};

} // namespace graphlens
