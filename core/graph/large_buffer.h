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
