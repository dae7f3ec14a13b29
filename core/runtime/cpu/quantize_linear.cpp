// QuantizeLinear (float to u8/s8) and DequantizeLinear (u8/s8/int32 to float) with constant
// scales and zero points, per tensor or per axis: the conversions around the int8 kernels of QDQ
// models; and com.microsoft QLinearAdd (what the CPU plan makes of a QDQ Add, qdq_fusion.h) on
// same-shaped u8/s8 tensors, plain or channels-last. Results equal the reference kernels' bit for
// bit: q = saturate(round_half_even(x / scale) + zero), x = float(q - zero) * scale, all in float
// (products and sums kept apart: no fused multiply-add, which would round differently).
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/requantize.h"
#include "core/runtime/cpu/vector_math.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

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
GRAPHLENS_VECTOR_CLONES void quantizeScalar(const float* x, Q* y, int64_t n, float scale, int32_t zero) {
    for (int64_t i = 0; i < n; ++i) y[i] = requantize<Q>(x[i] / scale, float(zero));
}

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
/// quantizeScalar 16 values at a time (12% of an int8 transformer's run before).
template <typename Q>
__attribute__((target("avx512f"))) void quantizeRunAvx512(const float* x, Q* y, int64_t n, float scale, int32_t zero) {
    const Requantize16<Q> q{float(zero)};
    const __m512 s = _mm512_set1_ps(scale);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) q.store(y + i, _mm512_div_ps(_mm512_loadu_ps(x + i), s));
    quantizeScalar(x + i, y + i, n - i, scale, zero);
}

/// quantizeRunAvx512 on AVX2 machines, 8 values at a time.
template <typename Q>
__attribute__((target("avx2"))) void quantizeRunAvx2(const float* x, Q* y, int64_t n, float scale, int32_t zero) {
    const Requantize8<Q> q{float(zero)};
    const __m256 s = _mm256_set1_ps(scale);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) q.store(y + i, _mm256_div_ps(_mm256_loadu_ps(x + i), s));
    quantizeScalar(x + i, y + i, n - i, scale, zero);
}
#endif

template <typename Q>
void quantizeRun(const float* x, Q* y, int64_t n, float scale, int32_t zero) {
#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
    if (hasAvx512f()) return quantizeRunAvx512(x, y, n, scale, zero);
    if (hasAvx2()) return quantizeRunAvx2(x, y, n, scale, zero);
#endif
    quantizeScalar(x, y, n, scale, zero);
}

struct AddParams {
    float as, az, bs, bz, cs, cz;
};

template <typename A, typename B, typename C>
GRAPHLENS_VECTOR_CLONES void qlinearAddScalar(const A* a, const B* b, C* c, int64_t n, AddParams p) {
    for (int64_t i = 0; i < n; ++i) {
        const float fa = (float(a[i]) - p.az) * p.as;
        const float fb = (float(b[i]) - p.bz) * p.bs;
        const float sum = fa + fb;
        c[i] = requantize<C>(sum / p.cs, p.cz);
    }
}

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
/// qlinearAddScalar 16 values at a time, the same float steps (ResNet-50's 15 QLinearAdds were
/// a fifth of its int8 run).
template <typename A, typename B, typename C>
__attribute__((target("avx512f"))) void qlinearAddAvx512(const A* a, const B* b, C* c, int64_t n, AddParams p) {
    const Requantize16<C> q{p.cz};
    const __m512 as = _mm512_set1_ps(p.as), az = _mm512_set1_ps(p.az), bs = _mm512_set1_ps(p.bs), bz = _mm512_set1_ps(p.bz);
    const __m512 cs = _mm512_set1_ps(p.cs);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 fa = _mm512_mul_ps(_mm512_sub_ps(load16(a + i), az), as);
        const __m512 fb = _mm512_mul_ps(_mm512_sub_ps(load16(b + i), bz), bs);
        q.store(c + i, _mm512_div_ps(_mm512_add_ps(fa, fb), cs));
    }
    qlinearAddScalar(a + i, b + i, c + i, n - i, p);
}

/// qlinearAddAvx512 on AVX2 machines, 8 values at a time.
template <typename A, typename B, typename C>
__attribute__((target("avx2"))) void qlinearAddAvx2(const A* a, const B* b, C* c, int64_t n, AddParams p) {
    const Requantize8<C> q{p.cz};
    const __m256 as = _mm256_set1_ps(p.as), az = _mm256_set1_ps(p.az), bs = _mm256_set1_ps(p.bs), bz = _mm256_set1_ps(p.bz);
    const __m256 cs = _mm256_set1_ps(p.cs);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 fa = _mm256_mul_ps(_mm256_sub_ps(load8(a + i), az), as);
        const __m256 fb = _mm256_mul_ps(_mm256_sub_ps(load8(b + i), bz), bs);
        q.store(c + i, _mm256_div_ps(_mm256_add_ps(fa, fb), cs));
    }
    qlinearAddScalar(a + i, b + i, c + i, n - i, p);
}
#endif

template <typename A, typename B, typename C>
void qlinearAddRun(const A* a, const B* b, C* c, int64_t n, AddParams p) {
#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
    if (hasAvx512f()) return qlinearAddAvx512(a, b, c, n, p);
    if (hasAvx2()) return qlinearAddAvx2(a, b, c, n, p);
#endif
    qlinearAddScalar(a, b, c, n, p);
}

template <typename Q>
GRAPHLENS_VECTOR_CLONES void dequantizeScalar(const Q* x, float* y, int64_t n, float scale, int32_t zero) {
    for (int64_t i = 0; i < n; ++i) y[i] = float(int32_t(x[i]) - zero) * scale;
}

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
/// dequantizeScalar of 8-bit codes 16 at a time (an int8 transformer's activations leave their
/// products through DequantizeLinear: a tenth of its run, where GCC's 256-bit loop widens bytes
/// in two steps). q - zero is a small integer, exact as a float difference too, so the product
/// is the scalar loop's bit for bit.
template <typename Q>
__attribute__((target("avx512f"))) void dequantizeRunAvx512(const Q* x, float* y, int64_t n, float scale, int32_t zero) {
    const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(float(zero));
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_sub_ps(load16(x + i), z), s));
    dequantizeScalar(x + i, y + i, n - i, scale, zero);
}

/// dequantizeRunAvx512 on AVX2 machines, 8 codes at a time.
template <typename Q>
__attribute__((target("avx2"))) void dequantizeRunAvx2(const Q* x, float* y, int64_t n, float scale, int32_t zero) {
    const __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(float(zero));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_sub_ps(load8(x + i), z), s));
    dequantizeScalar(x + i, y + i, n - i, scale, zero);
}
#endif

template <typename Q>
void dequantizeRun(const Q* x, float* y, int64_t n, float scale, int32_t zero) {
#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
    if constexpr (sizeof(Q) == 1) {
        if (hasAvx512f()) return dequantizeRunAvx512(x, y, n, scale, zero);
        if (hasAvx2()) return dequantizeRunAvx2(x, y, n, scale, zero);
    }
#endif
    dequantizeScalar(x, y, n, scale, zero);  // int32 codes minus a zero point may be inexact as floats
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
    if (info.hasInput(2) && info.constants[2]->dtype() != integer) return nullptr;  // a float zero point: not the op's
    if (info.hasInput(2)) {
        const std::vector<double> z = info.constants[2]->toDoubles();
        for (size_t i = 0; i < z.size(); ++i) zeros[i] = int32_t(z[i]);
    }
    if (scales.size() == 1) inner = 1;
    else if (inner <= 0) return nullptr;
    return std::make_unique<QuantizeKernel>(quantize, integer, std::move(scales), std::move(zeros), inner);
}

using memory = dnnl::memory;

/// QLinearAdd of same-shaped tensors. Element-wise, so any layout the three share works: where
/// the plan passes A, B or C channels-last (the int8 convolutions' layout), the others are
/// reordered to it in run(), and the sum is computed there.
class QLinearAddKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    QLinearAddKernel(AddParams p, DType a, DType b, DType c, const std::vector<int64_t>& dims, int threads)
        : p_(p), a_(a), b_(b), c_(c), threads_(threads), n_(elementCount(dims)) {
        const Dims d = toDims(dims);
        const auto type = [](DType t) { return t == DType::Int8 ? memory::data_type::s8 : memory::data_type::u8; };
        const DType types[3] = {a, b, c};
        channelsLast_ = dims.size() == 4 && dims[1] > 1 && dims[2] * dims[3] > 1;
        for (int i = 0; i < 3 && channelsLast_; ++i) {
            plain_[i] = memory::desc(d, type(types[i]), plainTag(dims.size()));
            last_[i] = memory::desc(d, type(types[i]), memory::format_tag::nhwc);
        }
    }

    std::string name() const override {
        if (!kept_[0] && !kept_[1] && !kept_[2]) return "cpu:qlinear-add";
        return std::string("cpu:qlinear-add[nhwc") + (kept_[0] || kept_[1] ? " in" : "") + (kept_[2] ? " out" : "") + "]";
    }
    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (!channelsLast_ || (i != 0 && i != 3)) return std::nullopt;
        return last_[i == 0 ? 0 : 1];
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (!channelsLast_) return std::nullopt;
        return last_[2];
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        kept_[0] = channelsLast_ && inputs.size() > 0 && inputs[0];
        kept_[1] = channelsLast_ && inputs.size() > 3 && inputs[3];
        kept_[2] = channelsLast_ && output;
        const bool any = kept_[0] || kept_[1] || kept_[2];
        for (int i = 0; i < 3 && any; ++i)
            if (!kept_[i]) {
                const memory plain(plain_[i], engine(), DNNL_MEMORY_NONE), last(last_[i], engine(), DNNL_MEMORY_NONE);
                reorder_[i] = i < 2 ? dnnl::reorder(plain, last) : dnnl::reorder(last, plain);
            }
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        const bool any = kept_[0] || kept_[1] || kept_[2];
        void* data[3] = {handleOf(*in[0]), handleOf(*in[3]), out[0].mutableData()};
        void* compute[3] = {data[0], data[1], data[2]};
        dnnl::stream& s = stream();
        for (int i = 0; i < 2; ++i)
            if (any && !kept_[i]) {  // into channels-last scratch
                compute[i] = scratchBuffer(i, last_[i].get_size());
                memory from(plain_[i], engine(), data[i]), to(last_[i], engine(), compute[i]);
                reorder_[i].execute(s, from, to);
            }
        if (any && !kept_[2]) compute[2] = scratchBuffer(2, last_[2].get_size());
        s.wait();
        chunked(n_, [&](int64_t b, int64_t e) { addRange(compute, b, e - b); });
        if (any && !kept_[2]) {
            memory from(last_[2], engine(), compute[2]), to(plain_[2], engine(), data[2]);
            reorder_[2].execute(s, from, to);
            s.wait();
        }
    }

private:
    void addRange(void* const* t, int64_t at, int64_t count) const {
        const auto run = [&]<typename A, typename B, typename C>(A*, B*, C*) {
            qlinearAddRun(static_cast<const A*>(t[0]) + at, static_cast<const B*>(t[1]) + at, static_cast<C*>(t[2]) + at, count, p_);
        };
        const bool au = a_ == DType::UInt8, bu = b_ == DType::UInt8, cu = c_ == DType::UInt8;
        uint8_t* u = nullptr;
        int8_t* i = nullptr;
        if (au && bu) cu ? run(u, u, u) : run(u, u, i);
        else if (!au && !bu) cu ? run(i, i, u) : run(i, i, i);
        else if (au) run(u, i, i);  // mixed A and B: s8 output (prepareQLinearAdd)
        else run(i, u, i);
    }

    AddParams p_;
    DType a_, b_, c_;
    int threads_;
    int64_t n_;
    memory::desc plain_[3], last_[3];
    dnnl::reorder reorder_[3];
    bool channelsLast_ = false, kept_[3] = {false, false, false};
};

/// QLinearAdd with constant per-tensor parameters on A and B of the output's shape.
std::unique_ptr<PreparedKernel> prepareQLinearAdd(const NodeDescriptor& info) {
    if (info.inputTypes.size() < 7 || !info.hasInput(0) || !info.hasInput(3) || info.outputDims.size() != 1) return nullptr;
    const auto isInt8 = [](DType t) { return t == DType::UInt8 || t == DType::Int8; };
    const DType a = info.inputTypes[0], b = info.inputTypes[3], c = info.outputTypes[0];
    if (!isInt8(a) || !isInt8(b) || !isInt8(c)) return nullptr;
    // Mixed signedness of A and B with an output of the other kind: not a case QDQ models write.
    if ((a == DType::UInt8) != (b == DType::UInt8) && c != DType::Int8) return nullptr;
    if (info.inputDims[0] != info.outputDims[0] || info.inputDims[3] != info.outputDims[0]) return nullptr;
    float values[6] = {1, 0, 1, 0, 1, 0};
    const size_t at[6] = {1, 2, 4, 5, 6, 7};
    for (int i = 0; i < 6; ++i) {
        if (!info.hasInput(at[i])) {
            if (i % 2 == 0) return nullptr;  // scales are required
            continue;
        }
        if (!info.constants[at[i]] || info.constants[at[i]]->numel() != 1) return nullptr;
        values[i] = float(info.constants[at[i]]->toDoubles()[0]);
    }
    for (int i = 0; i < 6; i += 2)
        if (!(values[i] > 0) || !std::isfinite(values[i])) return nullptr;
    const AddParams p{values[0], values[1], values[2], values[3], values[4], values[5]};
    return std::make_unique<QLinearAddKernel>(p, a, b, c, info.outputDims[0], info.threads);
}

} // namespace

void registerQuantizeLinearKernels(CpuKernelRegistry& registry) {
    registry.add("QuantizeLinear", prepareQuantizeLinear);
    registry.add("DequantizeLinear", prepareQuantizeLinear);
    registry.add("QLinearAdd", prepareQLinearAdd, "com.microsoft");
}

} // namespace graphlens::onednn
