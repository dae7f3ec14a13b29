// Reference kernels: the elementwise family (see families.h).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

namespace graphlens {

void registerElementwiseKernels(KernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
