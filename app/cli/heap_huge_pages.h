// Backing the C library's heap with transparent huge pages for one short, allocation-heavy
// command (`optimize`), as glibc's tunable glibc.malloc.hugetlb=1 would, which can only be set in
// the environment before the process starts.
#pragma once

#include <cstddef>

namespace graphlens::cli {

/// Grows the heap by `reserveBytes` of address space at once and asks the kernel to back it with
/// huge pages; allocations below 32 MiB come from the heap from then on, and freed heap memory is
/// kept for reuse. Touching a 6,000-node model's parsed structure, graph and shape-inference
/// messages costs tens of thousands of 4 KiB page faults otherwise (in a virtual machine with
/// shadow paging, 10-15 us each). Where the kernel refuses, nothing changes but the thresholds.
void backHeapWithHugePages(size_t reserveBytes = size_t(512) << 20);

} // namespace graphlens::cli
