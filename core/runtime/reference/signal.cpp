// Reference kernels for the signal processing ops of opset 17: the Hann, Hamming and Blackman
// windows, DFT (real or complex input, forward or inverse, onesided, a dft_length that pads or
// truncates), STFT and MelWeightMatrix. Plain O(n^2) transforms in double.
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <cmath>
#include <complex>
#include <numbers>

namespace graphlens {
namespace {

using Complex = std::complex<double>;

DType outputType(const KernelContext& ctx) {
    const int64_t code = ctx.attributes().getInt("output_datatype", 1);
    const auto type = dtypeFromOnnx(int32_t(code));
    if (!type || *type == DType::String || *type == DType::Bool)
        throw KernelError("output_datatype " + std::to_string(code) + " is not a numeric type");
    return *type;
}

/// sum_k a_k cos(2 pi k n / N') with the signs the window's formula gives; N' = N (periodic) or N - 1.
void cosineWindow(KernelContext& ctx, std::vector<double> coefficients) {
    const int64_t size = int64_t(nn::scalarOf(ctx.input(0), "the window size"));
    if (size < 0) throw KernelError("the window size is " + std::to_string(size) + "; it must not be negative");
    const bool periodic = ctx.attributes().getInt("periodic", 1) != 0;
    const double denominator = periodic ? double(size) : double(size - 1);
    std::vector<double> y(size_t(size), 0.0);
    for (int64_t n = 0; n < size; ++n) {
        double v = 0.0;
        for (size_t k = 0; k < coefficients.size(); ++k)
            v += coefficients[k] * (denominator > 0 ? std::cos(2.0 * std::numbers::pi * double(k) * double(n) / denominator) : 1.0);
        y[size_t(n)] = v;
    }
    ctx.setOutput(0, nn::tensorOfDoubles(outputType(ctx), {size}, y));
}

void hannWindow(KernelContext& ctx) { cosineWindow(ctx, {0.5, -0.5}); }
void hammingWindow(KernelContext& ctx) { cosineWindow(ctx, {25.0 / 46.0, -21.0 / 46.0}); }
void blackmanWindow(KernelContext& ctx) { cosineWindow(ctx, {0.42, -0.5, 0.08}); }

/// The DFT of `in` (n complex values) at `bins` frequencies over `length` points (zero padded).
void transform(const std::vector<Complex>& in, int64_t length, int64_t bins, bool inverse, std::vector<Complex>& out) {
    out.assign(size_t(bins), Complex(0, 0));
    const double sign = inverse ? 1.0 : -1.0;
    const int64_t used = std::min<int64_t>(int64_t(in.size()), length);
    for (int64_t k = 0; k < bins; ++k) {
        Complex sum(0, 0);
        for (int64_t n = 0; n < used; ++n) {
            const double angle = sign * 2.0 * std::numbers::pi * double((k * n) % length) / double(length);
            sum += in[size_t(n)] * Complex(std::cos(angle), std::sin(angle));
        }
        out[size_t(k)] = inverse ? sum / double(length) : sum;
    }
}

void dft(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const auto& dims = x.dims();
    if (dims.size() < 3 || (dims.back() != 1 && dims.back() != 2))
        throw KernelError("DFT takes [batch, signal dims..., 1 or 2], got " + ref::dimsText(dims));
    const int64_t rank = int64_t(dims.size());
    int64_t axis = ctx.attributes().getInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 1 || axis >= rank - 1) throw KernelError("axis " + std::to_string(axis) + " is not a signal axis");
    const bool inverse = ctx.attributes().getInt("inverse", 0) != 0;
    const bool onesided = ctx.attributes().getInt("onesided", 0) != 0;
    const int64_t n = dims[size_t(axis)];
    const int64_t length = ctx.hasInput(1) ? int64_t(nn::scalarOf(ctx.input(1), "dft_length")) : n;
    if (length <= 0) throw KernelError("dft_length must be positive");
    const int64_t bins = onesided ? length / 2 + 1 : length;
    const bool complexIn = dims.back() == 2;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= dims[size_t(i)];
    for (int64_t i = axis + 1; i < rank - 1; ++i) inner *= dims[size_t(i)];
    const std::vector<double> v = nn::doublesOf(x);
    std::vector<int64_t> outDims(dims.begin(), dims.end());
    outDims[size_t(axis)] = bins;
    outDims.back() = 2;
    std::vector<double> y(size_t(outer * bins * inner * 2));
    std::vector<Complex> line(static_cast<size_t>(n)), result;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            for (int64_t k = 0; k < n; ++k) {
                const size_t at = size_t(((o * n + k) * inner + i) * (complexIn ? 2 : 1));
                line[size_t(k)] = Complex(v[at], complexIn ? v[at + 1] : 0.0);
            }
            transform(line, length, bins, inverse, result);
            for (int64_t k = 0; k < bins; ++k) {
                const size_t at = size_t(((o * bins + k) * inner + i) * 2);
                y[at] = result[size_t(k)].real();
                y[at + 1] = result[size_t(k)].imag();
            }
        }
    ctx.setOutput(0, nn::tensorOfDoubles(x.dtype(), outDims, y));
}

void stft(KernelContext& ctx) {
    const Tensor& signal = ctx.input(0);
    const auto& dims = signal.dims();
    if (dims.size() != 3 || (dims[2] != 1 && dims[2] != 2))
        throw KernelError("STFT takes a signal [batch, length, 1 or 2], got " + ref::dimsText(dims));
    const int64_t step = int64_t(nn::scalarOf(ctx.input(1), "frame_step"));
    std::vector<double> window;
    if (ctx.hasInput(2)) window = nn::doublesOf(ctx.input(2));
    int64_t length = ctx.hasInput(3) ? int64_t(nn::scalarOf(ctx.input(3), "frame_length")) : int64_t(window.size());
    if (window.empty()) window.assign(size_t(length), 1.0);
    if (int64_t(window.size()) != length) throw KernelError("the window and frame_length disagree");
    if (step <= 0 || length <= 0 || length > dims[1]) throw KernelError("frame_step and frame_length must be positive and fit the signal");
    const bool onesided = ctx.attributes().getInt("onesided", 1) != 0;
    const int64_t bins = onesided ? length / 2 + 1 : length;
    const int64_t frames = 1 + (dims[1] - length) / step, batch = dims[0];
    const bool complexIn = dims[2] == 2;
    const std::vector<double> v = nn::doublesOf(signal);
    std::vector<double> y(size_t(batch * frames * bins * 2));
    std::vector<Complex> frame(static_cast<size_t>(length)), result;
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f) {
            for (int64_t k = 0; k < length; ++k) {
                const size_t at = size_t((b * dims[1] + f * step + k) * dims[2]);
                frame[size_t(k)] = Complex(v[at], complexIn ? v[at + 1] : 0.0) * window[size_t(k)];
            }
            transform(frame, length, bins, false, result);
            for (int64_t k = 0; k < bins; ++k) {
                const size_t at = size_t(((b * frames + f) * bins + k) * 2);
                y[at] = result[size_t(k)].real();
                y[at + 1] = result[size_t(k)].imag();
            }
        }
    ctx.setOutput(0, nn::tensorOfDoubles(signal.dtype(), {batch, frames, bins, 2}, y));
}

/// Triangular filters between mel-spaced edges, as the ONNX operator's definition computes them.
void melWeightMatrix(KernelContext& ctx) {
    const int64_t melBins = int64_t(nn::scalarOf(ctx.input(0), "num_mel_bins"));
    const int64_t dftLength = int64_t(nn::scalarOf(ctx.input(1), "dft_length"));
    const double sampleRate = nn::scalarOf(ctx.input(2), "sample_rate");
    const double lower = nn::scalarOf(ctx.input(3), "lower_edge_hertz"), upper = nn::scalarOf(ctx.input(4), "upper_edge_hertz");
    if (melBins <= 0 || dftLength <= 0 || sampleRate <= 0) throw KernelError("num_mel_bins, dft_length and sample_rate must be positive");
    const int64_t spectrogramBins = dftLength / 2 + 1;
    const double lowMel = 2595.0 * std::log10(1.0 + lower / 700.0), highMel = 2595.0 * std::log10(1.0 + upper / 700.0);
    const double melStep = (highMel - lowMel) / double(melBins + 2);
    std::vector<int64_t> edges(size_t(melBins + 2));
    for (int64_t i = 0; i < melBins + 2; ++i) {
        const double hz = 700.0 * (std::pow(10.0, (double(i) * melStep + lowMel) / 2595.0) - 1.0);
        edges[size_t(i)] = int64_t(std::floor(double(dftLength + 1) * hz / sampleRate));
    }
    std::vector<double> y(size_t(spectrogramBins * melBins), 0.0);
    auto set = [&](int64_t row, int64_t col, double v) {
        if (row < 0 || row >= spectrogramBins) throw KernelError("a mel filter falls outside the spectrogram");
        y[size_t(row * melBins + col)] = v;
    };
    for (int64_t i = 0; i < melBins; ++i) {
        const int64_t low = edges[size_t(i)], center = edges[size_t(i + 1)], high = edges[size_t(i + 2)];
        if (center == low) set(center, i, 1.0);
        else
            for (int64_t j = low; j <= center; ++j) set(j, i, double(j - low) / double(center - low));
        if (high > center)
            for (int64_t j = center; j < high; ++j) set(j, i, double(high - j) / double(high - center));
    }
    ctx.setOutput(0, nn::tensorOfDoubles(outputType(ctx), {spectrogramBins, melBins}, y));
}

// ---- ai.onnx.preview.training optimizers: R (rate), T (step), then n tensors of each kind -----

/// The optimizer's tensor groups: `groups` lists of n inputs after R and T.
size_t groupSize(const KernelContext& ctx, size_t groups) {
    const size_t rest = ctx.inputCount() - 2;
    if (rest % groups != 0 || rest == 0) throw KernelError("the optimizer's inputs do not form " + std::to_string(groups) + " equal groups");
    const size_t n = rest / groups;
    // Each tensor's gradient and state are read element by element beside it (fuzzing: a shorter
    // state tensor was read past its end).
    for (size_t k = 0; k < n; ++k)
        for (size_t j = 1; j < groups; ++j)
            if (ctx.input(2 + j * n + k).numel() != ctx.input(2 + k).numel())
                throw KernelError("the optimizer's input " + std::to_string(2 + j * n + k) + " has " +
                                  std::to_string(ctx.input(2 + j * n + k).numel()) + " elements but the tensor it goes with has " +
                                  std::to_string(ctx.input(2 + k).numel()));
    return n;
}

void adagrad(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    const double r = nn::scalarOf(ctx.input(0), "R"), t = nn::scalarOf(ctx.input(1), "T");
    const double decay = a.getFloat("decay_factor", 0.f), epsilon = a.getFloat("epsilon", 0.f), norm = a.getFloat("norm_coefficient", 0.f);
    const size_t n = groupSize(ctx, 3);
    const double rate = r / (1.0 + t * decay);
    for (size_t k = 0; k < n; ++k) {
        auto x = nn::doublesOf(ctx.input(2 + k));
        const auto g = nn::doublesOf(ctx.input(2 + n + k));
        auto h = nn::doublesOf(ctx.input(2 + 2 * n + k));
        for (size_t i = 0; i < x.size(); ++i) {
            const double gr = norm * x[i] + g[i];
            h[i] += gr * gr;
            x[i] -= rate * gr / (std::sqrt(h[i]) + epsilon);
        }
        ctx.setOutput(k, nn::tensorOfDoubles(ctx.input(2 + k).dtype(), ctx.input(2 + k).dims(), x));
        ctx.setOutput(n + k, nn::tensorOfDoubles(ctx.input(2 + 2 * n + k).dtype(), ctx.input(2 + 2 * n + k).dims(), h));
    }
}

void momentum(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    const double r = nn::scalarOf(ctx.input(0), "R"), t = nn::scalarOf(ctx.input(1), "T");
    const double alpha = a.getFloat("alpha", 0.f), beta = a.getFloat("beta", 0.f), norm = a.getFloat("norm_coefficient", 0.f);
    const std::string mode = a.getString("mode", "standard");
    if (mode != "standard" && mode != "nesterov") throw KernelError("mode is '" + mode + "'; it must be standard or nesterov");
    const size_t n = groupSize(ctx, 3);
    const double betaAdjusted = t > 0 ? beta : 1.0;
    for (size_t k = 0; k < n; ++k) {
        auto x = nn::doublesOf(ctx.input(2 + k));
        const auto g = nn::doublesOf(ctx.input(2 + n + k));
        auto v = nn::doublesOf(ctx.input(2 + 2 * n + k));
        for (size_t i = 0; i < x.size(); ++i) {
            const double gr = norm * x[i] + g[i];
            v[i] = alpha * v[i] + betaAdjusted * gr;
            x[i] -= mode == "nesterov" ? r * (gr + alpha * v[i]) : r * v[i];
        }
        ctx.setOutput(k, nn::tensorOfDoubles(ctx.input(2 + k).dtype(), ctx.input(2 + k).dims(), x));
        ctx.setOutput(n + k, nn::tensorOfDoubles(ctx.input(2 + 2 * n + k).dtype(), ctx.input(2 + 2 * n + k).dims(), v));
    }
}

void adam(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    const double r = nn::scalarOf(ctx.input(0), "R"), t = nn::scalarOf(ctx.input(1), "T");
    const double alpha = a.getFloat("alpha", 0.9f), beta = a.getFloat("beta", 0.999f), epsilon = a.getFloat("epsilon", 0.f);
    const double norm = a.getFloat("norm_coefficient", 0.f), normPost = a.getFloat("norm_coefficient_post", 0.f);
    const size_t n = groupSize(ctx, 4);
    const double rate = t > 0 ? r * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : r;
    for (size_t k = 0; k < n; ++k) {
        auto x = nn::doublesOf(ctx.input(2 + k));
        const auto g = nn::doublesOf(ctx.input(2 + n + k));
        auto v = nn::doublesOf(ctx.input(2 + 2 * n + k));
        auto h = nn::doublesOf(ctx.input(2 + 3 * n + k));
        for (size_t i = 0; i < x.size(); ++i) {
            const double gr = norm * x[i] + g[i];
            v[i] = alpha * v[i] + (1.0 - alpha) * gr;
            h[i] = beta * h[i] + (1.0 - beta) * gr * gr;
            x[i] = (1.0 - normPost) * (x[i] - rate * v[i] / (std::sqrt(h[i]) + epsilon));
        }
        ctx.setOutput(k, nn::tensorOfDoubles(ctx.input(2 + k).dtype(), ctx.input(2 + k).dims(), x));
        ctx.setOutput(n + k, nn::tensorOfDoubles(ctx.input(2 + 2 * n + k).dtype(), ctx.input(2 + 2 * n + k).dims(), v));
        ctx.setOutput(2 * n + k, nn::tensorOfDoubles(ctx.input(2 + 3 * n + k).dtype(), ctx.input(2 + 3 * n + k).dims(), h));
    }
}

} // namespace

void registerSignalKernels(KernelRegistry& registry) {
    registry.add("HannWindow", hannWindow);
    registry.add("HammingWindow", hammingWindow);
    registry.add("BlackmanWindow", blackmanWindow);
    registry.add("DFT", dft);
    registry.add("STFT", stft);
    registry.add("MelWeightMatrix", melWeightMatrix);
    registry.add("Adagrad", adagrad, "ai.onnx.preview.training");
    registry.add("Momentum", momentum, "ai.onnx.preview.training");
    registry.add("Adam", adam, "ai.onnx.preview.training");
}

} // namespace graphlens
