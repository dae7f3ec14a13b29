// Reference kernels for convolutions: Conv, ConvInteger, QLinearConv and ConvTranspose, N-d,
// grouped, with every padding mode; sums are accumulated in double.
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>

namespace graphlens::nn {
namespace {

std::vector<int64_t> spatialOf(const std::vector<int64_t>& dims) { return {dims.begin() + 2, dims.end()}; }

/// Zero points of a quantized convolution input: one value, or one per output channel.
std::vector<double> zeroPoints(const KernelContext& ctx, size_t index, int64_t channels) {
    if (!ctx.hasInput(index)) return std::vector<double>(size_t(channels), 0.0);
    std::vector<double> z = doublesOf(ctx.input(index));
    if (z.size() == 1) return std::vector<double>(size_t(channels), z[0]);
    if (int64_t(z.size()) != channels)
        throw KernelError("a zero point or scale has " + std::to_string(z.size()) + " values, expected 1 or " +
                          std::to_string(channels));
    return z;
}

/// w minus its per-output-channel zero point.
std::vector<double> centeredWeights(const Tensor& w, const std::vector<double>& zero) {
    std::vector<double> values = doublesOf(w);
    const size_t perChannel = zero.empty() ? 0 : values.size() / zero.size();
    for (size_t i = 0; i < values.size(); ++i) values[i] -= zero[i / perChannel];
    return values;
}

} // namespace

ConvShapes convShapes(const Attributes& a, const std::vector<int64_t>& x, const std::vector<int64_t>& w) {
    if (x.size() < 3) throw KernelError("the convolution input must have rank 3 or more, got " + ref::dimsText(x));
    if (w.size() != x.size())
        throw KernelError("the weights " + ref::dimsText(w) + " do not match the input " + ref::dimsText(x));
    ConvShapes s;
    s.batch = x[0];
    s.inChannels = x[1];
    s.outChannels = w[0];
    s.group = a.getInt("group", 1);
    if (s.group <= 0 || s.inChannels % s.group != 0 || w[1] * s.group != s.inChannels || s.outChannels % s.group != 0)
        throw KernelError("the weights " + ref::dimsText(w) + " do not fit the input " + ref::dimsText(x) +
                          " with group " + std::to_string(s.group));
    const std::vector<int64_t> kernel = spatialOf(w);
    if (a.has("kernel_shape") && a.getInts("kernel_shape") != kernel)
        throw KernelError("kernel_shape does not match the weights " + ref::dimsText(w));
    s.window = windowGeometry(a, spatialOf(x), kernel);
    return s;
}

std::vector<int64_t> convOutputDims(const ConvShapes& s) {
    std::vector<int64_t> dims{s.batch, s.outChannels};
    dims.insert(dims.end(), s.window.outSizes.begin(), s.window.outSizes.end());
    return dims;
}

std::vector<double> convolve(const ConvShapes& s, const std::vector<double>& x, const std::vector<double>& w,
                             const std::vector<double>& bias) {
    const WindowGeometry& g = s.window;
    const size_t rank = g.inSizes.size();
    const int64_t inPlane = ref::elementCount(g.inSizes), outPlane = ref::elementCount(g.outSizes);
    const int64_t kernelPlane = ref::elementCount(g.kernel);
    const int64_t groupIn = s.inChannels / s.group, groupOut = s.outChannels / s.group;
    const std::vector<int64_t> outPositions = allPositions(g.outSizes);
    const std::vector<int64_t> inStrides = ref::stridesOf(g.inSizes);
    ref::checkWorkingSet("the output", convOutputDims(s), sizeof(double));
    std::vector<double> out(size_t(ref::elementCount(convOutputDims(s))));
    std::vector<Tap> taps;
    for (int64_t o = 0; o < outPlane; ++o) {
        tapsAt(g, outPositions.data() + size_t(o) * rank, inStrides, taps);
        for (int64_t n = 0; n < s.batch; ++n)
            for (int64_t m = 0; m < s.outChannels; ++m) {
                const int64_t firstIn = (m / groupOut) * groupIn;
                double sum = bias.empty() ? 0.0 : bias[size_t(m)];
                for (int64_t c = 0; c < groupIn; ++c) {
                    const double* xs = x.data() + (n * s.inChannels + firstIn + c) * inPlane;
                    const double* ws = w.data() + (m * groupIn + c) * kernelPlane;
                    for (const Tap& t : taps) sum += xs[t.inputOffset] * ws[t.kernelIndex];
                }
                out[size_t((n * s.outChannels + m) * outPlane + o)] = sum;
            }
    }
    return out;
}

std::vector<double> convValues(const KernelContext& ctx, ConvShapes& s) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    s = convShapes(ctx.attributes(), x.dims(), w.dims());
    std::vector<double> bias;
    if (ctx.hasInput(2)) {
        bias = doublesOf(ctx.input(2));
        if (int64_t(bias.size()) != s.outChannels)
            throw KernelError("the bias has " + std::to_string(bias.size()) + " values for " +
                              std::to_string(s.outChannels) + " output channels");
    }
    return convolve(s, doublesOf(x), doublesOf(w), bias);
}

void conv(KernelContext& ctx) {
    ConvShapes s;
    const auto y = convValues(ctx, s);
    ctx.setOutput(0, tensorOfDoubles(ctx.input(0).dtype(), convOutputDims(s), y));
}

void convInteger(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const ConvShapes s = convShapes(ctx.attributes(), x.dims(), w.dims());
    const double xZero = zeroPoints(ctx, 2, 1)[0];
    std::vector<double> xs = doublesOf(x);
    for (double& v : xs) v -= xZero;
    const auto ws = centeredWeights(w, zeroPoints(ctx, 3, s.outChannels));
    ctx.setOutput(0, tensorOfDoubles(DType::Int32, convOutputDims(s), convolve(s, xs, ws, {})));
}

void qlinearConv(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(3);
    const ConvShapes s = convShapes(ctx.attributes(), x.dims(), w.dims());
    const float xScale = float(zeroPoints(ctx, 1, 1)[0]);
    const double xZero = zeroPoints(ctx, 2, 1)[0];
    const std::vector<double> wScale = zeroPoints(ctx, 4, s.outChannels);
    const float yScale = float(zeroPoints(ctx, 6, 1)[0]);
    const DType yType = ctx.hasInput(7) ? ctx.input(7).dtype() : x.dtype();
    const double yZero = zeroPoints(ctx, 7, 1)[0];
    std::vector<double> xs = doublesOf(x);
    for (double& v : xs) v -= xZero;
    const auto ws = centeredWeights(w, zeroPoints(ctx, 5, s.outChannels));
    const std::vector<double> bias = ctx.hasInput(8) ? zeroPoints(ctx, 8, s.outChannels) : std::vector<double>{};
    std::vector<double> y = convolve(s, xs, ws, bias);
    const int64_t plane = ref::elementCount(s.window.outSizes);
    for (size_t i = 0; i < y.size(); ++i) {
        const int64_t m = (int64_t(i) / plane) % s.outChannels;
        const float multiplier = xScale * float(wScale[size_t(m)]) / yScale;
        y[i] = saturateRound(double(float(y[i]) * multiplier) + yZero, yType);
    }
    ctx.setOutput(0, tensorOfDoubles(yType, convOutputDims(s), y));
}

namespace {

/// Output sizes and pads of a transposed convolution (output_shape, auto_pad or explicit pads).
WindowGeometry transposedGeometry(const Attributes& a, const std::vector<int64_t>& inSizes,
                                  const std::vector<int64_t>& kernel, std::vector<int64_t>& outputPadding) {
    const size_t rank = inSizes.size();
    WindowGeometry g{inSizes, kernel, attributeInts(a, "strides", rank, 1), attributeInts(a, "dilations", rank, 1),
                     attributeInts(a, "pads", 2 * rank, 0), std::vector<int64_t>(rank), std::vector<int64_t>(rank)};
    const std::vector<int64_t> given = g.padsBegin;
    g.padsBegin.resize(rank);
    for (size_t i = 0; i < rank; ++i)
        if (kernel[i] <= 0 || g.strides[i] <= 0 || g.dilations[i] <= 0)
            throw KernelError("kernel sizes, strides and dilations must be positive");
    outputPadding = attributeInts(a, "output_padding", rank, 0);
    std::vector<int64_t> outputShape = a.getInts("output_shape");
    if (!outputShape.empty() && outputShape.size() < rank) throw KernelError("output_shape has too few values");
    if (!outputShape.empty()) outputShape.erase(outputShape.begin(), outputShape.end() - int64_t(rank));
    const std::string autoPad = a.getString("auto_pad", "NOTSET");
    for (size_t i = 0; i < rank; ++i) {
        const int64_t full = g.strides[i] * (inSizes[i] - 1) + outputPadding[i] + (kernel[i] - 1) * g.dilations[i] + 1;
        if (outputShape.empty() && autoPad.rfind("SAME", 0) != 0) {
            g.padsBegin[i] = autoPad == "VALID" ? 0 : given[i];
            g.padsEnd[i] = autoPad == "VALID" ? 0 : given[i + rank];
            g.outSizes[i] = full - g.padsBegin[i] - g.padsEnd[i];
        } else {
            g.outSizes[i] = outputShape.empty() ? inSizes[i] * g.strides[i] : outputShape[i];
            const int64_t total = full - g.outSizes[i];  // negative when output_shape asks for more
            const int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);  // floor, as numpy
            g.padsBegin[i] = autoPad == "SAME_UPPER" ? half : total - half;
            g.padsEnd[i] = total - g.padsBegin[i];
        }
        if (g.outSizes[i] <= 0) throw KernelError("the transposed convolution has an empty output");
    }
    return g;
}

/// Scatters every input element times the kernel into the output (N, M, out...).
std::vector<double> convolveTransposed(const ConvShapes& s, const std::vector<double>& x, const std::vector<double>& w) {
    const WindowGeometry& g = s.window;
    const size_t rank = g.inSizes.size();
    const int64_t inPlane = ref::elementCount(g.inSizes), outPlane = ref::elementCount(g.outSizes);
    const int64_t kernelPlane = ref::elementCount(g.kernel);
    const int64_t groupIn = s.inChannels / s.group, groupOut = s.outChannels / s.group;
    const std::vector<int64_t> inPositions = allPositions(g.inSizes);
    const std::vector<int64_t> outStrides = ref::stridesOf(g.outSizes);
    ref::checkWorkingSet("the output", convOutputDims(s), sizeof(double));
    std::vector<double> out(size_t(ref::elementCount(convOutputDims(s))));
    WindowGeometry scatter = g;  // taps of an input position land on output positions
    scatter.inSizes = g.outSizes;
    std::vector<Tap> taps;
    for (int64_t i = 0; i < inPlane; ++i) {
        tapsAt(scatter, inPositions.data() + size_t(i) * rank, outStrides, taps);
        for (int64_t n = 0; n < s.batch; ++n)
            for (int64_t c = 0; c < s.inChannels; ++c) {
                const double value = x[size_t((n * s.inChannels + c) * inPlane + i)];
                const int64_t group = c / groupIn;
                for (int64_t mg = 0; mg < groupOut; ++mg) {
                    const int64_t m = group * groupOut + mg;
                    double* ys = out.data() + (n * s.outChannels + m) * outPlane;
                    const double* ws = w.data() + (c * groupOut + mg) * kernelPlane;
                    for (const Tap& t : taps) ys[t.inputOffset] += value * ws[t.kernelIndex];
                }
            }
    }
    return out;
}

} // namespace

void convTranspose(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const auto& xd = x.dims();
    const auto& wd = w.dims();
    if (xd.size() < 3 || wd.size() != xd.size())
        throw KernelError("the weights " + ref::dimsText(wd) + " do not match the input " + ref::dimsText(xd));
    ConvShapes s;
    s.batch = xd[0];
    s.inChannels = xd[1];
    s.group = ctx.attributes().getInt("group", 1);
    if (s.group <= 0 || wd[0] != s.inChannels || s.inChannels % s.group != 0)
        throw KernelError("the weights " + ref::dimsText(wd) + " do not fit the input " + ref::dimsText(xd) +
                          " with group " + std::to_string(s.group));
    s.outChannels = wd[1] * s.group;
    std::vector<int64_t> outputPadding;
    s.window = transposedGeometry(ctx.attributes(), spatialOf(xd), spatialOf(wd), outputPadding);
    std::vector<double> y = convolveTransposed(s, doublesOf(x), doublesOf(w));
    if (ctx.hasInput(2)) {
        const std::vector<double> bias = doublesOf(ctx.input(2));
        if (int64_t(bias.size()) != s.outChannels) throw KernelError("the bias must have one value per output channel");
        const int64_t plane = ref::elementCount(s.window.outSizes);
        for (size_t i = 0; i < y.size(); ++i) y[i] += bias[size_t((int64_t(i) / plane) % s.outChannels)];
    }
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), convOutputDims(s), y));
}

} // namespace graphlens::nn
