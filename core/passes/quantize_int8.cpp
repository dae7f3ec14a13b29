// quantize-int8-weights (lossy): large constant float weights of Conv, Gemm and MatMul are stored
// as int8 with one scale per output channel k and dequantized in the graph:
//   scale_k = max|W_k| / 127,   q = clamp(round(W / scale_k), -127, 127),   W' = q * scale_k
//   W  ->  DequantizeLinear(q, scale, zero_point = 0, axis)
// The pass reports what it costs: max |W - W'|, ||W - W'|| / ||W|| and the bytes saved.
#include "core/passes/quantize_int8.h"

#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"
#include "core/passes/subgraph_match.h"
#include "core/passes/weight_slots.h"

#include <algorithm>
#include <cmath>

namespace graphlens {
namespace {

constexpr int64_t kMinWeights = 1024;  ///< smaller tensors save too little to be worth the error

class QuantizeInt8Weights final : public Pass {
public:
    std::string id() const override { return "quantize-int8-weights"; }
    std::string title() const override { return "Store large weights as int8 (per output channel)"; }
    bool lossy() const override { return true; }
    std::string explanation() const override {
        return "Lossy: weights lose precision. Each constant float weight of a Conv, Gemm or MatMul "
               "with at least 1024 values is stored as int8 with one scale per output channel k (Conv: "
               "axis 0 of W; MatMul: the columns of B, its last axis; Gemm: axis 1 of B, or 0 with "
               "transB): scale_k = max|W_k| / 127, q = round(W / scale_k) clamped to [-127, 127], zero "
               "point 0. A DequantizeLinear(q, scale, 0, axis) node computes W' = q * scale_k where the "
               "weight was read, so every runtime still sees float weights while the file is about 4x "
               "smaller. Per-channel scales keep a channel of small weights from losing them all to a "
               "large neighbour. The notes report the error it introduces: the largest |W - W'|, the "
               "relative error ||W - W'|| / ||W|| and the bytes saved; with --verify the output error "
               "shows too. It declines smaller tensors, weights read by several nodes, weights that are "
               "not float32, and models before opset 13 (DequantizeLinear's axis).";
    }

    void run(Rewriter& rw, PassContext& context) override {
        WeightError total;
        int tensors = 0;
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (auto error = quantizeWeightOf(rw, id, context)) {
                total.add(*error);
                ++tensors;
            }
        }
        if (tensors == 0) return;
        rw.result().notes.push_back(
            "int8 weights: " + std::to_string(tensors) + " tensors; max abs weight error " + formatNumber(total.maxAbs) +
            "; relative weight error ||W - W'|| / ||W|| = " + formatNumber(total.relative()) + "; " +
            std::to_string(total.bytesBefore - total.bytesAfter) + " bytes saved (" + std::to_string(total.bytesBefore) +
            " -> " + std::to_string(total.bytesAfter) + ")");
    }

private:
    /// Quantizes the weight of `id` when it qualifies; its error, or nullopt (declined or no weight).
    static std::optional<WeightError> quantizeWeightOf(Rewriter& rw, NodeId id, const PassContext& context) {
        const Graph& g = rw.graph();
        const Node& n = g.node(id);
        const Tensor* w = constantInput(g, n, 1);
        if (!w) return std::nullopt;  // no weight, or one computed at run time (attention)
        const auto axis = outputChannelAxis(n, w->rank());
        if (!axis) return std::nullopt;
        const ValueId wv = n.input(1);
        std::string why;
        if (w->dtype() != DType::Float) why = "its weight " + quoted(g, wv) + " is not float32";
        else if (w->numel() < kMinWeights)
            why = "its weight " + quoted(g, wv) + " has " + std::to_string(w->numel()) + " values, fewer than " +
                  std::to_string(kMinWeights);
        else if (!hasSingleUse(g, wv)) why = "its weight " + quoted(g, wv) + " is read by other nodes too";
        else if (context.opset < 13)
            why = "per-channel DequantizeLinear (its axis attribute) needs opset 13, and the model imports opset " +
                  std::to_string(context.opset);
        if (!why.empty()) {
            rw.decline(id, "kept in float: " + why);
            return std::nullopt;
        }
        const QuantizedWeight qw = quantizePerChannel(*w, *axis);
        const std::string name = g.value(wv).name;
        const std::vector<int64_t> dims = w->dims();
        const Node* constantNode = producerOf(g, wv);
        const NodeId constantId = constantNode ? constantNode->id : kNoId;
        const std::string sentence =
            "quantized the weight '" + name + "' of " + describe(n) + " (" + std::to_string(w->numel()) + " values, " +
            std::to_string(dims[size_t(*axis)]) + " channels along axis " + std::to_string(*axis) +
            ") to int8: max abs error " + formatNumber(qw.error.maxAbs) + ", relative error " +
            formatNumber(qw.error.relative());
        const ValueId q = rw.addInitializer(name + "_quantized", qw.q);
        const ValueId scale = rw.addInitializer(name + "_scale", qw.scale);
        const ValueId zero = rw.addInitializer(name + "_zero_point", qw.zeroPoint);
        const NodeId from[] = {id};
        const NodeId dq = rw.addNode("DequantizeLinear", {q, scale, zero}, {name + "_dequantized"}, {{"axis", *axis}},
                                     from, name + "_DequantizeLinear");
        const ValueId dequantized = rw.graph().node(dq).output(0);
        rw.setValueInfo(dequantized, DType::Float, Shape::ofSizes(dims));
        rw.setNodeInput(id, 1, dequantized);
        if (constantId != kNoId) rw.removeNode(constantId);
        rw.count("numQuantized");
        rw.count("bytesSaved", qw.error.bytesBefore - qw.error.bytesAfter);
        rw.commit("quantize-int8-weight", sentence);
        return qw.error;
    }
};

} // namespace

QuantizedWeight quantizePerChannel(const Tensor& w, int64_t axis, int levels) {
    const float top = float(levels);
    const auto values = w.span<float>();
    const int64_t channels = w.dims()[size_t(axis)];
    int64_t inner = 1;
    for (size_t i = size_t(axis) + 1; i < w.rank(); ++i) inner *= w.dims()[i];
    auto channelOf = [&](size_t i) { return size_t((int64_t(i) / inner) % channels); };
    std::vector<float> scale(size_t(channels), 0.f);
    for (size_t i = 0; i < values.size(); ++i) scale[channelOf(i)] = std::max(scale[channelOf(i)], std::fabs(values[i]));
    for (float& s : scale) s = s > 0 ? s / top : 1.f;  // an all-zero channel stays exactly zero
    QuantizedWeight out{Tensor::allocate(DType::Int8, w.dims()), Tensor::floats({channels}, scale),
                        Tensor::fromVector(DType::Int8, {channels}, std::vector<int8_t>(size_t(channels), 0)), {}};
    auto q = out.q.mutableSpan<int8_t>();
    for (size_t i = 0; i < values.size(); ++i) {
        const float s = scale[channelOf(i)];
        q[i] = int8_t(std::clamp(std::nearbyint(values[i] / s), -top, top));
        const double error = double(values[i]) - double(float(q[i]) * s);  // what DequantizeLinear gives back
        out.error.maxAbs = std::max(out.error.maxAbs, std::fabs(error));
        out.error.sumSquaredError += error * error;
        out.error.sumSquared += double(values[i]) * values[i];
    }
    out.error.bytesBefore = int64_t(w.byteSize());
    out.error.bytesAfter = int64_t(values.size()) + channels * 5;  // int8 values, float scales, int8 zero points
    return out;
}

std::unique_ptr<Pass> makeQuantizeInt8WeightsPass() { return std::make_unique<QuantizeInt8Weights>(); }

} // namespace graphlens
