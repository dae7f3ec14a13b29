// Optimized CPU kernels: a factory per op type looks at one node with static shapes and either
// prepares a kernel for it (packing weights once) or declines, leaving it to the reference kernel.
#pragma once

#include "core/graph/graph.h"
#include "core/graph/op_key.h"
#include "core/runtime/kernel.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graphlens {

/// What a factory knows about a node at plan time. Every input and output shape is static.
struct CpuNodeInfo {
    const Graph& graph;
    const Node& node;
    int64_t opset = 0;
    int threads = 1;
    std::vector<std::vector<int64_t>> inputDims;   ///< empty for omitted inputs
    std::vector<DType> inputTypes;                 ///< Undefined for omitted inputs
    std::vector<const Tensor*> constants;          ///< an input's constant value, or nullptr
    std::vector<std::vector<int64_t>> outputDims;
    std::vector<DType> outputTypes;

    bool hasInput(size_t i) const { return i < inputTypes.size() && inputTypes[i] != DType::Undefined; }
    const Attributes& attributes() const { return node.attributes; }
};

using CpuKernelFactory = std::unique_ptr<PreparedKernel> (*)(const CpuNodeInfo& info);

/// Factories by op type, for the default domain and ONNX Runtime's com.microsoft fused ops
/// (several may serve one op; the first that accepts wins).
class CpuKernelRegistry {
public:
    /// Adds a factory for (domain, op); "" is the default ONNX domain.
    void add(const std::string& op, CpuKernelFactory factory, const std::string& domain = {});
    /// The first kernel a factory registered for the node's (domain, op) prepares, or nullptr.
    std::unique_ptr<PreparedKernel> prepare(const CpuNodeInfo& info) const;
    std::vector<OpKey> ops() const;  ///< sorted

private:
    std::map<OpKey, std::vector<CpuKernelFactory>> factories_;
};

const CpuKernelRegistry& cpuKernels();

// Families of optimized kernels; each file registers its factories.
void registerOneDnnKernels(CpuKernelRegistry& registry);      ///< Conv, ConvTranspose, Gemm, MatMul, pooling
void registerCpuElementwiseKernels(CpuKernelRegistry& registry);  ///< vectorized, multi-threaded
void registerCpuLayoutKernels(CpuKernelRegistry& registry);       ///< Transpose, Slice, Concat, Split, Reshape...
void registerCpuPoolKernels(CpuKernelRegistry& registry);         ///< separable 2-D MaxPool, AveragePool
void registerCpuSoftmaxKernels(CpuKernelRegistry& registry);      ///< Softmax, LayerNorm on the last axis
void registerCpuArithmeticKernels(CpuKernelRegistry& registry);   ///< Add ... Min, general broadcasting
void registerCpuLogicKernels(CpuKernelRegistry& registry);        ///< comparisons, And/Or/Xor/Not, Where
void registerCpuCastKernels(CpuKernelRegistry& registry);         ///< Cast, CastLike
void registerCpuNormalizationKernels(CpuKernelRegistry& registry); ///< InstanceNormalization
void registerCpuResizeKernels(CpuKernelRegistry& registry);       ///< nearest and bilinear NCHW Resize
void registerCpuReductionKernels(CpuKernelRegistry& registry);    ///< Reduce* over any axes
void registerCpuGatherKernels(CpuKernelRegistry& registry);       ///< Gather
void registerCpuExpandKernels(CpuKernelRegistry& registry);       ///< Expand, Tile
void registerCpuGeluKernels(CpuKernelRegistry& registry);         ///< com.microsoft Gelu, BiasGelu, FastGelu, QuickGelu

} // namespace graphlens
