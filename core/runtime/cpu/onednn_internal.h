// Internals of the oneDNN-backed CPU kernels (onednn*.cpp): the shared engine and stream, the
// OpenMP thread count a kernel runs with, layout helpers and the fused-activation post-ops.
#pragma once

#include "core/runtime/cpu/cpu_kernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace graphlens::onednn {

/// The one CPU engine every oneDNN kernel uses.
const dnnl::engine& engine();
/// A stream on engine() for the calling thread (kernels of one plan may run on any thread).
dnnl::stream& stream();
/// A copy of the buffer `data` (laid out as `from`) in the layout `to`, made now: constant weights
/// packed once at plan time for the primitive that reads them.
dnnl::memory packedCopy(const dnnl::memory::desc& from, void* data, const dnnl::memory::desc& to);

/// A 64-byte aligned buffer of at least `bytes`, one per `slot` (0 to 3) and calling thread,
/// shared by every kernel: blocked copies of activations that live only inside one run() (slots
/// 0 and 1), Winograd's transformed tiles and products (2 and 3).
void* scratchBuffer(int slot, size_t bytes);

/// Sets OpenMP's thread count for the calling thread (oneDNN reads it when it creates and runs
/// primitives) and restores the previous count on destruction; no-op for threads <= 0.
class ThreadScope {
public:
    explicit ThreadScope(int threads);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int previous_ = 0;
};

/// How a convolution lays out its activations: as the graph stores them (NCHW), in the blocked
/// layout oneDNN prefers (reordered in and out inside run() unless the plan passes them blocked
/// between kernels, see onednn_layout.h), or chosen per node.
enum class ConvLayout { Auto, Plain, Blocked };
/// For tests and measurements; kernels prepared afterwards use it (default Auto).
void setConvLayoutPolicy(ConvLayout layout);
ConvLayout convLayoutPolicy();

/// Channels per block of the blocked activations the CPU plan passes between kernels: 16 where
/// oneDNN runs AVX-512 kernels (nChw16c), else 8 (nChw8c). oneDNN's ISA limit
/// (ONEDNN_MAX_CPU_ISA=AVX2) counts, so both kinds of machine can be tested on one.
int64_t channelBlock();
/// The instruction set oneDNN's kernels use here ("AVX2", "AVX-512 with VNNI", ...), after
/// oneDNN's ISA limit.
std::string cpuIsaName();
/// The channel-blocked format tag (nCw8c, nChw8c, nCdhw8c or their 16c forms, per channelBlock())
/// of an activation of `rank` 3 to 5.
dnnl::memory::format_tag channelBlockedTag(size_t rank);

using Dims = dnnl::memory::dims;
Dims toDims(const std::vector<int64_t>& dims);
/// The row-major ("a", "ab", "abc", ...) format tag of `rank`, e.g. nchw for rank 4.
dnnl::memory::format_tag plainTag(size_t rank);
/// A memory descriptor of `dims` in row-major order (float32 unless `type` says otherwise).
dnnl::memory::desc plainDesc(const std::vector<int64_t>& dims, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
/// The row length (in floats) to store a matrix of `columns` columns with, for oneDNN's gemm: 16
/// floats more where rows of a multiple of 1 KiB would make its reads of successive rows compete
/// for the same cache sets (see constantWeightsDesc in onednn_matmul.cpp for the figures).
inline int64_t paddedRowLength(int64_t columns) { return columns % 256 == 0 ? columns + 16 : columns; }
/// Row-major strides of `dims`.
Dims plainStrides(const Dims& dims);

/// True when every present input and every output is float32.
bool allFloat(const NodeDescriptor& info);
/// The product of `dims` (1 for a scalar).
int64_t elementCount(const std::vector<int64_t>& dims);
/// A tensor's bytes as a float pointer oneDNN may read (it never writes through inputs).
inline void* handleOf(const Tensor& t) { return static_cast<void*>(t.mutableData()); }

/// A floats attribute (empty when absent or of another kind).
std::vector<float> floatsAttribute(const Attributes& attributes, const char* name);

/// Appends the fused activation named by the node's "activation" attribute (with its
/// "activation_params") as eltwise post-ops. False for an activation it does not know or bad
/// parameters; true (nothing appended) when there is no such attribute.
bool appendActivation(const Attributes& attributes, dnnl::post_ops& ops);
/// True when the node has an "activation" attribute.
bool hasActivation(const Attributes& attributes);

// Factories by file; each registers itself in registerOneDnnKernels.
void registerConvKernels(CpuKernelRegistry& registry);    // onednn_conv.cpp
void registerMatMulKernels(CpuKernelRegistry& registry);  // onednn_matmul.cpp
void registerPoolKernels(CpuKernelRegistry& registry);    // onednn_pool.cpp
void registerInt8Kernels(CpuKernelRegistry& registry);    // onednn_int8.cpp: QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger
void registerQuantizeLinearKernels(CpuKernelRegistry& registry);  // quantize_linear.cpp: QuantizeLinear, DequantizeLinear
void registerLookupTableKernels(CpuKernelRegistry& registry);     // qlinear_lookup_table.cpp: QLinearLookupTable
void registerSqueezeExcitationKernels(CpuKernelRegistry& registry);  // qlinear_squeeze_excitation.cpp: QLinearMul, QLinearGlobalAveragePool
void registerQLinearConcatKernels(CpuKernelRegistry& registry);     // qlinear_concat.cpp: QLinearConcat

// Blocked variants for chains of oneDNN kernels (see prepareBlockedVariant in onednn_layout.h).
/// A (transposed) convolution that computes blocked where alone it would not (large 1x1).
std::unique_ptr<PreparedKernel> prepareBlockedConv(const NodeDescriptor& info);
/// MaxPool or AveragePool reading `src` (a blocked layout) and writing the same kind of layout.
std::unique_ptr<PreparedKernel> prepareBlockedPool(const NodeDescriptor& info, const dnnl::memory::desc& src);
/// GlobalAveragePool reading `src`, a channel-blocked layout (nChw8c and the like), and writing
/// its [N, C, 1...] output plain (onednn_blocked_eltwise.cpp).
std::unique_ptr<PreparedKernel> prepareBlockedGlobalAveragePool(const NodeDescriptor& info, const dnnl::memory::desc& src);
/// Add or Mul on a channel-blocked operand and a second one of the same layout (`inputs` as for
/// prepareBlockedVariant), one value per channel, or a scalar; writes the first's layout.
std::unique_ptr<PreparedKernel> prepareBlockedBinary(const NodeDescriptor& info,
                                                     const std::vector<const dnnl::memory::desc*>& inputs);
/// Inference BatchNormalization reading `src`, a channel-blocked layout, and writing the same.
std::unique_ptr<PreparedKernel> prepareBlockedBatchNorm(const NodeDescriptor& info, const dnnl::memory::desc& src);
/// An element-wise activation (prepareCpuActivation) reading `src`, a channel-blocked layout, and
/// writing the same.
std::unique_ptr<PreparedKernel> prepareBlockedActivation(const NodeDescriptor& info, const dnnl::memory::desc& src);
/// Concat along the channels of channel-blocked inputs (`inputs` as for prepareBlockedVariant, all
/// offered) whose channel counts are multiples of channelBlock(); writes the same kind of layout.
std::unique_ptr<PreparedKernel> prepareBlockedConcat(const NodeDescriptor& info,
                                                     const std::vector<const dnnl::memory::desc*>& inputs);

} // namespace graphlens::onednn
