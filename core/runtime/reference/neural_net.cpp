// Reference kernels: the neural net family (see families.h). This file registers the family,
// holds the window geometry and value conversions its parts share, and the Dropout kernel.
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>

namespace graphlens {
namespace nn {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

} // namespace

std::vector<int64_t> attributeInts(const Attributes& a, const char* name, size_t count, int64_t fallback) {
    std::vector<int64_t> values = a.getInts(name, std::vector<int64_t>(count, fallback));
    if (values.empty()) values.assign(count, fallback);
    if (values.size() != count)
        throw KernelError(std::string(name) + " has " + std::to_string(values.size()) + " values, expected " +
                          std::to_string(count));
    return values;
}

WindowGeometry windowGeometry(const Attributes& a, const std::vector<int64_t>& inSizes,
                              const std::vector<int64_t>& kernel, bool ceilMode) {
    const size_t rank = inSizes.size();
    if (kernel.size() != rank)
        throw KernelError("kernel_shape has " + std::to_string(kernel.size()) + " values for " +
                          std::to_string(rank) + " spatial axes");
    WindowGeometry g{inSizes, kernel, attributeInts(a, "strides", rank, 1), attributeInts(a, "dilations", rank, 1),
                     {}, {}, std::vector<int64_t>(rank)};
    const std::vector<int64_t> pads = attributeInts(a, "pads", 2 * rank, 0);
    g.padsBegin.assign(pads.begin(), pads.begin() + int64_t(rank));
    g.padsEnd.assign(pads.begin() + int64_t(rank), pads.end());
    const std::string autoPad = a.getString("auto_pad", "NOTSET");
    for (size_t i = 0; i < rank; ++i) {
        if (kernel[i] <= 0 || g.strides[i] <= 0 || g.dilations[i] <= 0 || pads[i] < 0 || pads[i + rank] < 0)
            throw KernelError("kernel sizes, strides and dilations must be positive and pads non-negative");
        const int64_t extent = (kernel[i] - 1) * g.dilations[i] + 1;
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            g.outSizes[i] = ceilDiv(inSizes[i], g.strides[i]);
            const int64_t total = std::max<int64_t>(0, (g.outSizes[i] - 1) * g.strides[i] + extent - inSizes[i]);
            const int64_t half = total / 2;
            g.padsBegin[i] = autoPad == "SAME_UPPER" ? half : total - half;
            g.padsEnd[i] = total - g.padsBegin[i];
            continue;
        }
        if (autoPad == "VALID") g.padsBegin[i] = g.padsEnd[i] = 0;
        else if (autoPad != "NOTSET") throw KernelError("auto_pad '" + autoPad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
        const int64_t span = inSizes[i] + g.padsBegin[i] + g.padsEnd[i] - extent;
        if (span < 0) throw KernelError("the kernel is larger than the padded input");
        g.outSizes[i] = (ceilMode ? ceilDiv(span, g.strides[i]) : span / g.strides[i]) + 1;
        // A window may not start inside the end padding only.
        if (ceilMode && (g.outSizes[i] - 1) * g.strides[i] >= inSizes[i] + g.padsBegin[i]) --g.outSizes[i];
    }
    return g;
}

std::pair<int64_t, int64_t> tapsWithin(int64_t base, int64_t dilation, int64_t kernel, int64_t lo, int64_t hi) {
    // lo <= base + k * dilation < hi, 0 <= k < kernel (dilation > 0)
    const int64_t first = base >= lo ? 0 : (lo - base + dilation - 1) / dilation;
    const int64_t last = base >= hi ? 0 : std::min(kernel, (hi - 1 - base) / dilation + 1);
    return {std::min(first, kernel), std::max(last, std::min(first, kernel))};
}

void tapsAt(const WindowGeometry& g, const int64_t* out, const std::vector<int64_t>& inStrides, std::vector<Tap>& taps) {
    const size_t rank = g.inSizes.size();
    taps.clear();
    // Per axis, the kernel indices whose input coordinate lies inside; the taps are their box.
    std::vector<int64_t> first(rank), last(rank), base(rank), kernelStrides(rank, 1);
    for (size_t d = rank; d-- > 0;) {
        base[d] = out[d] * g.strides[d] - g.padsBegin[d];
        std::tie(first[d], last[d]) = tapsWithin(base[d], g.dilations[d], g.kernel[d], 0, g.inSizes[d]);
        if (first[d] == last[d]) return;
        if (d + 1 < rank && __builtin_mul_overflow(kernelStrides[d + 1], g.kernel[d + 1], &kernelStrides[d]))
            throw KernelError("the kernel has more positions than 64 bits count");
    }
    std::vector<int64_t> k = first;
    for (;;) {
        int64_t index = 0, offset = 0;
        for (size_t d = 0; d < rank; ++d) {
            index += k[d] * kernelStrides[d];
            offset += (base[d] + k[d] * g.dilations[d]) * inStrides[d];
        }
        taps.push_back({index, offset});
        size_t d = rank;
        while (d > 0 && ++k[d - 1] == last[d - 1]) {
            k[d - 1] = first[d - 1];
            --d;
        }
        if (d == 0) return;
    }
}

std::vector<int64_t> allPositions(const std::vector<int64_t>& sizes) {
    const size_t rank = sizes.size();
    ref::checkWorkingSet("the window positions of", sizes, rank * sizeof(int64_t));
    const int64_t count = ref::elementCount(sizes);
    std::vector<int64_t> out(size_t(count) * rank);
    std::vector<int64_t> counter(rank, 0);
    for (int64_t n = 0; n < count; ++n) {
        std::copy(counter.begin(), counter.end(), out.begin() + int64_t(size_t(n) * rank));
        for (size_t d = rank; d-- > 0;) {
            if (++counter[d] < sizes[d]) break;
            counter[d] = 0;
        }
    }
    return out;
}

std::vector<double> doublesOf(const Tensor& t) {
    if (t.dtype() == DType::String || t.dtype() == DType::Undefined)
        throw KernelError("expected a numeric tensor, got " + std::string(dtypeName(t.dtype())));
    std::vector<double> values = t.toDoubles();
    if (int64_t(values.size()) != std::max<int64_t>(t.numel(), 0))
        throw KernelError("cannot read the values of a " + std::string(dtypeName(t.dtype())) + " tensor");
    return values;
}

double scalarOf(const Tensor& t, const char* what) {
    const std::vector<double> values = doublesOf(t);
    if (values.size() != 1) throw KernelError(std::string(what) + " must hold exactly one value");
    return values[0];
}

Tensor tensorOfDoubles(DType dtype, std::vector<int64_t> dims, const std::vector<double>& values) {
    if (int64_t(values.size()) != ref::elementCount(dims)) throw KernelError("internal size mismatch writing an output");
    if (dtype == DType::Float16 || dtype == DType::BFloat16) {
        Tensor f = Tensor::allocate(DType::Float, dims);
        std::copy(values.begin(), values.end(), ref::mutableDataOf<float>(f));
        return ref::fromFloat(f, dtype);
    }
    Tensor out = Tensor::allocate(dtype, dims);
    ref::visitNumeric(dtype, "this op", [&]<typename T>() {
        T* p = ref::mutableDataOf<T>(out);
        for (size_t i = 0; i < values.size(); ++i) {
            if constexpr (std::is_floating_point_v<T>) {
                p[i] = T(values[i]);
            } else if constexpr (std::is_same_v<T, bool>) {
                p[i] = values[i] != 0.0;
            } else {
                const double v = std::isnan(values[i]) ? 0.0 : values[i];
                const double lo = double(std::numeric_limits<T>::lowest());
                const double hi = double(std::numeric_limits<T>::max());
                p[i] = v <= lo ? std::numeric_limits<T>::lowest() : v >= hi ? std::numeric_limits<T>::max() : T(v);
            }
        }
    });
    return out;
}

double saturateRound(double value, DType dtype) {
    double lo = 0, hi = 255;
    switch (dtype) {
    case DType::UInt8: break;
    case DType::Int8: lo = -128; hi = 127; break;
    case DType::UInt16: hi = 65535; break;
    case DType::Int16: lo = -32768; hi = 32767; break;
    case DType::Int32: lo = -2147483648.0; hi = 2147483647.0; break;
    default: throw KernelError("cannot quantize to " + std::string(dtypeName(dtype)));
    }
    if (std::isnan(value)) return lo;  // as ONNX Runtime's QuantizeLinear (and the CPU kernels)
    return std::clamp(std::nearbyint(value), lo, hi);  // the default rounding mode: half to even
}

namespace {

/// The mask numpy's legacy generator draws for np.random.seed(seed); uniform(0, 1) >= ratio.
std::vector<bool> dropoutMask(int64_t count, double ratio, uint32_t seed) {
    std::mt19937 engine(seed);
    std::vector<bool> keep(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        const uint32_t a = engine() >> 5, b = engine() >> 6;
        const double uniform = (a * 67108864.0 + b) / 9007199254740992.0;
        keep[size_t(i)] = uniform >= ratio;
    }
    return keep;
}

void dropout(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    double ratio = ctx.attributes().getFloat("ratio", 0.5f);
    bool training = false;
    if (ctx.opset() >= 12) {
        ratio = ctx.hasInput(1) ? scalarOf(ctx.input(1), "the ratio") : 0.5;
        if (ctx.hasInput(2)) {
            const auto mode = doublesOf(ctx.input(2));
            if (mode.size() != 1) throw KernelError("training_mode must hold exactly one element");
            training = mode[0] != 0.0;
        }
    }
    if (training && (ratio < 0.0 || ratio >= 1.0)) throw KernelError("the dropout ratio must be in [0, 1)");
    const bool dropping = training && ratio > 0.0;
    std::vector<bool> keep(size_t(std::max<int64_t>(x.numel(), 0)), true);
    if (dropping) {
        keep = dropoutMask(x.numel(), ratio, uint32_t(ctx.attributes().getInt("seed", 0)));
        std::vector<double> values = doublesOf(x);
        const double scale = 1.0 / (1.0 - ratio);
        for (size_t i = 0; i < values.size(); ++i) values[i] = keep[i] ? values[i] * scale : 0.0;
        ctx.setOutput(0, tensorOfDoubles(x.dtype(), x.dims(), values));
    } else {
        ctx.setOutput(0, x);
    }
    if (ctx.outputCount() < 2) return;
    const DType maskType = ctx.opset() >= 10 ? DType::Bool : x.dtype();
    std::vector<double> mask(keep.size());
    for (size_t i = 0; i < keep.size(); ++i) mask[i] = keep[i] ? 1.0 : 0.0;
    ctx.setOutput(1, tensorOfDoubles(maskType, x.dims(), mask));
}

} // namespace
} // namespace nn

void registerNeuralNetKernels(KernelRegistry& registry) {
    registry.add("Conv", nn::conv);
    registry.add("ConvInteger", nn::convInteger);
    registry.add("QLinearConv", nn::qlinearConv);
    registry.add("ConvTranspose", nn::convTranspose);
    registry.add("MaxPool", nn::maxPool);
    registry.add("AveragePool", nn::averagePool);
    registry.add("LpPool", nn::lpPool);
    registry.add("GlobalAveragePool", nn::globalAveragePool);
    registry.add("GlobalMaxPool", nn::globalMaxPool);
    registry.add("GlobalLpPool", nn::globalLpPool);
    registry.add("MaxUnpool", nn::maxUnpool);
    registry.add("Gemm", nn::gemm);
    registry.add("MatMul", nn::matMul);
    registry.add("MatMulInteger", nn::matMulInteger);
    registry.add("QLinearMatMul", nn::qlinearMatMul);
    registry.add("QuantizeLinear", nn::quantizeLinear);
    registry.add("DequantizeLinear", nn::dequantizeLinear);
    registry.add("DynamicQuantizeLinear", nn::dynamicQuantizeLinear);
    registry.add("Resize", nn::resize);
    registry.add("Upsample", nn::upsample);
    registry.add("Dropout", nn::dropout);
    registry.add("RoiAlign", nn::roiAlign);
    registry.add("NonMaxSuppression", nn::nonMaxSuppression);
    registry.add("GridSample", nn::gridSample);
    registry.add("LSTM", nn::lstm);
    registry.add("GRU", nn::gru);
    registry.add("RNN", nn::rnn);
    registry.add("FusedConv", nn::fusedConv, "com.microsoft");
    registry.add("QLinearAdd", nn::qlinearAdd, "com.microsoft");
    registry.add("QLinearLookupTable", nn::qlinearLookupTable, "ai.graphlens");
    registry.add("QLinearMul", nn::qlinearMul, "com.microsoft");
    registry.add("QLinearConcat", nn::qlinearConcat, "com.microsoft");
    registry.add("QLinearGlobalAveragePool", nn::qlinearGlobalAveragePool, "com.microsoft");
    registry.add("FusedGemm", nn::fusedGemm, "com.microsoft");
    registry.add("FusedMatMul", nn::fusedMatMul, "com.microsoft");
    registry.add("QGemm", nn::qgemm, "com.microsoft");
    registry.add("MatMulIntegerToFloat", nn::matMulIntegerToFloat, "com.microsoft");
}

} // namespace graphlens
