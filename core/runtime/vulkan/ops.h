// How a node becomes GPU work: a factory per op type looks at the node's static shapes and
// constants and at what the device is, and returns the dispatches that compute it (shader,
// specialization constants, the tensors bound to storage bindings 0..7 and texel bindings 8..11,
// workgroup counts), the weights it packs once at plan time and the scratch it needs, or declines
// (the node then runs on the CPU). One file per op family registers its factories, as on the CPU
// side.
#pragma once

#include "core/graph/graph.h"
#include "core/graph/op_key.h"
#include "core/runtime/node_descriptor.h"

#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace graphlens::vk {

/// How matrix products (Conv, MatMul, Gemm) are computed.
enum class ProductKernels {
    SharedMemoryTiles,  ///< 64x64 tiles staged through shared memory (conv.comp, matmul.comp): GPUs
    TexelTiles,         ///< register tiles fed by texel fetches of packed operands (gemm_texel.comp):
                        ///< CPU devices such as lavapipe, where buffer and shared loads are per-lane loops
};

/// What the factories need to know about the device: its limits and which product kernels suit it.
struct DeviceTraits {
    ProductKernels products = ProductKernels::SharedMemoryTiles;
    std::array<uint32_t, 3> maxGroups{65535, 65535, 65535};  ///< maxComputeWorkGroupCount
    uint64_t maxStorageRange = uint64_t(1) << 27;           ///< maxStorageBufferRange, bytes
    uint64_t maxTexels = uint64_t(1) << 16;                  ///< maxTexelBufferElements
    uint32_t sharedBytes = 16384;                            ///< maxComputeSharedMemorySize
    uint32_t maxInvocations = 128;                           ///< maxComputeWorkGroupInvocations
    /// Shaders that load inside loops read their inputs as texels (CPU devices: a storage-buffer load
    /// under a loop's lane mask is a loop over the lanes, a texel fetch one gather).
    bool texelLoads = false;
    /// shaderInt64: 64-bit and uint32 integer math runs exactly (typed64.comp); without it such nodes
    /// run on the CPU.
    bool int64 = false;
};

/// A node of the prepared graph as the op factories see it: its descriptor and the device.
struct NodeShapes : NodeDescriptor {
    DeviceTraits device;
};

/// A tensor bound to a shader binding: one of the node's inputs or outputs, one of the weights its
/// program packed at plan time, or one of its scratch buffers.
struct TensorRef {
    enum Kind { Input, Output, Packed, Scratch, Unused } kind = Unused;
    int index = 0;
    static TensorRef input(int i) { return {Input, i}; }
    static TensorRef output(int i) { return {Output, i}; }
    static TensorRef packed(int i) { return {Packed, i}; }
    static TensorRef scratch(int i) { return {Scratch, i}; }
    static TensorRef none() { return {}; }
};

/// The first texel binding: texels[i] is bound at kFirstTexelBinding + i as a uniform texel buffer
/// of RGBA32F texels (`uniform samplerBuffer` in the shader).
constexpr uint32_t kFirstTexelBinding = 8;
constexpr uint32_t kMaxTexelBindings = 4;

struct Dispatch {
    std::string shader;               ///< shaders/<shader>.comp
    std::vector<uint32_t> constants;  ///< specialization constants 0..N-1
    std::vector<TensorRef> bindings;  ///< storage buffer binding i
    std::array<uint32_t, 3> groups{1, 1, 1};
    std::vector<TensorRef> texels;    ///< texel buffer binding kFirstTexelBinding + i
    bool waits = false;               ///< waits for the node's earlier dispatches (a barrier before it)
};

struct NodeProgram {
    std::string kernel;               ///< "vulkan:conv-gemm", for the plan's node list
    std::vector<Dispatch> dispatches; ///< in order; independent of each other unless `waits`
    bool inPlace = false;             ///< output 0 may take over input 0's memory
    bool copyOnly = false;            ///< copies input 0 to output 0 as is: nothing to run when they share bytes
    std::vector<Tensor> packed;       ///< weights rearranged at plan time, uploaded with the others
    std::vector<uint64_t> scratch;    ///< bytes of each scratch buffer, alive while the node runs
    std::string declined;             ///< non-empty: no program; why the node runs on the CPU (declineBecause)
};

/// What a factory returns to decline a node with a reason the plan shows ("training-mode outputs ...").
inline NodeProgram declineBecause(std::string why) {
    NodeProgram p;
    p.declined = std::move(why);
    return p;
}

/// Specialization constants in order; floats travel as their bits.
class Constants {
public:
    Constants& i(int64_t v) { words_.push_back(uint32_t(int32_t(v))); return *this; }
    Constants& f(float v) { words_.push_back(std::bit_cast<uint32_t>(v)); return *this; }
    std::vector<uint32_t> take() { return std::move(words_); }

private:
    std::vector<uint32_t> words_;
};

/// Workgroup counts for `count` invocations in workgroups of `local`: a 2-D grid when one
/// dimension would pass the 65535 groups every device supports (shaders use flatIndex()).
std::array<uint32_t, 3> flatGroups(uint64_t count, uint32_t local);

/// True when `groups` fits the device's maxComputeWorkGroupCount.
bool fitsGroups(const DeviceTraits& device, const std::array<uint32_t, 3>& groups);

using VulkanOpFactory = std::optional<NodeProgram> (*)(const NodeShapes& node);

class VulkanOpRegistry {
public:
    void add(const std::string& op, VulkanOpFactory factory, const std::string& domain = {});
    /// The program for `node`, or nullopt when no factory accepts it; `why` then receives the reason a
    /// factory gave (declineBecause), if one did.
    std::optional<NodeProgram> build(const NodeShapes& node, std::string* why = nullptr) const;
    /// True when some shader serves the op.
    bool has(const OpKey& key) const;
    std::vector<OpKey> ops() const;  ///< sorted

private:
    std::map<OpKey, std::vector<VulkanOpFactory>> factories_;
};

const VulkanOpRegistry& vulkanOps();

void registerElementwiseOps(VulkanOpRegistry& registry);  ///< unary activations and math, binary broadcasting, BiasGelu
void registerConvOps(VulkanOpRegistry& registry);         ///< Conv, com.microsoft FusedConv (conv.cpp, conv_texel.cpp)
void registerMatMulOps(VulkanOpRegistry& registry);       ///< MatMul, Gemm, FusedGemm, FusedMatMul
void registerPoolOps(VulkanOpRegistry& registry);         ///< MaxPool, AveragePool, global pools, Reduce*
void registerNormalizationOps(VulkanOpRegistry& registry);///< Softmax, LogSoftmax, LayerNormalization, SkipLayerNormalization
void registerLayoutOps(VulkanOpRegistry& registry);       ///< Transpose, Concat, Slice, Split, Expand, Tile, DepthToSpace, reshapes
void registerLogicOps(VulkanOpRegistry& registry);        ///< Cast, comparisons, logic, Mod, BitShift, integer math, Where, Trilu, Clip, Sum/Mean, (De)QuantizeLinear (logic.cpp)
void registerGatherOps(VulkanOpRegistry& registry);       ///< Gather, GatherElements (gather.cpp)
void registerLossOps(VulkanOpRegistry& registry);         ///< NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (loss.cpp)
void registerAxisOps(VulkanOpRegistry& registry);         ///< ArgMax, ArgMin, Hardmax, CumSum (axis.cpp)
void registerConstantOps(VulkanOpRegistry& registry);     ///< Constant, Shape, Size, ConstantOfShape, EyeLike, Dropout (constants.cpp)
void registerPadOps(VulkanOpRegistry& registry);          ///< Pad (pad.cpp)
void registerResizeOps(VulkanOpRegistry& registry);       ///< Resize, Upsample (resize.cpp)
void registerConvTransposeOps(VulkanOpRegistry& registry);///< ConvTranspose (conv_transpose.cpp)
void registerChannelNormOps(VulkanOpRegistry& registry);  ///< BatchNormalization (inference), InstanceNormalization, LRN (batchnorm.cpp)
void registerScatterOps(VulkanOpRegistry& registry);      ///< GatherND, ScatterElements, ScatterND, OneHot, Range (scatter.cpp)
void registerTopKOps(VulkanOpRegistry& registry);         ///< TopK (topk.cpp)

// Shared helpers of the op files.
int64_t numel(const std::vector<int64_t>& dims);
/// Row-major element strides of `dims`.
std::vector<int64_t> stridesOf(const std::vector<int64_t>& dims);
/// The code of a fused activation named like ORT's ("Relu", "LeakyRelu", ...; "" is the
/// identity) with its two parameters (the table's defaults where missing or NaN), or nullopt when
/// activations.def has no such kind.
struct ActivationCode {
    int op = 0;
    float alpha = 0, beta = 0;
};
std::optional<ActivationCode> activationCode(const std::string& name, const std::vector<float>& params);

} // namespace graphlens::vk
