// AtomicFile: mkstemp in the target's folder, write, fsync (unless told not to wait), rename.
#include "core/onnx/atomic_file.h"

#include "core/onnx/onnx_error.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/message_lite.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace graphlens {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(fs::path target) : target_(std::move(target)) {
    const fs::path dir = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
    std::string pattern = (dir / ("." + target_.filename().string() + ".tmp-XXXXXX")).string();
    fd_ = mkstemp(pattern.data());
    if (fd_ < 0) throw OnnxError("cannot write '" + target_.string() + "': " + std::strerror(errno));
    temp_ = pattern;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        ssize_t n = ::write(fd_, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail();
        p += n;
        size -= size_t(n);
    }
}

void AtomicFile::writeMessage(const google::protobuf::MessageLite& message) {
    google::protobuf::io::FileOutputStream stream(fd_);
    if (!message.SerializeToZeroCopyStream(&stream) || !stream.Flush()) fail();
}

void AtomicFile::commit(bool waitForDisk) {
    // Without waiting, the kernel writes the file back on its own schedule (within seconds).
    // Starting the write-back here (sync_file_range) was measured and dropped: submitting 210 MB
    // of dirty pages took 30-67 ms, as long as writing them, and left a crash in the seconds after
    // no safer, since the rename does not wait for it either.
    if (::fchmod(fd_, 0644) != 0 || (waitForDisk && ::fsync(fd_) != 0) || ::close(fd_) != 0) {
        fd_ = -1;
        fail();
    }
    fd_ = -1;
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) fail();
    committed_ = true;
}

void AtomicFile::fail() const {
    throw OnnxError("cannot write '" + target_.string() + "': " + std::strerror(errno));
}

} // namespace graphlens
