// A two-head self-attention block with a dynamic batch and sequence, written the way PyTorch
// exports it: the head split reshapes to Concat(Shape(x)[0], Shape(x)[1], 2, Shape(x)[2] / 2),
// shape arithmetic ONNX shape inference cannot follow (it has no rule for Div), so the shapes
// after that Reshape, and the FLOPs of the two attention MatMuls, are unknown until the passes
// fold the shape computation.
#pragma once

#include "core/graph/builder.h"
#include "core/onnx/shape_inference.h"

#include <vector>

namespace graphlens::testing {

/// Six MatMuls: the q, k, v and output projections (32x32) and the two attention products.
inline Model symbolicAttention() {
    GraphBuilder b("attention");
    const ValueId x = b.input("x", DType::Float, std::vector<Dim>{Dim("batch"), Dim("sequence"), Dim(32)});
    const auto weight = [&b](const char* name) {
        return b.initializer(name, Tensor::floats({32, 32}, std::vector<float>(32 * 32, 0.01f)));
    };
    const auto unsqueezed = [&b](ValueId v) { return b.op("Unsqueeze", {v, b.constant(Tensor::int64s({1}, {0}))}); };
    const ValueId q = b.op("MatMul", {x, weight("wq")}, {}, "/attn/q/MatMul");
    const ValueId k = b.op("MatMul", {x, weight("wk")}, {}, "/attn/k/MatMul");
    const ValueId v = b.op("MatMul", {x, weight("wv")}, {}, "/attn/v/MatMul");
    const ValueId shape = b.op("Shape", {x});
    const auto dim = [&](int64_t i) { return b.op("Gather", {shape, b.constant(Tensor::int64s({}, {i}))}, {{"axis", int64_t(0)}}); };
    const ValueId batch = dim(0), sequence = dim(1), hidden = dim(2);
    const ValueId headDim = b.op("Div", {hidden, b.constant(Tensor::int64s({}, {2}))});
    const ValueId split = b.op("Concat", {unsqueezed(batch), unsqueezed(sequence), b.constant(Tensor::int64s({1}, {2})), unsqueezed(headDim)},
                               {{"axis", int64_t(0)}});
    const auto heads = [&](ValueId t, std::vector<int64_t> perm) {
        return b.op("Transpose", {b.op("Reshape", {t, split})}, {{"perm", perm}});
    };
    const ValueId scores = b.op("MatMul", {heads(q, {0, 2, 1, 3}), heads(k, {0, 2, 3, 1})}, {}, "/attn/scores/MatMul");
    const ValueId probs = b.op("Softmax", {scores}, {{"axis", int64_t(-1)}});
    const ValueId context = b.op("MatMul", {probs, heads(v, {0, 2, 1, 3})}, {}, "/attn/context/MatMul");
    const ValueId merge = b.op("Concat", {unsqueezed(batch), unsqueezed(sequence), unsqueezed(hidden)}, {{"axis", int64_t(0)}});
    const ValueId merged = b.op("Reshape", {b.op("Transpose", {context}, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}), merge});
    b.output(b.op("MatMul", {merged, weight("wo")}, {}, "/attn/out/MatMul"));
    Model model = b.model();
    inferShapesForInputs(model, {});  // as a loaded model has them
    return model;
}

/// The FLOPs of symbolicAttention() with batch and sequence 1: four 1x32 by 32x32 projections,
/// the scores (2 heads, 1x16 by 16x1) and the context (2 heads, 1x1 by 1x16).
constexpr int64_t kSymbolicAttentionFlops = 4 * 2 * 32 * 32 + 2 * 2 * 16 + 2 * 2 * 16;

} // namespace graphlens::testing
