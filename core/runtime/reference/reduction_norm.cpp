// Reference kernels of the reduction family that normalize: BatchNormalization,
// InstanceNormalization, LayerNormalization, LpNormalization, MeanVarianceNormalization and LRN.
#include "core/runtime/reference/reduction_internal.h"

#include "core/onnx/schema_defaults.h"

#include <cmath>

namespace graphlens::reduction {
namespace {

/// The values of a per-channel input (scale, bias, mean, var) that must hold `channels` values.
std::vector<double> perChannel(const KernelContext& ctx, size_t i, int64_t channels, const char* what) {
    const Tensor& t = ctx.input(i);
    if (t.numel() != channels)
        throw KernelError(std::string("the ") + what + " has " + std::to_string(t.numel()) + " values for " +
                          std::to_string(channels) + " channels");
    return doublesOf(t, ctx.node().opType.c_str());
}

/// Per-channel mean and (population) variance over every axis but 1 of an [N, C, inner] tensor.
void channelMoments(const std::vector<double>& x, const AxisSplit& s, std::vector<double>& mean,
                    std::vector<double>& var) {
    mean.assign(size_t(s.length), 0.0);
    var.assign(size_t(s.length), 0.0);
    const double count = double(s.outer * s.inner);
    for (int64_t c = 0; c < s.length; ++c) {
        for (int64_t n = 0; n < s.outer; ++n)
            for (int64_t i = 0; i < s.inner; ++i) mean[size_t(c)] += x[size_t((n * s.length + c) * s.inner + i)];
        mean[size_t(c)] /= count;
        for (int64_t n = 0; n < s.outer; ++n)
            for (int64_t i = 0; i < s.inner; ++i) {
                const double d = x[size_t((n * s.length + c) * s.inner + i)] - mean[size_t(c)];
                var[size_t(c)] += d * d;
            }
        var[size_t(c)] /= count;
    }
}

/// Mean and 1/sqrt(variance + epsilon) of `count` values starting at `values`.
std::pair<double, double> momentsOf(const double* values, int64_t count, double epsilon) {
    double mean = 0.0, var = 0.0;
    for (int64_t k = 0; k < count; ++k) mean += values[k];
    mean /= double(count);
    for (int64_t k = 0; k < count; ++k) var += (values[k] - mean) * (values[k] - mean);
    var /= double(count);
    return {mean, 1.0 / std::sqrt(var + epsilon)};
}

DType stashType(const KernelContext& ctx) {
    const auto type = dtypeFromOnnx(int32_t(ctx.attributes().getInt("stash_type", 1)));
    if (!type || (*type != DType::Float && *type != DType::Double && *type != DType::Float16 &&
                  *type != DType::BFloat16))
        throw KernelError("stash_type must name a floating-point type");
    return *type;
}

/// The values of `t` broadcast (one way) to `dims`.
std::vector<double> broadcastTo(const Tensor& t, const std::vector<int64_t>& dims, const char* what) {
    if (t.rank() > dims.size() || ref::broadcastDims(t.dims(), dims) != dims)
        throw KernelError(std::string("the ") + what + " of shape " + ref::dimsText(t.dims()) +
                          " does not broadcast to " + ref::dimsText(dims));
    const std::vector<double> values = doublesOf(t, "LayerNormalization");
    std::vector<double> out;
    for (int64_t i : ref::broadcastIndices(t.dims(), dims)) out.push_back(values[size_t(i)]);
    return out;
}

} // namespace

void batchNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "BatchNormalization");
    if (x.rank() < 2) throw KernelError("BatchNormalization needs an input of rank 2 or more");
    const AxisSplit s = splitAt(x.dims(), 1);
    const std::vector<double> in = doublesOf(x, "BatchNormalization");
    const std::vector<double> scale = perChannel(ctx, 1, s.length, "scale");
    const std::vector<double> bias = perChannel(ctx, 2, s.length, "bias");
    std::vector<double> mean = perChannel(ctx, 3, s.length, "mean");
    std::vector<double> var = perChannel(ctx, 4, s.length, "variance");
    const double epsilon = floatAttributeOrDefault(ctx.attributes(), OpKey::of(ctx.node()), ctx.opset(), "epsilon");
    const bool training = ctx.opset() >= 14 && ctx.attributes().getInt("training_mode", 0) != 0;
    if (training) {
        std::vector<double> batchMean, batchVar;
        channelMoments(in, s, batchMean, batchVar);
        const double momentum = ctx.attributes().getFloat("momentum", 0.9f);
        std::vector<double> runningMean(mean.size()), runningVar(var.size());
        for (size_t c = 0; c < mean.size(); ++c) {
            runningMean[c] = mean[c] * momentum + batchMean[c] * (1.0 - momentum);
            runningVar[c] = var[c] * momentum + batchVar[c] * (1.0 - momentum);
        }
        if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOf(ctx.input(3).dtype(), {s.length}, runningMean));
        if (ctx.outputCount() > 2) ctx.setOutput(2, tensorOf(ctx.input(4).dtype(), {s.length}, runningVar));
        mean = batchMean;
        var = batchVar;
    }
    std::vector<double> out(in.size());
    for (size_t at = 0; at < in.size(); ++at) {
        const size_t c = size_t((int64_t(at) / s.inner) % s.length);
        out[at] = scale[c] * (in[at] - mean[c]) / std::sqrt(var[c] + epsilon) + bias[c];
    }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

void instanceNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "InstanceNormalization");
    if (x.rank() < 2) throw KernelError("InstanceNormalization needs an input of rank 2 or more");
    const AxisSplit s = splitAt(x.dims(), 1);
    const std::vector<double> in = doublesOf(x, "InstanceNormalization");
    const std::vector<double> scale = perChannel(ctx, 1, s.length, "scale");
    const std::vector<double> bias = perChannel(ctx, 2, s.length, "bias");
    const double epsilon = floatAttributeOrDefault(ctx.attributes(), OpKey::of(ctx.node()), ctx.opset(), "epsilon");
    std::vector<double> out(in.size());
    for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t c = 0; c < s.length; ++c) {
            const size_t base = size_t((n * s.length + c) * s.inner);
            const auto [mean, invStd] = momentsOf(in.data() + base, s.inner, epsilon);
            for (int64_t i = 0; i < s.inner; ++i)
                out[base + size_t(i)] = scale[size_t(c)] * (in[base + size_t(i)] - mean) * invStd + bias[size_t(c)];
        }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

void layerNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "LayerNormalization");
    if (x.rank() == 0) throw KernelError("LayerNormalization needs an input of rank 1 or more");
    const int64_t rank = int64_t(x.rank());
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", -1), rank);
    const double epsilon = floatAttributeOrDefault(ctx.attributes(), OpKey::of(ctx.node()), ctx.opset(), "epsilon");
    const AxisSplit s = flattenAt(x.dims(), axis);
    const std::vector<int64_t> normDims(x.dims().begin() + axis, x.dims().end());
    const std::vector<double> scale = broadcastTo(ctx.input(1), normDims, "scale");
    const std::vector<double> bias =
        ctx.hasInput(2) ? broadcastTo(ctx.input(2), normDims, "bias") : std::vector<double>(size_t(s.length), 0.0);
    const std::vector<double> in = doublesOf(x, "LayerNormalization");
    std::vector<double> out(in.size()), means(size_t(s.outer)), invStds(size_t(s.outer));
    for (int64_t o = 0; o < s.outer; ++o) {
        const size_t base = size_t(o * s.length);
        const auto [mean, invStd] = momentsOf(in.data() + base, s.length, epsilon);
        means[size_t(o)] = mean;
        invStds[size_t(o)] = invStd;
        for (size_t k = 0; k < size_t(s.length); ++k)
            out[base + k] = (in[base + k] - mean) * invStd * scale[k] + bias[k];
    }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
    std::vector<int64_t> statDims(x.dims().begin(), x.dims().begin() + axis);
    statDims.resize(size_t(rank), 1);
    const DType stash = stashType(ctx);
    if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOf(stash, statDims, means));
    if (ctx.outputCount() > 2) ctx.setOutput(2, tensorOf(stash, statDims, invStds));
}

void skipLayerNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "SkipLayerNormalization");
    if (x.rank() == 0) throw KernelError("SkipLayerNormalization needs an input of rank 1 or more");
    const std::vector<int64_t>& dims = x.dims();
    const int64_t width = dims.back(), rows = width == 0 ? 0 : ref::elementCount(dims) / width;
    const std::vector<int64_t> rowDims{width};
    const std::vector<double> skip = broadcastTo(ctx.input(1), dims, "skip");
    const std::vector<double> gamma = broadcastTo(ctx.input(2), rowDims, "gamma");
    const std::vector<double> zeros(size_t(width), 0.0);
    const std::vector<double> beta = ctx.hasInput(3) ? broadcastTo(ctx.input(3), rowDims, "beta") : zeros;
    const std::vector<double> bias = ctx.hasInput(4) ? broadcastTo(ctx.input(4), rowDims, "bias") : zeros;
    const double epsilon = ctx.attributes().getFloat("epsilon", 1e-12f);
    std::vector<double> sum = doublesOf(x, "SkipLayerNormalization");
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += skip[i] + bias[i % size_t(width)];
    std::vector<double> out(sum.size()), means(static_cast<size_t>(rows)), invStds(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
        const size_t base = size_t(r * width);
        const auto [mean, invStd] = momentsOf(sum.data() + base, width, epsilon);
        means[size_t(r)] = mean;
        invStds[size_t(r)] = invStd;
        for (size_t k = 0; k < size_t(width); ++k) out[base + k] = (sum[base + k] - mean) * invStd * gamma[k] + beta[k];
    }
    ctx.setOutput(0, tensorOf(x.dtype(), dims, out));
    std::vector<int64_t> statDims = dims;
    statDims.back() = 1;
    if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOf(DType::Float, statDims, means));
    if (ctx.outputCount() > 2) ctx.setOutput(2, tensorOf(DType::Float, statDims, invStds));
    if (ctx.outputCount() > 3) ctx.setOutput(3, tensorOf(x.dtype(), dims, sum));
}

void lpNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "LpNormalization");
    if (x.rank() == 0) throw KernelError("LpNormalization needs an input of rank 1 or more");
    const int64_t p = ctx.attributes().getInt("p", 2);
    if (p != 1 && p != 2) throw KernelError("LpNormalization supports p = 1 or 2, not " + std::to_string(p));
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", -1), int64_t(x.rank()));
    const AxisSplit s = x.numel() == 0 ? AxisSplit{0, 0, 0} : splitAt(x.dims(), axis);  // empty in, empty out
    const std::vector<double> in = doublesOf(x, "LpNormalization");
    std::vector<double> out(in.size());
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
            const size_t base = size_t(o * s.length * s.inner + i);
            double norm = 0.0;
            for (int64_t k = 0; k < s.length; ++k) {
                const double v = in[base + size_t(k * s.inner)];
                norm += p == 1 ? std::abs(v) : v * v;
            }
            if (p == 2) norm = std::sqrt(norm);
            for (int64_t k = 0; k < s.length; ++k)
                out[base + size_t(k * s.inner)] = in[base + size_t(k * s.inner)] / norm;
        }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

void meanVarianceNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "MeanVarianceNormalization");
    const int64_t rank = int64_t(x.rank());
    const std::vector<int64_t> axes = ctx.attributes().getInts("axes", {0, 2, 3});
    const std::vector<int64_t> groupOf = reductionTargets(x.dims(), reducedMask(axes, rank));
    const std::vector<double> in = doublesOf(x, "MeanVarianceNormalization");
    int64_t groups = 0;
    for (int64_t g : groupOf) groups = std::max(groups, g + 1);
    std::vector<double> sum(size_t(groups), 0.0), sumSquares(size_t(groups), 0.0), count(size_t(groups), 0.0);
    for (size_t i = 0; i < in.size(); ++i) {
        sum[size_t(groupOf[i])] += in[i];
        sumSquares[size_t(groupOf[i])] += in[i] * in[i];
        count[size_t(groupOf[i])] += 1.0;
    }
    std::vector<double> out(in.size());
    for (size_t i = 0; i < in.size(); ++i) {  // (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), as ONNX defines it
        const size_t g = size_t(groupOf[i]);
        const double mean = sum[g] / count[g];
        const double var = std::max(sumSquares[g] / count[g] - mean * mean, 0.0);
        out[i] = (in[i] - mean) / (std::sqrt(var) + 1e-9);
    }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

void lrn(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    requireFloating(x.dtype(), "LRN");
    if (x.rank() < 2) throw KernelError("LRN needs an input of rank 2 or more");
    const Attributes& a = ctx.attributes();
    const int64_t size = a.getInt("size", 0);
    if (size <= 0) throw KernelError("LRN needs a positive size");
    const double alpha = a.getFloat("alpha", 1e-4f), beta = a.getFloat("beta", 0.75f), bias = a.getFloat("bias", 1.0f);
    const AxisSplit s = splitAt(x.dims(), 1);
    const std::vector<double> in = doublesOf(x, "LRN");
    std::vector<double> out(in.size());
    const int64_t below = (size - 1) / 2, above = size - 1 - below;  // floor and ceil of (size-1)/2
    for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t c = 0; c < s.length; ++c)
            for (int64_t i = 0; i < s.inner; ++i) {
                double squares = 0.0;
                for (int64_t j = std::max<int64_t>(0, c - below); j <= std::min(s.length - 1, c + above); ++j) {
                    const double v = in[size_t((n * s.length + j) * s.inner + i)];
                    squares += v * v;
                }
                const size_t at = size_t((n * s.length + c) * s.inner + i);
                out[at] = in[at] / std::pow(bias + alpha / double(size) * squares, beta);
            }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

} // namespace graphlens::reduction
