// The registry of optimized CPU kernel factories.
#include "core/runtime/cpu/cpu_kernel.h"

namespace graphlens {

void CpuKernelRegistry::add(const std::string& op, CpuKernelFactory factory) {
    factories_[op].push_back(factory);
}

std::unique_ptr<PreparedKernel> CpuKernelRegistry::prepare(const CpuNodeInfo& info) const {
    const std::string& domain = info.node.domain;
    if (!domain.empty() && domain != "ai.onnx" && domain != "com.microsoft") return nullptr;
    auto it = factories_.find(info.node.opType);
    if (it == factories_.end()) return nullptr;
    for (CpuKernelFactory factory : it->second)
        if (auto kernel = factory(info)) return kernel;
    return nullptr;
}

std::vector<std::string> CpuKernelRegistry::ops() const {
    std::vector<std::string> out;
    for (const auto& [op, list] : factories_) out.push_back(op);
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
        return r;
    }();
    return registry;
}

} // namespace graphlens
