// The registry of optimized CPU kernel factories.
#include "core/runtime/cpu/cpu_kernel.h"

namespace graphlens {

void CpuKernelRegistry::add(const std::string& op, CpuKernelFactory factory, const std::string& domain) {
    factories_[OpKey(domain, op)].push_back(factory);
}

std::unique_ptr<PreparedKernel> CpuKernelRegistry::prepare(const NodeDescriptor& info) const {
    auto it = factories_.find(OpKey::of(info.node));
    if (it == factories_.end()) return nullptr;
    for (CpuKernelFactory factory : it->second)
        if (auto kernel = factory(info)) return kernel;
    return nullptr;
}

std::vector<OpKey> CpuKernelRegistry::ops() const {
    std::vector<OpKey> out;
    for (const auto& entry : factories_) out.push_back(entry.first);
    return out;
}

const CpuKernelRegistry& cpuKernels() {
    static const CpuKernelRegistry registry = [] {
        CpuKernelRegistry r;
        registerCpuElementwiseKernels(r);  // first: its GlobalAveragePool beats oneDNN's plain-layout one
        registerCpuPoolKernels(r);         // and so do the separable MaxPool and AveragePool
        registerOneDnnKernels(r);
        registerCpuLayoutKernels(r);
        registerCpuSoftmaxKernels(r);
        // after the special cases above, the general ones
        registerCpuArithmeticKernels(r);
        registerCpuLogicKernels(r);
        registerCpuCastKernels(r);
        registerCpuNormalizationKernels(r);
        registerCpuResizeKernels(r);
        registerCpuReductionKernels(r);
        registerCpuGatherKernels(r);
        registerCpuExpandKernels(r);
        registerCpuGeluKernels(r);
        registerCpuRecurrentKernels(r);
        return r;
    }();
    return registry;
}

} // namespace graphlens
