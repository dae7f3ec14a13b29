// Storage for big tensors and whole model files: anonymous memory the kernel is asked to back with
// transparent huge pages. Touching 200 MB of 4 KiB pages costs 50,000 page faults and as many TLB
// misses (seconds inside a virtual machine with shadow paging); 2 MiB pages cost a hundred.
#pragma once

#include "core/graph/tensor.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace graphlens {

/// `bytes` of zero-filled memory, page aligned, released when the last owner goes. Large requests
/// are mapped on their own and advised for huge pages; throws std::bad_alloc when none is left.
std::shared_ptr<std::byte> allocateLargeBuffer(size_t bytes);

/// Storage that tensors may view and that whoever holds it alone may overwrite (the loader's copy
/// of a file's weights): the deleter of a per-tensor owner, which keeps the shared `block` alive.
/// Each region has an owner of its own, so the use count of a tensor's storage counts exactly the
/// tensors (and copies of models) that view that region.
struct WritableRegion {
    std::shared_ptr<std::byte> block;
    void operator()(std::byte*) const {}
};

/// An owner for the bytes at `at` inside `block`, marked as writable (see WritableRegion).
std::shared_ptr<const void> writableRegion(std::shared_ptr<std::byte> block, std::byte* at);

/// `tensor`'s bytes, writable, when its storage is a WritableRegion that nothing holds but
/// `holders` tensors (the caller knows which: the graph's initializer and its own copy); nullptr
/// otherwise (storage shared with another value or a snapshot of the model, read-only mappings).
std::byte* exclusivelyHeldBytes(const Tensor& tensor, long holders);

/// Hands out zero-filled, 64-byte aligned tensors carved from shared huge-page blocks, for many
/// tensors that live about as long as each other (the results of constant folding). A block is
/// freed when its last tensor is; a tensor keeps its whole block alive.
class TensorSlab {
public:
    explicit TensorSlab(size_t blockBytes = size_t(32) << 20) : blockBytes_(blockBytes) {}
    /// A new zero-filled tensor (strings: empty strings, not from the slab).
    Tensor allocate(DType type, std::vector<int64_t> dims);

private:
    size_t blockBytes_;
    std::shared_ptr<std::byte> block_;
    size_t blockSize_ = 0;
    size_t used_ = 0;
};

} // namespace graphlens
