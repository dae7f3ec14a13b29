// Reference kernels: the neural net family (see families.h).
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"

namespace graphlens {

void registerNeuralNetKernels(KernelRegistry& registry) {
    (void)registry;
}

} // namespace graphlens
