// Reference kernels of the reduction family for losses: NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss (reduction none/sum/mean, ignore_index, class weights).
#include "core/runtime/reference/reduction_internal.h"

#include <cmath>

namespace graphlens::reduction {
namespace {

/// Class weights (input 2, one per class) or empty when omitted.
std::vector<double> classWeights(const KernelContext& ctx, int64_t classes) {
    if (!ctx.hasInput(2)) return {};
    const Tensor& w = ctx.input(2);
    if (w.rank() != 1 || w.numel() != classes)
        throw KernelError("the weights must be a vector of " + std::to_string(classes) + " values, one per class");
    return doublesOf(w, ctx.node().opType.c_str());
}

/// Checks that the target has the input's shape without the class axis; returns its values.
std::vector<int64_t> targetValues(const KernelContext& ctx, const std::vector<int64_t>& inputDims) {
    const Tensor& target = ctx.input(1);
    std::vector<int64_t> expected = inputDims;
    expected.erase(expected.begin() + 1);
    if (target.dims() != expected)
        throw KernelError("the target has the shape " + ref::dimsText(target.dims()) + ", expected " +
                          ref::dimsText(expected));
    return ref::toInt64s(target);
}

/// The loss of `logProb` (shaped like the input, [N, C, d1, ...]) against the target (input 1),
/// reduced as the `reduction` attribute says; written to output 0 with `type`.
void writeLoss(KernelContext& ctx, const std::vector<double>& logProb, const std::vector<int64_t>& dims, DType type) {
    const AxisSplit s = splitAt(dims, 1);
    const std::vector<int64_t> target = targetValues(ctx, dims);
    const std::vector<double> weights = classWeights(ctx, s.length);
    const Attribute* ignoreAttr = ctx.attributes().find("ignore_index");
    const int64_t ignore = ignoreAttr ? ctx.attributes().getInt("ignore_index", 0) : 0;
    std::vector<double> loss(target.size(), 0.0), weightOf(target.size(), 0.0);
    for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t d = 0; d < s.inner; ++d) {
            const size_t at = size_t(n * s.inner + d);
            const int64_t t = target[at];
            if (ignoreAttr && t == ignore) continue;
            if (t < 0 || t >= s.length)
                throw KernelError("the target " + std::to_string(t) + " is out of range for " +
                                  std::to_string(s.length) + " classes");
            weightOf[at] = weights.empty() ? 1.0 : weights[size_t(t)];
            loss[at] = -logProb[size_t((n * s.length + t) * s.inner + d)] * weightOf[at];
        }
    const std::string reduction = ctx.attributes().getString("reduction", "mean");
    if (reduction == "none") return ctx.setOutput(0, tensorOf(type, ctx.input(1).dims(), loss));
    double total = 0.0, totalWeight = 0.0;
    for (size_t i = 0; i < loss.size(); ++i) {
        total += loss[i];
        totalWeight += weightOf[i];
    }
    if (reduction == "sum") return ctx.setOutput(0, tensorOf(type, {}, {total}));
    if (reduction == "mean") return ctx.setOutput(0, tensorOf(type, {}, {total / totalWeight}));
    throw KernelError("unknown reduction '" + reduction + "' (expected none, sum or mean)");
}

void requireClassAxis(const Tensor& x, const std::string& op) {
    requireFloating(x.dtype(), op.c_str());
    if (x.rank() < 2) throw KernelError(op + " needs an input of shape [N, C, ...]");
}

} // namespace

void negativeLogLikelihoodLoss(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireClassAxis(x, ctx.node().opType);
    writeLoss(ctx, doublesOf(x, "NegativeLogLikelihoodLoss"), x.dims(), x.dtype());
}

void softmaxCrossEntropyLoss(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireClassAxis(x, ctx.node().opType);
    const AxisSplit s = splitAt(x.dims(), 1);
    const std::vector<double> scores = doublesOf(x, "SoftmaxCrossEntropyLoss");
    std::vector<double> logProb(scores.size());
    for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t d = 0; d < s.inner; ++d) {  // log-softmax over the class axis
            const size_t base = size_t(n * s.length * s.inner + d);
            double max = -INFINITY, sum = 0.0;
            for (int64_t c = 0; c < s.length; ++c) max = std::max(max, scores[base + size_t(c * s.inner)]);
            for (int64_t c = 0; c < s.length; ++c) sum += std::exp(scores[base + size_t(c * s.inner)] - max);
            for (int64_t c = 0; c < s.length; ++c)
                logProb[base + size_t(c * s.inner)] = scores[base + size_t(c * s.inner)] - max - std::log(sum);
        }
    writeLoss(ctx, logProb, x.dims(), x.dtype());
    if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOf(x.dtype(), x.dims(), logProb));
}

} // namespace graphlens::reduction
