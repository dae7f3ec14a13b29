// Standard-ONNX forms of the one-node activations and normalizations the sub-graph fusions make,
// for `--portable` exports (rows of the lowering table in portable.cpp). Each puts the textbook
// sub-graph back in the fused node's place, in the form fuse-gelu, fuse-silu and fuse-layernorm
// recognize, so optimizing the portable model again fuses it again.
#pragma once

#include "core/graph/graph.h"

namespace graphlens {

class Rewriter;

/// com.microsoft Gelu(x) = x * (1 + erf(x / sqrt(2))) * 0.5.
void lowerGelu(Rewriter& rw, NodeId node, int64_t opset);
/// com.microsoft BiasGelu(x, b) = Gelu(x + b).
void lowerBiasGelu(Rewriter& rw, NodeId node, int64_t opset);
/// com.microsoft FastGelu(x[, b]) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), x + b first.
void lowerFastGelu(Rewriter& rw, NodeId node, int64_t opset);
/// com.microsoft QuickGelu(x, alpha) = x * sigmoid(alpha * x).
void lowerQuickGelu(Rewriter& rw, NodeId node, int64_t opset);
/// LayerNormalization (a model before opset 17, where ONNX does not define it) as ReduceMean, Sub,
/// Pow, ReduceMean, Add, Sqrt, Div, Mul and Add. Throws std::runtime_error when its mean or
/// inverse standard deviation output is read, or its axis cannot be resolved.
void lowerLayerNormalization(Rewriter& rw, NodeId node, int64_t opset);

} // namespace graphlens
