// Matrix products for CPU Vulkan devices (lavapipe): gemm_texel.comp computes, per invocation, a
// register tile of 4 positions x 8 output channels, reading both operands as RGBA32F texels packed
// along k (4 k values per fetch). On lavapipe a texel fetch is a vector gather while a storage or
// shared-memory load is a loop over the lanes with a branch per lane, so this kernel reads no
// buffer in its inner loop. Conv (implicit GEMM over a padded, channel-packed copy of the input)
// and MatMul/Gemm both describe themselves as a TexelGemm; weights are packed once at plan time,
// activations by a pack dispatch (conv_pack.comp, matrix_pack.comp) into the node's scratch.
#pragma once

#include "core/runtime/vulkan/ops.h"

namespace graphlens::vk {

/// Output channels per tile (the B side's interleave) and positions per invocation.
constexpr int64_t kTexelChannels = 8;
constexpr int64_t kTexelPositions = 4;

/// Y[o, i, g*M + m] = act(alpha * sum_k A[o, i, k] B[g, m, k] + beta * bias + Z), every index
/// mapped through strides. Positions (o, i) are the A side: texel of (o, i, k pack c, tap kh, kw) =
/// aOuter*o + aGroup*g + aRow*(i / row) + aCol*(i % row) + aK*c + aH*kh + aW*kw. The B side is packed
/// by packedBlocks(): 8 channels per block, k packs then taps, 8 texels per step.
struct TexelGemm {
    int64_t k4 = 1, kh = 1, kw = 1;                      ///< k packs and taps
    int64_t aK = 1, aH = 0, aW = 0;                      ///< A texel strides per k pack and tap
    int64_t outer = 1, inner = 1, row = 1;               ///< positions; inner split into rows of `row`
    int64_t aOuter = 0, aRow = 0, aCol = 0, aGroup = 0;  ///< A texel offset of a position and group
    int64_t m = 1, groups = 1;                           ///< output channels per group, groups
    bool bPerOuter = false;                              ///< B has its own blocks per outer index
    int64_t yOuter = 0, yInner = 1, yChannel = 1;        ///< element strides of Y (and Z)
    bool bias = false;
    int64_t biasChannel = 1, biasInner = 0;              ///< element strides of the bias
    bool residual = false;                               ///< Z added before the activation
    float alpha = 1, beta = 1;
    ActivationCode act;

    int64_t channelBlocks() const { return (m + kTexelChannels - 1) / kTexelChannels; }
    /// Texels of the packed B side (per group, or per outer index when bPerOuter).
    int64_t bTexels() const { return (bPerOuter ? outer : groups) * channelBlocks() * k4 * kh * kw * kTexelChannels; }
};

/// The gemm_texel.comp dispatch of `g`: A and B are texel operands (Packed or Scratch), bias and
/// residual storage buffers (or none). Nullopt when its grid does not fit the device.
std::optional<Dispatch> texelGemmDispatch(const TexelGemm& g, TensorRef a, TensorRef b, TensorRef bias, TensorRef residual,
                                          const DeviceTraits& device);

/// A matrix operand (rows x k, up to 3 batch dims) rearranged into RGBA32F texels along k: texel
/// ((z * blocks + b) * k4 + c) * interleave + r holds row b*interleave + r, k = 4c .. 4c+3 of batch
/// z, zeros past the ends. interleave 1 is an A side (rows are positions), kTexelChannels a B side.
struct MatrixPacking {
    int64_t rows = 1, k = 1, interleave = 1;
    int64_t rowStride = 0, kStride = 1;                   ///< element strides of the source
    std::array<int64_t, 3> batch{1, 1, 1}, batchStride{0, 0, 0};

    int64_t k4() const { return (k + 3) / 4; }
    int64_t blocks() const { return (rows + interleave - 1) / interleave; }
    int64_t texels() const { return batch[0] * batch[1] * batch[2] * blocks() * k4() * interleave; }
};

/// `p` applied on the host to a constant float tensor (weights packed at plan time).
Tensor packMatrix(const MatrixPacking& p, const Tensor& source);

/// The matrix_pack.comp dispatch that writes `p` of the float tensor `source` into `target`.
std::optional<Dispatch> matrixPackDispatch(const MatrixPacking& p, TensorRef source, TensorRef target, const DeviceTraits& device);

/// Bytes of `texels` RGBA32F texels.
inline uint64_t texelBytes(int64_t texels) { return uint64_t(texels) * 16; }

} // namespace graphlens::vk
