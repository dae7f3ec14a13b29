// Reference kernels for linear quantization: QuantizeLinear and DequantizeLinear (per tensor or
// per axis), DynamicQuantizeLinear, ONNX Runtime's QLinearAdd, QLinearMul, QLinearConcat and QLinearGlobalAveragePool,
// and the CPU plan's QLinearLookupTable.
// Scaling is done in float, as ONNX's reference does.
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>

namespace graphlens::nn {
namespace {

/// For each element of x, the index of its scale / zero point: 0 per tensor, else its
/// coordinate along `axis`.
std::vector<size_t> parameterIndex(const KernelContext& ctx, const Tensor& x, const Tensor& scale) {
    std::vector<size_t> index(size_t(std::max<int64_t>(x.numel(), 0)), 0);
    if (scale.numel() == 1 && scale.rank() <= 1) return index;
    if (scale.rank() != 1) throw KernelError("the scale must be a scalar or a 1-D tensor");
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", 1), int64_t(x.rank()));
    if (scale.dims()[0] != x.dims()[size_t(axis)])
        throw KernelError("the scale has " + std::to_string(scale.dims()[0]) + " values for an axis of size " +
                          std::to_string(x.dims()[size_t(axis)]));
    const int64_t inner = ref::stridesOf(x.dims())[size_t(axis)];
    for (size_t i = 0; i < index.size(); ++i) index[i] = size_t((int64_t(i) / inner) % scale.dims()[0]);
    return index;
}

std::vector<double> zeroPointValues(const KernelContext& ctx, size_t input, const Tensor& scale) {
    if (!ctx.hasInput(input)) return std::vector<double>(size_t(std::max<int64_t>(scale.numel(), 1)), 0.0);
    const Tensor& zero = ctx.input(input);
    if (zero.numel() != scale.numel()) throw KernelError("the zero point and the scale have different sizes");
    return doublesOf(zero);
}

} // namespace

void quantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const DType yType = ctx.hasInput(2) ? ctx.input(2).dtype() : DType::UInt8;
    const auto index = parameterIndex(ctx, x, scale);
    const auto scales = doublesOf(scale);
    const auto zeros = zeroPointValues(ctx, 2, scale);
    std::vector<double> y = doublesOf(x);
    for (size_t i = 0; i < y.size(); ++i) {
        const double scaled = x.dtype() == DType::Double ? y[i] / scales[index[i]]
                                                         : double(float(y[i]) / float(scales[index[i]]));
        y[i] = saturateRound(std::nearbyint(scaled) + zeros[index[i]], yType);
    }
    ctx.setOutput(0, tensorOfDoubles(yType, x.dims(), y));
}

void dequantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const auto index = parameterIndex(ctx, x, scale);
    const auto scales = doublesOf(scale);
    const auto zeros = zeroPointValues(ctx, 2, scale);
    std::vector<double> y = doublesOf(x);
    for (size_t i = 0; i < y.size(); ++i)
        y[i] = double(float(y[i] - zeros[index[i]]) * float(scales[index[i]]));
    const DType yType = scale.dtype() == DType::Float16 || scale.dtype() == DType::Double ? scale.dtype() : DType::Float;
    ctx.setOutput(0, tensorOfDoubles(yType, x.dims(), y));
}

void dynamicQuantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const std::vector<double> values = doublesOf(x);
    float low = 0.0f, high = 0.0f;
    for (double v : values) {
        low = std::min(low, float(v));
        high = std::max(high, float(v));
    }
    const float scale = (high - low) / 255.0f;
    const double zero = scale == 0.0f ? 0.0 : saturateRound(double((0.0f - low) / scale), DType::UInt8);
    std::vector<double> y(values.size(), zero);
    if (scale != 0.0f)
        for (size_t i = 0; i < y.size(); ++i) y[i] = saturateRound(std::nearbyint(double(float(values[i]) / scale)) + zero, DType::UInt8);
    ctx.setOutput(0, tensorOfDoubles(DType::UInt8, x.dims(), y));
    if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOfDoubles(DType::Float, {}, {double(scale)}));
    if (ctx.outputCount() > 2) ctx.setOutput(2, tensorOfDoubles(DType::UInt8, {}, {zero}));
}

namespace {

/// Input `i` of ONNX Runtime's QLinear op `name`: its one scale or zero point; `fallback` where
/// the input is omitted, and without a fallback an omitted input is an error (as input() says).
double scalarParameter(const KernelContext& ctx, size_t i, const char* name, std::optional<double> fallback = std::nullopt) {
    if (fallback && !ctx.hasInput(i)) return *fallback;
    const std::vector<double> v = doublesOf(ctx.input(i));
    if (v.size() != 1) throw KernelError(std::string(name) + " takes one scale and zero point per input");
    return v[0];
}

/// C = QuantizeLinear(DequantizeLinear(A) op DequantizeLinear(B)) with broadcasting, each step in
/// float as the three ops compute it (A, A_scale, A_zero, B, B_scale, B_zero, C_scale, C_zero).
template <typename Op>
void qlinearBinary(KernelContext& ctx, const char* name, Op op) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    const auto scalarAt = [&](size_t i, double fallback) { return scalarParameter(ctx, i, name, fallback); };
    const float as = float(scalarAt(1, 1)), bs = float(scalarAt(4, 1)), cs = float(scalarAt(6, 1));
    const double az = scalarAt(2, 0), bz = scalarAt(5, 0), cz = scalarAt(7, 0);
    const DType cType = ctx.hasInput(7) ? ctx.input(7).dtype() : a.dtype();
    const std::vector<int64_t> dims = ref::broadcastDims(a.dims(), b.dims());
    const auto ai = ref::broadcastIndices(a.dims(), dims), bi = ref::broadcastIndices(b.dims(), dims);
    const std::vector<double> av = doublesOf(a), bv = doublesOf(b);
    std::vector<double> y(ai.size());
    for (size_t i = 0; i < y.size(); ++i) {
        const float result = op(float(av[size_t(ai[i])] - az) * as, float(bv[size_t(bi[i])] - bz) * bs);
        y[i] = saturateRound(std::nearbyint(double(result / cs)) + cz, cType);
    }
    ctx.setOutput(0, tensorOfDoubles(cType, dims, y));
}

} // namespace

/// com.microsoft QLinearAdd: the QDQ subgraph DQ(A) + DQ(B) -> Q it replaces.
void qlinearAdd(KernelContext& ctx) {
    qlinearBinary(ctx, "QLinearAdd", [](float x, float y) { return x + y; });
}

/// com.microsoft QLinearMul: DQ(A) * DQ(B) -> Q.
void qlinearMul(KernelContext& ctx) {
    qlinearBinary(ctx, "QLinearMul", [](float x, float y) { return x * y; });
}

/// com.microsoft QLinearConcat (Y_scale, Y_zero_point, then X, X_scale, X_zero_point for each
/// input; axis): Q(Concat(DQ(X_1), DQ(X_2), ...)), each step in float as those ops compute it.
void qlinearConcat(KernelContext& ctx) {
    if (ctx.inputCount() < 5 || (ctx.inputCount() - 2) % 3 != 0)
        throw KernelError("QLinearConcat takes Y_scale, Y_zero_point and a tensor, scale and zero point per input");
    const auto scalarAt = [&](size_t i) { return scalarParameter(ctx, i, "QLinearConcat"); };
    const float ys = float(scalarAt(0));
    const double yz = scalarAt(1);
    const DType yType = ctx.input(1).dtype();
    const size_t count = (ctx.inputCount() - 2) / 3;
    const Tensor& first = ctx.input(2);
    if (first.rank() == 0) throw KernelError("QLinearConcat cannot concatenate scalars");
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", 0), int64_t(first.rank()));
    std::vector<int64_t> dims = first.dims();
    dims[size_t(axis)] = 0;
    for (size_t k = 0; k < count; ++k) {
        const Tensor& x = ctx.input(2 + 3 * k);
        if (x.rank() != first.rank()) throw KernelError("QLinearConcat's inputs have different ranks");
        for (size_t d = 0; d < x.rank(); ++d)
            if (int64_t(d) != axis && x.dims()[d] != first.dims()[d])
                throw KernelError("QLinearConcat's inputs differ in a dimension other than the axis");
        if (__builtin_add_overflow(dims[size_t(axis)], x.dims()[size_t(axis)], &dims[size_t(axis)]))
            throw KernelError("QLinearConcat's inputs are too long along the axis together");
    }
    if (ref::elementCount(dims) == 0) return ctx.setOutput(0, tensorOfDoubles(yType, dims, {}));
    const int64_t outer = std::accumulate(dims.begin(), dims.begin() + axis, int64_t(1), std::multiplies<>());
    const int64_t inner = std::accumulate(dims.begin() + axis + 1, dims.end(), int64_t(1), std::multiplies<>());
    const int64_t row = dims[size_t(axis)] * inner;
    std::vector<double> y(size_t(outer * row));
    int64_t offset = 0;
    for (size_t k = 0; k < count; ++k) {
        const Tensor& x = ctx.input(2 + 3 * k);
        const float xs = float(scalarAt(3 + 3 * k));
        const double xz = scalarAt(4 + 3 * k);
        const std::vector<double> xv = doublesOf(x);
        const int64_t width = x.dims()[size_t(axis)] * inner;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < width; ++i) {
                const float v = float(xv[size_t(o * width + i)] - xz) * xs;
                y[size_t(o * row + offset + i)] = saturateRound(std::nearbyint(double(v / ys)) + yz, yType);
            }
        offset += width;
    }
    ctx.setOutput(0, tensorOfDoubles(yType, dims, y));
}

/// com.microsoft QLinearGlobalAveragePool (X, x_scale, x_zero, y_scale, y_zero; channels_last 0):
/// the mean of each channel's dequantized values (summed in double, as GlobalAveragePool does),
/// quantized.
void qlinearGlobalAveragePool(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (ctx.attributes().getInt("channels_last", 0) != 0) throw KernelError("QLinearGlobalAveragePool runs channels_last = 0 only");
    if (x.rank() < 3) throw KernelError("QLinearGlobalAveragePool takes [N, C, spatial...]");
    const auto scalarAt = [&](size_t i, double fallback) { return ctx.hasInput(i) ? doublesOf(ctx.input(i)).at(0) : fallback; };
    const float xs = float(scalarAt(1, 1)), ys = float(scalarAt(3, 1));
    const double xz = scalarAt(2, 0), yz = scalarAt(4, 0);
    const DType yType = ctx.hasInput(4) ? ctx.input(4).dtype() : x.dtype();
    const int64_t channels = x.dims()[0] * x.dims()[1], spatial = x.numel() / std::max<int64_t>(channels, 1);
    const std::vector<double> v = doublesOf(x);
    std::vector<double> y(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < spatial; ++i) sum += double(float(v[size_t(c * spatial + i)] - xz) * xs);
        y[size_t(c)] = saturateRound(std::nearbyint(double(float(sum / double(spatial)) / ys)) + yz, yType);
    }
    std::vector<int64_t> dims = x.dims();
    for (size_t d = 2; d < dims.size(); ++d) dims[d] = 1;
    ctx.setOutput(0, tensorOfDoubles(yType, dims, y));
}

/// ai.graphlens QLinearLookupTable (x u8/s8, table): y[i] = table[x's byte], the table's 256
/// values of the output's type (s8 codes -128..-1 at 128..255): what the CPU plan makes of
/// DequantizeLinear -> an activation -> QuantizeLinear (qdq_fusion.h).
void qlinearLookupTable(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& table = ctx.input(1);
    if ((x.dtype() != DType::UInt8 && x.dtype() != DType::Int8) || table.numel() != 256 ||
        (table.dtype() != DType::UInt8 && table.dtype() != DType::Int8))
        throw KernelError("QLinearLookupTable maps u8/s8 codes through a table of 256 u8/s8 values");
    Tensor& y = ctx.allocateOutput(0, table.dtype(), x.dims());
    const auto* codes = reinterpret_cast<const uint8_t*>(x.data());
    const auto* values = reinterpret_cast<const uint8_t*>(table.data());
    auto* out = reinterpret_cast<uint8_t*>(y.mutableData());
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = values[codes[i]];
}

} // namespace graphlens::nn
