// Reference kernels: the shape family (see families.h).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

namespace graphlens {

void registerShapeKernels(KernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
