// QuantizeLinear (float to u8/s8) and DequantizeLinear (u8/s8/int32 to float) with constant
// scales and zero points, per tensor or per axis: the conversions around the int8 kernels of QDQ models. Results equal the
// reference kernels' bit for bit: q = saturate(round_half_even(x / scale) + zero),
// x = float(q - zero) * scale, both in float.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/vector_math.h"

#include <algorithm>

namespace graphlens::onednn {
namespace {

/// Runs `body(begin, end)` over [0, n) in chunks on the OpenMP threads.
template <typename Body>
void chunked(int64_t n, Body&& body) {
    const int64_t chunk = 1 << 15;
    const int64_t chunks = (n + chunk - 1) / chunk;
    if (chunks <= 1) return body(int64_t(0), n);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
}

template <typename Q>
GRAPHLENS_VECTOR_CLONES void quantizeRun(const float* x, Q* y, int64_t n, float scale, int32_t zero) {
    constexpr float lowest = float(std::numeric_limits<Q>::lowest()), highest = float(std::numeric_limits<Q>::max());
    // Clamped first (within the float range the rounding trick needs), then rounded half to even
    // by adding and subtracting 1.5 * 2^23 (the default rounding mode), then saturated.
    const float lo = lowest - float(zero) - 1.f, hi = highest - float(zero) + 1.f;
    constexpr float magic = 12582912.f;
    for (int64_t i = 0; i < n; ++i) {
        const float v = std::min(std::max(x[i] / scale, lo), hi);
        const float r = (v + magic) - magic;
        const float q = std::min(std::max(r + float(zero), lowest), highest);
        y[i] = Q(int32_t(q));
    }
}

template <typename Q>
GRAPHLENS_VECTOR_CLONES void dequantizeRun(const Q* x, float* y, int64_t n, float scale, int32_t zero) {
    for (int64_t i = 0; i < n; ++i) y[i] = float(int32_t(x[i]) - zero) * scale;
}

/// One scale and zero point per slice along the axis (one slice: per tensor).
class QuantizeKernel final : public PreparedKernel {
public:
    QuantizeKernel(bool quantize, DType integer, std::vector<float> scales, std::vector<int32_t> zeros, int64_t inner)
        : quantize_(quantize), integer_(integer), scales_(std::move(scales)), zeros_(std::move(zeros)), inner_(inner) {}
    std::string name() const override { return quantize_ ? "cpu:quantize" : "cpu:dequantize"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const int64_t n = in[0]->numel();
        const std::byte* x = in[0]->data();
        std::byte* y = out[0].mutableData();
        if (scales_.size() == 1) return chunked(n, [&](int64_t b, int64_t e) { convert(x, y, b, e - b, 0); });
        const int64_t slices = n / inner_, channels = int64_t(scales_.size());
#pragma omp parallel for schedule(static) if (n >= (1 << 15))
        for (int64_t s = 0; s < slices; ++s) convert(x, y, s * inner_, inner_, size_t(s % channels));
    }

private:
    void convert(const std::byte* x, std::byte* y, int64_t at, int64_t count, size_t p) const {
        const float scale = scales_[p];
        const int32_t zero = zeros_[p];
        if (quantize_ && integer_ == DType::UInt8)
            quantizeRun(reinterpret_cast<const float*>(x) + at, reinterpret_cast<uint8_t*>(y) + at, count, scale, zero);
        else if (quantize_)
            quantizeRun(reinterpret_cast<const float*>(x) + at, reinterpret_cast<int8_t*>(y) + at, count, scale, zero);
        else if (integer_ == DType::UInt8)
            dequantizeRun(reinterpret_cast<const uint8_t*>(x) + at, reinterpret_cast<float*>(y) + at, count, scale, zero);
        else if (integer_ == DType::Int8)
            dequantizeRun(reinterpret_cast<const int8_t*>(x) + at, reinterpret_cast<float*>(y) + at, count, scale, zero);
        else
            dequantizeRun(reinterpret_cast<const int32_t*>(x) + at, reinterpret_cast<float*>(y) + at, count, scale, zero);
    }

    bool quantize_;
    DType integer_;
    std::vector<float> scales_;
    std::vector<int32_t> zeros_;
    int64_t inner_;  ///< elements per slice along the axis
};

/// QuantizeLinear and DequantizeLinear with constant float scales (one, or one per element of
/// the axis) and zero points; others decline.
std::unique_ptr<PreparedKernel> prepareQuantizeLinear(const NodeDescriptor& info) {
    const bool quantize = info.node.opType == "QuantizeLinear";
    if (!info.hasInput(0) || !info.hasInput(1) || !info.constants[1] || info.outputTypes.size() != 1) return nullptr;
    const Tensor& s = *info.constants[1];
    if (s.dtype() != DType::Float || s.rank() > 1 || s.numel() < 1) return nullptr;
    if (info.hasInput(2) && (!info.constants[2] || info.constants[2]->numel() != s.numel())) return nullptr;
    if (info.attributes().getInt("saturate", 1) != 1 || info.attributes().has("block_size")) return nullptr;
    const DType integer = quantize ? info.outputTypes[0] : info.inputTypes[0];
    const DType other = quantize ? info.inputTypes[0] : info.outputTypes[0];
    const bool known = integer == DType::UInt8 || integer == DType::Int8 || (!quantize && integer == DType::Int32);
    if (!known || other != DType::Float) return nullptr;
    const auto& dims = info.inputDims[0];
    int64_t inner = 1;
    if (s.numel() > 1 || s.rank() == 1) {
        const int64_t rank = int64_t(dims.size());
        int64_t axis = info.attributes().getInt("axis", 1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank || dims[size_t(axis)] != s.numel()) {
            if (s.numel() != 1) return nullptr;
        } else {
            for (int64_t i = axis + 1; i < rank; ++i) inner *= dims[size_t(i)];
        }
    }
    std::vector<float> scales;
    for (double v : s.toDoubles()) {
        if (!(v > 0) || !std::isfinite(float(v))) return nullptr;
        scales.push_back(float(v));
    }
    std::vector<int32_t> zeros(scales.size(), 0);
    if (info.hasInput(2)) {
        const std::vector<double> z = info.constants[2]->toDoubles();
        for (size_t i = 0; i < z.size(); ++i) zeros[i] = int32_t(z[i]);
    }
    if (scales.size() == 1) inner = 1;
    else if (inner <= 0) return nullptr;
    return std::make_unique<QuantizeKernel>(quantize, integer, std::move(scales), std::move(zeros), inner);
}

} // namespace

void registerQuantizeLinearKernels(CpuKernelRegistry& registry) {
    registry.add("QuantizeLinear", prepareQuantizeLinear);
    registry.add("DequantizeLinear", prepareQuantizeLinear);
}

} // namespace graphlens::onednn
