// Optimized CPU kernels: elementwise (see cpu_kernel.h).
#include "core/runtime/cpu/cpu_kernel.h"

namespace graphlens {

void registerCpuElementwiseKernels(CpuKernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
