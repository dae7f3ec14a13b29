// Huge-page backed buffers and the slab that carves tensors out of them.
#include "core/graph/large_buffer.h"

#include "core/graph/shape.h"

#include <sys/mman.h>

#include <new>
#include <stdexcept>

namespace graphlens {
namespace {

constexpr size_t kHugePage = size_t(2) << 20;
/// Below this a request is left to operator new: a mapping per small tensor costs more than it saves.
constexpr size_t kMapThreshold = size_t(1) << 20;

} // namespace

std::shared_ptr<std::byte> allocateLargeBuffer(size_t bytes) {
    if (bytes < kMapThreshold) {
        auto* raw = static_cast<std::byte*>(::operator new(std::max<size_t>(bytes, 1), std::align_val_t{64}));
        std::memset(raw, 0, bytes);
        return {raw, [](std::byte* p) { ::operator delete(p, std::align_val_t{64}); }};
    }
    const size_t mapped = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    // Over-map by one huge page so the buffer can start on a 2 MiB boundary, where the kernel
    // can back it with huge pages from its first byte.
    void* addr = mmap(nullptr, mapped + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (addr == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<std::byte*>(addr);
    const size_t lead = (kHugePage - reinterpret_cast<uintptr_t>(base) % kHugePage) % kHugePage;
    if (lead) munmap(base, lead);
    if (kHugePage - lead) munmap(base + lead + mapped, kHugePage - lead);
    std::byte* start = base + lead;
    madvise(start, mapped, MADV_HUGEPAGE);  // advice only: where it is refused, 4 KiB pages serve
    return {start, [mapped](std::byte* p) { munmap(p, mapped); }};
}

std::shared_ptr<const void> writableRegion(std::shared_ptr<std::byte> block, std::byte* at) {
    return std::shared_ptr<std::byte>(at, WritableRegion{std::move(block)});
}

std::byte* exclusivelyHeldBytes(const Tensor& tensor, long holders) {
    const std::shared_ptr<const std::byte> storage = tensor.sharedStorage();  // one more holder
    if (!storage || !std::get_deleter<WritableRegion>(storage) || storage.use_count() != holders + 1) return nullptr;
    return tensor.mutableData();
}

Tensor TensorSlab::allocate(DType type, std::vector<int64_t> dims) {
    const int64_t count = checkedElementCount(dims).value_or(-1);
    if (type == DType::String || count < 0) return Tensor::allocate(type, std::move(dims));
    const int bits = dtypeBits(type);
    if (bits > 8 && uint64_t(count) > UINT64_MAX / uint64_t(bits / 8)) return Tensor::allocate(type, std::move(dims));
    const size_t bytes = dtypeStorageBytes(type, uint64_t(count));
    const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    if (rounded > blockBytes_ / 4) {  // a big tensor gets a buffer of its own
        auto buffer = allocateLargeBuffer(bytes);
        std::byte* data = buffer.get();
        return Tensor::view(type, std::move(dims), data, bytes, std::move(buffer));
    }
    if (!block_ || used_ + rounded > blockSize_) {
        block_ = allocateLargeBuffer(blockBytes_);
        blockSize_ = blockBytes_;
        used_ = 0;
    }
    std::byte* data = block_.get() + used_;
    used_ += rounded;
    return Tensor::view(type, std::move(dims), data, bytes, block_);
}

} // namespace graphlens
