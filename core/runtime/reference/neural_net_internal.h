// Internals of the neural net reference family: the kernels each neural_net_<part>.cpp file
// defines, and the window geometry and value conversions that convolution and pooling share.
#pragma once

#include "core/runtime/reference/ref_util.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace graphlens::nn {

/// Where a sliding window (convolution or pooling) goes over the spatial axes of an input.
struct WindowGeometry {
    std::vector<int64_t> inSizes;    ///< spatial input sizes
    std::vector<int64_t> kernel;     ///< spatial kernel sizes
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> padsBegin;
    std::vector<int64_t> padsEnd;
    std::vector<int64_t> outSizes;   ///< spatial output sizes
};

/// The ints attribute `name`, which must have `count` values; `count` times `fallback` when absent.
std::vector<int64_t> attributeInts(const Attributes& attributes, const char* name, size_t count, int64_t fallback);

/// Reads strides, dilations, pads and auto_pad for a window of `kernel` over `inSizes` and
/// derives the output sizes (rounding up with `ceilMode`); KernelError for bad attributes.
WindowGeometry windowGeometry(const Attributes& attributes, const std::vector<int64_t>& inSizes,
                              const std::vector<int64_t>& kernel, bool ceilMode = false);

/// One kernel tap that lands inside the input: the tap's index and the input offset it reads.
struct Tap {
    int64_t kernelIndex;
    int64_t inputOffset;
};
/// The taps of the window at output position `out` (a spatial index tuple of g.outSizes' rank),
/// `inStrides` the strides of g.inSizes; tap indices are row-major in g.kernel. Only the taps
/// inside are visited: a window of 3 x 2^20 over a 5 x 6 input costs its 30 taps, not 3 million.
void tapsAt(const WindowGeometry& g, const int64_t* out, const std::vector<int64_t>& inStrides, std::vector<Tap>& taps);
/// The kernel indices k in [0, kernel) with lo <= base + k * dilation < hi, as [first, last).
std::pair<int64_t, int64_t> tapsWithin(int64_t base, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi);

/// Every index tuple of a box of `sizes`, row-major, flattened (size = rank * count).
std::vector<int64_t> allPositions(const std::vector<int64_t>& sizes);

/// The values of any numeric tensor as doubles (empty tensors give an empty vector).
std::vector<double> doublesOf(const Tensor& t);
/// The single value of a one-element tensor; KernelError naming `what` otherwise.
double scalarOf(const Tensor& t, const char* what);
/// A tensor of `dtype` (any float or integer type) holding `values`, cast element by element.
Tensor tensorOfDoubles(DType dtype, std::vector<int64_t> dims, const std::vector<double>& values);

/// Rounds half to even and clamps into the range of `dtype` (int8, uint8, int16, uint16, int32).
double saturateRound(double value, DType dtype);

/// The shapes of a grouped N-d convolution: X (N, C, spatial...), W (M, C/group, kernel...).
struct ConvShapes {
    int64_t batch = 0, inChannels = 0, outChannels = 0, group = 1;
    WindowGeometry window;
};
/// Checks X and W against each other and the attributes; the kernel comes from W when
/// kernel_shape is absent.
ConvShapes convShapes(const Attributes& attributes, const std::vector<int64_t>& x,
                      const std::vector<int64_t>& w);
/// The convolution of x by w (+ bias per output channel when `bias` is non-empty), as
/// (N, M, out...) values in double.
std::vector<double> convolve(const ConvShapes& s, const std::vector<double>& x,
                             const std::vector<double>& w, const std::vector<double>& bias);
/// Output dims (N, M, out...) of a convolution.
std::vector<int64_t> convOutputDims(const ConvShapes& s);
/// Conv(X, W, B) of the kernel's inputs 0-2 in double, filling `s`.
std::vector<double> convValues(const KernelContext& ctx, ConvShapes& s);
/// Gemm(A, B, C) of the kernel's inputs 0-2 with its alpha, beta and transposes, as m x n doubles.
std::vector<double> gemmValues(const KernelContext& ctx, int64_t& m, int64_t& n);

// Kernels, by file.
void conv(KernelContext& ctx);             // neural_net_conv.cpp
void convInteger(KernelContext& ctx);
void qlinearConv(KernelContext& ctx);
void convTranspose(KernelContext& ctx);
void maxPool(KernelContext& ctx);          // neural_net_pool.cpp
void averagePool(KernelContext& ctx);
void lpPool(KernelContext& ctx);
void globalAveragePool(KernelContext& ctx);
void globalMaxPool(KernelContext& ctx);
void globalLpPool(KernelContext& ctx);
void maxUnpool(KernelContext& ctx);
void gemm(KernelContext& ctx);             // neural_net_matmul.cpp
void matMul(KernelContext& ctx);
void matMulInteger(KernelContext& ctx);
void qlinearMatMul(KernelContext& ctx);
void qgemm(KernelContext& ctx);                 // com.microsoft QGemm
void matMulIntegerToFloat(KernelContext& ctx);  // com.microsoft MatMulIntegerToFloat
void quantizeLinear(KernelContext& ctx);   // neural_net_quant.cpp
void dequantizeLinear(KernelContext& ctx);
void qlinearAdd(KernelContext& ctx);        // com.microsoft QLinearAdd (neural_net_quant.cpp)
void qlinearLookupTable(KernelContext& ctx);  // ai.graphlens QLinearLookupTable (the CPU plan's)
void qlinearMul(KernelContext& ctx);        // com.microsoft QLinearMul
void qlinearConcat(KernelContext& ctx);     // com.microsoft QLinearConcat
void qlinearGlobalAveragePool(KernelContext& ctx);  // com.microsoft QLinearGlobalAveragePool
void dynamicQuantizeLinear(KernelContext& ctx);
void resize(KernelContext& ctx);           // neural_net_resize.cpp
void upsample(KernelContext& ctx);
void roiAlign(KernelContext& ctx);         // neural_net_detect.cpp
void nonMaxSuppression(KernelContext& ctx);
void gridSample(KernelContext& ctx);
void fusedConv(KernelContext& ctx);        // neural_net_fused.cpp (com.microsoft)
void fusedGemm(KernelContext& ctx);
void fusedMatMul(KernelContext& ctx);      // neural_net_matmul.cpp (com.microsoft)
void lstm(KernelContext& ctx);             // neural_net_rnn.cpp
void gru(KernelContext& ctx);
void rnn(KernelContext& ctx);

} // namespace graphlens::nn
