// Folding a per-output-channel affine map y -> scale * y + shift into the node computing y, a
// Conv, ConvTranspose, Gemm or MatMul with constant weights: W' = W scaled along its output
// channels, b' = b * scale + shift. fold-batchnorm and fold-scale-into-conv share it.
#pragma once

#include "core/passes/rewriter.h"
#include "core/passes/tensor_math.h"

#include <memory>
#include <optional>
#include <string>

namespace graphlens {

class RewritePattern;

/// y -> scale * y + shift, with one number per output channel (or one for every channel).
struct PerChannelAffine {
    math::FloatTensor scale;
    math::FloatTensor shift;
};

/// Inference BatchNormalization `bn` as y = k * x + b per channel, k = gamma / sqrt(var + eps),
/// b = beta - mean * k (as fold-batchnorm computes it); nullopt with `why` when it runs in
/// training mode or its input or parameters are not float32 (constants of one size).
std::optional<PerChannelAffine> batchNormAffineOf(const Graph& graph, const Node& bn, std::string& why);

/// A node whose weights can absorb a per-channel affine map of its output.
struct FoldTarget {
    NodeId node = kNoId;
    size_t channelAxis = 1;  ///< the axis of its output holding the output channels
    size_t outputRank = 0;
    int64_t channels = 0;
};

/// The Conv, ConvTranspose, Gemm or MatMul computing `value`, when it can absorb an affine map:
/// float32 constant weights (and bias), and `value` read by one node and not a graph output.
/// Nullopt with `why` empty when the producer is none of those ops (nothing to fold into), or
/// with `why` saying which condition failed.
std::optional<FoldTarget> foldTargetOf(const Graph& graph, ValueId value, std::string& why);

/// Replaces the target and `consumer` (which applies `affine` to the target's output) by the
/// target's op with W' = W * scale per output channel and b' = b * scale + shift (a MatMul that
/// gains a bias becomes a Gemm); the new node produces the consumer's outputs. Returns kNoId,
/// having changed nothing, with `why` when it cannot.
NodeId foldIntoTarget(Rewriter& rewriter, const FoldTarget& target, NodeId consumer,
                      const PerChannelAffine& affine, std::string& why);

/// fold-scale-into-conv's pattern restricted to Conv targets: the CPU plan's form, which keeps a
/// kernel for every node (a MatMul that took in a scale would report under the Mul).
std::unique_ptr<RewritePattern> makeFoldAffineIntoConvPattern();

} // namespace graphlens
