// The reference kernel families; each file registers its ops into the registry.
#pragma once

namespace graphlens {

class KernelRegistry;

/// Unary/binary math with broadcasting, activations, comparison and logic, Where, Cast, Clip.
void registerElementwiseKernels(KernelRegistry& registry);
/// Reshape, Transpose, Concat, Slice, Gather, Pad, Shape, Range, ... : moving elements around.
void registerShapeKernels(KernelRegistry& registry);
/// Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, CumSum, TopK, normalizations.
void registerReductionKernels(KernelRegistry& registry);
/// Conv, ConvTranspose, pooling, Gemm, MatMul, Resize, Dropout, ...
void registerNeuralNetKernels(KernelRegistry& registry);
/// Constant, Identity, If, Loop, ...
void registerControlFlowKernels(KernelRegistry& registry);
/// Windows, DFT, STFT, MelWeightMatrix; the ai.onnx.preview.training optimizers.
void registerSignalKernels(KernelRegistry& registry);
/// Sequence* ops, SplitToSequence, ConcatFromSequence, SequenceMap, Optional*.
void registerSequenceKernels(KernelRegistry& registry);
/// StringNormalizer, TfIdfVectorizer.
void registerTextKernels(KernelRegistry& registry);

} // namespace graphlens
