// KernelContext and KernelRegistry.
#include "core/runtime/kernel.h"

#include "core/runtime/reference/families.h"
#include "core/runtime/reference/ref_util.h"
#include "core/runtime/resource_limits.h"

#include <cstring>

namespace graphlens {

KernelContext::KernelContext(const Node& node, int64_t opset, std::vector<const Tensor*> inputs,
                             int threads, SubgraphRunner subgraphs)
    : node_(node), opset_(opset), inputs_(std::move(inputs)), outputs_(node.outputs().size()),
      threads_(threads), subgraphs_(std::move(subgraphs)) {}

const Tensor& KernelContext::input(size_t i) const {
    if (!hasInput(i)) throw KernelError("input " + std::to_string(i) + " is missing");
    return *inputs_[i];
}

Tensor KernelContext::takeInput(size_t i) {
    const Tensor& in = input(i);
    if (i < lastReads_.size() && lastReads_[i] == &in) return std::move(*lastReads_[i]);
    return in;
}

Tensor& KernelContext::allocateOutput(size_t i, DType dtype, std::vector<int64_t> dims) {
    if (i >= outputs_.size()) throw KernelError("the node has no output " + std::to_string(i));
    for (int64_t d : dims)
        if (d < 0) throw KernelError("an output dimension would be negative");
    if (i < reserved_.size() && !reserved_[i].empty() && reserved_[i].dtype() == dtype &&
        reserved_[i].dims() == dims && dtype != DType::String) {
        std::memset(reserved_[i].mutableData(), 0, reserved_[i].byteSize());
        outputs_[i] = reserved_[i];
        return outputs_[i];
    }
    if (RunMemoryLimit::current() && dtype != DType::String)
        if (const auto bytes = checkedTensorBytes(dtype, dims))
            checkRunMemoryLimit(*bytes, [&] { return "the output " + ref::dimsText(dims); });
    outputs_[i] = Tensor::allocate(dtype, std::move(dims));
    return outputs_[i];
}

void KernelContext::setOutput(size_t i, Tensor tensor) {
    if (i >= outputs_.size()) throw KernelError("the node has no output " + std::to_string(i));
    outputs_[i] = std::move(tensor);
}

std::vector<Tensor> KernelContext::runSubgraph(const Graph& graph, std::vector<Tensor> inputs) const {
    if (!subgraphs_) throw KernelError("sub-graphs cannot run here");
    return subgraphs_(graph, std::move(inputs));
}

void KernelRegistry::add(std::string op, KernelFn fn, std::string domain) { kernels_[OpKey(domain, op)] = fn; }

KernelFn KernelRegistry::find(const OpKey& key) const {
    auto it = kernels_.find(key);
    return it == kernels_.end() ? nullptr : it->second;
}

std::vector<OpKey> KernelRegistry::ops() const {
    std::vector<OpKey> out;
    for (const auto& entry : kernels_) out.push_back(entry.first);
    return out;
}

const KernelRegistry& referenceKernels() {
    static const KernelRegistry registry = [] {
        KernelRegistry r;
        registerElementwiseKernels(r);
        registerShapeKernels(r);
        registerReductionKernels(r);
        registerNeuralNetKernels(r);
        registerControlFlowKernels(r);
        registerSignalKernels(r);
        registerTextKernels(r);
        registerSequenceKernels(r);
        return r;
    }();
    return registry;
}

} // namespace graphlens
