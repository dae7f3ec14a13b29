// Optimized CPU kernels: onednn (see cpu_kernel.h).
#include "core/runtime/cpu/cpu_kernel.h"

namespace graphlens {

void registerOneDnnKernels(CpuKernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
