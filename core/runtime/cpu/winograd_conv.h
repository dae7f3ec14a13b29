// Winograd F(2x2, 3x3) convolution on oneDNN's blocked layouts (nChw8c, nChw16c): 3x3, stride 1,
// undilated, ungrouped convolutions computed as 16 matrix products over 4x4 input tiles instead
// of 9 multiply-adds per output. The products take 16/36 of the direct convolution's
// multiplications (2.25x fewer); oneDNN 2.6 has no Winograd kernel for AVX2, and its direct
// AVX2 kernels are the slowest part of a ResNet on such machines.
//
//   U = G g G^T     per (output, input) channel pair, once at plan time (4x4 from 3x3)
//   V = B^T d B     per 4x4 input tile and channel (tiles overlap by 2)
//   M = V U         16 products [tiles x C_in] x [C_in x C_out], one oneDNN batched matmul
//   Y = A^T M A     per tile, 2x2 outputs, then bias, residual and activation
// (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016.)
#pragma once

#include "core/runtime/cpu/onednn_internal.h"

#include <memory>

namespace graphlens::onednn {

/// Which algorithm a 3x3 convolution that Winograd can compute uses: chosen by its shape, or
/// forced (tests and measurements).
enum class ConvAlgorithm { Auto, Direct, Winograd };
/// For tests and measurements; kernels prepared afterwards use it (default Auto). The
/// GRAPHLENS_CONV_ALGORITHM environment variable (direct, winograd) sets the initial value.
void setConvAlgorithm(ConvAlgorithm algorithm);
ConvAlgorithm convAlgorithm();

/// One 2-D convolution's geometry in Winograd's terms (NCHW sizes, top/left padding) and the
/// channels per block of its blocked layout (8: nChw8c, 16: nChw16c).
struct WinogradShape {
    int64_t block = 8;
    int64_t batch = 0, inChannels = 0, outChannels = 0, inHeight = 0, inWidth = 0, outHeight = 0, outWidth = 0;
    int64_t padTop = 0, padLeft = 0;
};

class WinogradConv {
public:
    /// A Winograd form of the node in `info`, a 3x3 convolution with stride 1, no dilation and
    /// one group of `shape` (the caller checks these, and the weight and bias shapes): nullptr unless its weights are constant,
    /// both channel counts a multiple of the block and the activation none, Relu, LeakyRelu or Clip, or
    /// when the shape is one where the direct kernel is faster (unless forced, or `anyShape`: the
    /// plan measures which is faster, conv_tuning.h).
    static std::unique_ptr<WinogradConv> make(const WinogradShape& shape, const NodeDescriptor& info, bool anyShape = false);
    /// Whether make() can build a form of `info` on `shape` where it is asked to (any policy
    /// aside): block, channel counts, constant weights, activation.
    static bool canCompute(const WinogradShape& shape, const NodeDescriptor& info);

    /// `src` and `dst` in the blocked layout; `bias` (out channels) may be null; with `residual`, dst
    /// already holds the tensor to add before the activation.
    void run(const float* src, float* dst, const float* bias, bool residual);

private:
    WinogradConv(const WinogradShape& shape, const float* weights, float slope, float low, float high);
    void transformInput(const float* src, float* tiles) const;
    void transformOutput(const float* products, float* dst, const float* bias, bool residual) const;

    WinogradShape shape_;
    int64_t tilesHigh_ = 0, tilesWide_ = 0, tiles_ = 0;
    int64_t inRow_ = 0, outRow_ = 0;  ///< row lengths of the transformed tiles and the products
    float slope_ = 1.f, low_, high_;  ///< activation: max(v,0) + slope*min(v,0), clamped to [low, high]
    dnnl::matmul product_;
    dnnl::memory tilesMem_, weightsMem_, productsMem_;
};

} // namespace graphlens::onednn
