// Calling one reference kernel directly, for the kernel test suites: a bare node with the given
// attributes, a KernelContext over the inputs, the outputs back.
#pragma once

#include "core/runtime/kernel.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace graphlens::testing {

/// Runs kernel `op` of `domain` on `inputs` (nullptr: omitted) with `outputCount` outputs.
inline std::vector<Tensor> runKernelAll(const std::string& op, std::vector<const Tensor*> inputs,
                                        Attributes attributes = {}, int64_t opset = 17,
                                        size_t outputCount = 1, const std::string& domain = {}) {
    const KernelFn kernel = referenceKernels().find(domain, op);
    if (!kernel) throw std::runtime_error("no kernel for " + op);
    Graph graph;  // a node of its own, with no inputs linked: the kernel reads `inputs` only
    std::vector<std::string> outputNames;
    for (size_t i = 0; i < outputCount; ++i) outputNames.push_back("output_" + std::to_string(i));
    const NodeId node = graph.addNode(op, {}, outputNames, std::move(attributes), {}, domain);
    KernelContext ctx(graph.node(node), opset, std::move(inputs));
    kernel(ctx);
    return ctx.outputs();
}

/// Output 0 of kernel `op`.
inline Tensor runKernel(const std::string& op, std::vector<const Tensor*> inputs, Attributes attributes = {},
                        int64_t opset = 17, const std::string& domain = {}) {
    return runKernelAll(op, std::move(inputs), std::move(attributes), opset, 1, domain).at(0);
}

using Dims = std::vector<int64_t>;
using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;

/// A float tensor holding 0, 1, 2, ... in row-major order.
inline Tensor iota(Dims dims) {
    Tensor t = Tensor::allocate(DType::Float, dims);
    for (int64_t i = 0; i < t.numel(); ++i) t.mutableSpan<float>()[size_t(i)] = float(i);
    return t;
}

template <typename T>
std::vector<T> values(const Tensor& t) {
    auto s = t.span<T>();
    return {s.begin(), s.end()};
}

} // namespace graphlens::testing
