// Helpers and kernel declarations shared by the reduction family's files (reduction*.cpp):
// splitting a shape around an axis and moving values through double precision.
#pragma once

#include "core/runtime/reference/ref_util.h"

#include <cstdint>
#include <vector>

namespace graphlens::reduction {

/// A shape seen as [outer, length, inner] around one axis (or around a flattening point).
struct AxisSplit {
    int64_t outer = 1;
    int64_t length = 1;
    int64_t inner = 1;
};

/// Splits `dims` around `axis`: outer = dims before it, length = dims[axis], inner = dims after.
AxisSplit splitAt(const std::vector<int64_t>& dims, int64_t axis);
/// Splits `dims` into a 2-D [before axis, from axis on] view (the pre-opset-13 Softmax coercion).
AxisSplit flattenAt(const std::vector<int64_t>& dims, int64_t axis);

/// Values of a float, float16, bfloat16, double or integer tensor as doubles; KernelError
/// naming `op` for other types.
std::vector<double> doublesOf(const Tensor& t, const char* op);
/// A tensor of `type` holding `values` (rounded to the type; integers truncate).
Tensor tensorOf(DType type, std::vector<int64_t> dims, const std::vector<double>& values);
/// KernelError unless `type` is float, double, float16 or bfloat16.
void requireFloating(DType type, const char* op);

/// Which dimensions are reduced by `axes` (each once, possibly negative); all when it is empty.
std::vector<bool> reducedMask(const std::vector<int64_t>& axes, int64_t rank);
/// For each element of a `dims` tensor, the index of its group when the `mask` dims are reduced
/// (the element's position in the keepdims-shaped reduction result).
std::vector<int64_t> reductionTargets(const std::vector<int64_t>& dims, const std::vector<bool>& mask);

// Kernels, registered in reduction.cpp.
void argMax(KernelContext& ctx);
void argMin(KernelContext& ctx);
void softmax(KernelContext& ctx);
void logSoftmax(KernelContext& ctx);
void hardmax(KernelContext& ctx);
void cumSum(KernelContext& ctx);
void topK(KernelContext& ctx);
void batchNormalization(KernelContext& ctx);
void instanceNormalization(KernelContext& ctx);
void layerNormalization(KernelContext& ctx);
void skipLayerNormalization(KernelContext& ctx);  // com.microsoft
void lpNormalization(KernelContext& ctx);
void meanVarianceNormalization(KernelContext& ctx);
void lrn(KernelContext& ctx);
void einsum(KernelContext& ctx);
void det(KernelContext& ctx);
void negativeLogLikelihoodLoss(KernelContext& ctx);
void softmaxCrossEntropyLoss(KernelContext& ctx);

} // namespace graphlens::reduction
