// Reference kernels: the reduction family (see families.h).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

namespace graphlens {

void registerReductionKernels(KernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
