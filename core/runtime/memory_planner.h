// Static memory planning for activations: every intermediate tensor gets an offset in one arena,
// chosen greedily by size into the best-fitting gap among tensors alive at the same time, and
// element-wise ops may write over an input that dies at that step (in place), and a Concat's
// inputs may be placed inside its output (no copy).
#pragma once

#include <cstdint>
#include <vector>

namespace graphlens {

/// One tensor to place: alive from the step that produces it to the last step that reads it.
struct TensorLifetime {
    uint64_t bytes = 0;
    int firstStep = 0;
    int lastStep = 0;
    /// Index of a tensor whose buffer this one may take over (an element-wise op's input);
    /// honoured when that tensor's last step is this one's first step and it is at least as big.
    int inPlaceOf = -1;
    /// Index of a tensor this one lives inside of, `offsetInOwner` bytes from its start (a
    /// Concat's input placed where the Concat's output holds it, so the copy finds it there);
    /// -1: a buffer of its own. The owner's buffer is then reserved from the first step of any
    /// of its parts; parts and owners take part in no in-place sharing.
    int partOf = -1;
    uint64_t offsetInOwner = 0;
};

struct MemoryPlan {
    std::vector<uint64_t> offsets;   ///< per tensor, in bytes from the arena start
    uint64_t arenaBytes = 0;         ///< the planned arena
    uint64_t naiveBytes = 0;         ///< every tensor in its own buffer
    uint64_t lowerBoundBytes = 0;    ///< most bytes alive at one step (after in-place sharing)
    std::vector<uint64_t> liveBytes; ///< bytes alive at each step
    int inPlaceCount = 0;            ///< tensors that took over their input's buffer
    int partCount = 0;               ///< tensors placed inside another's buffer (partOf)
};

/// Plans `tensors`; sizes are rounded up to `alignment` bytes (a power of two).
MemoryPlan planMemory(const std::vector<TensorLifetime>& tensors, uint64_t alignment = 64);

} // namespace graphlens
