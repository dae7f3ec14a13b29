// MappedFile: open + fstat + mmap, with errors as OnnxError sentences.
#include "core/onnx/mapped_file.h"

#include "core/onnx/onnx_error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace graphlens {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw OnnxError(std::string("cannot open the file: ") + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw OnnxError("it is not a regular file");
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->size_ = static_cast<size_t>(st.st_size);
    if (file->size_ > 0) {
        void* addr = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            throw OnnxError(std::string("cannot map the file: ") + std::strerror(err));
        }
        file->data_ = static_cast<const std::byte*>(addr);
    }
    ::close(fd);
    return file;
}

MappedFile::~MappedFile() {
    if (data_) munmap(const_cast<std::byte*>(data_), size_);
}

void MappedFile::adviseSequential() const {
    if (data_) madvise(const_cast<std::byte*>(data_), size_, MADV_SEQUENTIAL);
}

} // namespace graphlens
