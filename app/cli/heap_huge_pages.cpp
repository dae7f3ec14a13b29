// glibc's malloc extends its main heap with sbrk by the request plus M_TOP_PAD; one large
// request with a large pad makes that extension, which is then advised for huge pages.
#include "app/cli/heap_huge_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace graphlens::cli {

void backHeapWithHugePages(size_t reserveBytes) {
    constexpr size_t kHugePage = size_t(2) << 20;
    constexpr int kDefaultTopPad = 128 << 10;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);               // below this, from the (huge-page) heap
    mallopt(M_TRIM_THRESHOLD, int(2 * reserveBytes));  // freed heap stays for reuse
    mallopt(M_TOP_PAD, int(reserveBytes));
    void* probe = std::malloc(kHugePage);  // more than the heap has left: it grows by the pad
    mallopt(M_TOP_PAD, kDefaultTopPad);
    if (!probe) return;
    const auto begin = (reinterpret_cast<uintptr_t>(probe) + kHugePage - 1) / kHugePage * kHugePage;
    const auto end = reinterpret_cast<uintptr_t>(sbrk(0)) / kHugePage * kHugePage;
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    std::free(probe);
}

} // namespace graphlens::cli
