// Memory limits: what a plan or a set of inputs may allocate, checked before allocating, and
// overflow-checked size arithmetic, so a model whose shapes ask for terabytes (or 2^64 bytes) is
// refused in one sentence instead of swapping, hanging or wrapping around.
#pragma once

#include "core/graph/dtype.h"
#include "core/runtime/errors.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace graphlens {


/// /proc/meminfo's MemAvailable in bytes (the machine's physical memory where it cannot be read).
uint64_t availableMemoryBytes();

/// "41.2 GB", "512.0 MB", "12 bytes" (decimal units).
std::string formatBytes(uint64_t bytes);

/// The bytes of `dims` elements of `type`; nullopt when a size is negative or the count or the
/// byte size overflows 64 bits.
std::optional<uint64_t> checkedTensorBytes(DType type, const std::vector<int64_t>& dims);

/// a + b, saturating at UINT64_MAX.
inline uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/// The memory a plan may take: `maxMemory` when non-zero, otherwise what is available now.
struct MemoryBudget {
    uint64_t bytes = 0;
    bool fromOption = false;  ///< set by the user (--max-memory), not read from the machine
    static MemoryBudget of(uint64_t maxMemory);
    /// "22.1 GB are available" or "the memory limit is 1.0 GB".
    std::string describe() const;
};

/// Throws ResourceError "the plan needs 41.2 GB (arena 40.9 GB + weights 0.3 GB) but 22.1 GB are
/// available" when arena + weights exceed the budget; `atLeast` when the arena figure is a lower
/// bound.
void checkPlanMemory(uint64_t arenaBytes, uint64_t weightBytes, const MemoryBudget& budget, bool atLeast = false);

/// While alive, the user's memory limit (--max-memory) for what this thread's kernels allocate as
/// they run: a plan checks its arena before running, but a tensor whose size comes from input
/// values (Tile's repeats, Expand's shape) is sized only then. One tensor larger than the whole
/// limit is refused (checkWorkingSet, KernelContext::allocateOutput) instead of filling gigabytes.
class RunMemoryLimit {
public:
    explicit RunMemoryLimit(uint64_t bytes);
    ~RunMemoryLimit();
    RunMemoryLimit(const RunMemoryLimit&) = delete;
    RunMemoryLimit& operator=(const RunMemoryLimit&) = delete;
    /// The innermost live limit of this thread; nullopt when none.
    static std::optional<uint64_t> current();

private:
    std::optional<uint64_t> outer_;
};

/// Throws ResourceError "WHAT needs 1.2 GB but the memory limit is 256.0 MB".
[[noreturn]] void throwOverRunMemoryLimit(const std::string& what, uint64_t bytes, uint64_t limit);

/// When `bytes` exceed the RunMemoryLimit in force, throwOverRunMemoryLimit with `describe()` (made
/// only then: kernels ask on every run); nothing when no limit is in force.
template <typename Describe>
void checkRunMemoryLimit(uint64_t bytes, Describe&& describe) {
    if (const std::optional<uint64_t> limit = RunMemoryLimit::current(); limit && bytes > *limit)
        throwOverRunMemoryLimit(describe(), bytes, *limit);
}

} // namespace graphlens
