// Operator families: the coarse kind of work an op does (convolution, activation, shape, ...),
// which the canvas shows as the color of a node.
#pragma once

#include <string_view>

namespace graphlens {

enum class OpFamily {
    Linear,         ///< Conv, ConvTranspose, Gemm, MatMul
    Activation,     ///< Relu, Sigmoid, Gelu, Softmax, ...
    Normalization,  ///< BatchNormalization, LayerNormalization, ...
    Pooling,        ///< MaxPool, AveragePool, GlobalAveragePool, ...
    Elementwise,    ///< Add, Mul, Sqrt, Where, ...
    ShapeLayout,    ///< Reshape, Transpose, Concat, Gather, Slice, Cast, ...
    Reduction,      ///< ReduceMean, ArgMax, TopK, ...
    ControlFlow,    ///< If, Loop, Scan
    Fused,          ///< com.microsoft and ai.graphlens fused operators
    Other,
};

constexpr int kOpFamilyCount = static_cast<int>(OpFamily::Other) + 1;

/// The family of `opType` in `domain` ("" is the default ONNX domain).
OpFamily opFamily(std::string_view opType, std::string_view domain = {});

/// A short English name of the family ("convolution / linear", "activation", ...), for legends.
std::string_view opFamilyName(OpFamily family);

} // namespace graphlens
