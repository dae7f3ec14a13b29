// Optimized CPU kernels: a factory per op type looks at one node with static shapes and either
// prepares a kernel for it (packing weights once) or declines, leaving it to the reference kernel.
#pragma once

#include "core/graph/graph.h"
#include "core/graph/op_key.h"
#include "core/runtime/kernel.h"
#include "core/runtime/node_descriptor.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace graphlens {


using CpuKernelFactory = std::unique_ptr<PreparedKernel> (*)(const NodeDescriptor& info);

/// Factories by op type, for the default domain and ONNX Runtime's com.microsoft fused ops
/// (several may serve one op; the first that accepts wins).
class CpuKernelRegistry {
public:
    /// Adds a factory for (domain, op); "" is the default ONNX domain.
    void add(const std::string& op, CpuKernelFactory factory, const std::string& domain = {});
    /// The first kernel a factory registered for the node's (domain, op) prepares, or nullptr.
    std::unique_ptr<PreparedKernel> prepare(const NodeDescriptor& info) const;
    std::vector<OpKey> ops() const;  ///< sorted
    bool has(const OpKey& key) const { return factories_.count(key) > 0; }

private:
    std::map<OpKey, std::vector<CpuKernelFactory>> factories_;
};

const CpuKernelRegistry& cpuKernels();

/// How the CPU backend runs a node: its optimized kernel, prepared (weights packed), or the
/// reference kernel, with why.
struct CpuClaim {
    std::unique_ptr<PreparedKernel> kernel;  ///< nullptr: the reference kernel runs the node
    std::string why;                         ///< why not an optimized kernel; empty when one took it
};
/// The CPU backend's answer for one node of a prepared graph: an optimized kernel when one
/// accepts `node` (nullopt descriptor: shapes known only at run time, said in `openShapes`).
CpuClaim claimOnCpu(const std::optional<NodeDescriptor>& node, const Node& n, const std::string& openShapes);

/// The threads a node's kernel runs on in a CPU plan of `threads`: one for a product (Conv, Gemm,
/// MatMul, ConvTranspose and their com.microsoft fused forms) of fewer than smallProductFlops()
/// FLOPs (estimateNodeFlops), whose kernel then enters no OpenMP parallel region; `threads`
/// otherwise (the other kernels compare their sizes with their own thresholds at run time).
int cpuNodeThreads(const Graph& graph, const Node& node, int threads);
/// For tests and measurements: the FLOPs below which a product runs on one thread (0: never);
/// plans made afterwards use it.
void setSmallProductFlops(int64_t flops);
int64_t smallProductFlops();

/// The element-wise activation kernel (elementwise.cpp) for an activation node (Relu, Clip with
/// constant bounds, Sigmoid, HardSwish, ...): it maps each of its input's elements on its own,
/// whatever their layout. nullptr for other nodes.
std::unique_ptr<PreparedKernel> prepareCpuActivation(const NodeDescriptor& info);
/// Inference BatchNormalization as y = x * scale[c] + shift[c], computed as its CPU kernel does
/// (elementwise.cpp); nullopt when its parameters are not constants of one value per channel.
struct ChannelAffine {
    std::vector<float> scale, shift;
};
std::optional<ChannelAffine> batchNormAffine(const NodeDescriptor& info);

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
void registerCpuRecurrentKernels(CpuKernelRegistry& registry);    ///< LSTM, GRU, RNN

} // namespace graphlens
