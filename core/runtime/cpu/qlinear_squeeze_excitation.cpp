// The int8 ops of a squeeze-and-excitation block, which the CPU plan makes of its QDQ form
// (qdq_squeeze_excitation.cpp), both ONNX Runtime's com.microsoft ops:
// - QLinearGlobalAveragePool(x [N, C, H, W] u8/s8) -> [N, C, 1, 1]: y = Q(x_s * (sum(x) - HW * x_z) / HW),
//   the sum in int32. The reference sums the dequantized floats, which can differ from this in
//   the last bits, so a mean within float rounding of a half step may round to the neighbour:
//   at most one output step.
// - QLinearMul(a, b) with b of a's shape or one value per channel ([N, C, 1, 1], the excitation):
//   y = Q(DQ(a) * DQ(b)), each step in float as the three ops compute it: equal to the reference.
// Both read x or a in the layout its producer wrote (channels-last after an int8 convolution or
// lookup table, or plain) and QLinearMul writes y in the same layout: no reorders.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/requantize.h"
#include "core/runtime/cpu/vector_math.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <cmath>
#include <cstring>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;

bool isInt8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

/// Per-tensor constant parameter `i` (a scale or zero point), `fallback` when absent; nullopt
/// when not a constant of one value.
std::optional<float> parameter(const NodeDescriptor& info, size_t i, float fallback) {
    if (!info.hasInput(i)) return fallback;
    if (!info.constants[i] || info.constants[i]->numel() != 1) return std::nullopt;
    return float(info.constants[i]->toDoubles()[0]);
}

memory::desc channelsLast(const std::vector<int64_t>& dims, DType t) {
    return memory::desc(toDims(dims), t == DType::Int8 ? memory::data_type::s8 : memory::data_type::u8, memory::format_tag::nhwc);
}

template <typename X>
int64_t codeSum(const X* x, int64_t n, int64_t stride) {
    int64_t s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[i * stride];
    return s;
}

class QLinearGlobalAveragePoolKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    QLinearGlobalAveragePoolKernel(const std::vector<int64_t>& dims, DType x, DType y, float xs, float xz, float ys, float yz, int threads)
        : n_(dims[0]), c_(dims[1]), hw_(dims[2] * dims[3]), x_(x), y_(y), xs_(xs), xz_(xz), ys_(ys), yz_(yz), threads_(threads),
          last_(channelsLast(dims, x)) {}
    std::string name() const override { return kept_ ? "cpu:qlinear-global-average-pool[nhwc in]" : "cpu:qlinear-global-average-pool"; }
    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (i != 0 || hw_ <= 1 || c_ <= 1) return std::nullopt;
        return last_;
    }
    std::optional<memory::desc> blockedOutput() const override { return std::nullopt; }
    void keepBlocked(const std::vector<bool>& inputs, bool) override { kept_ = !inputs.empty() && inputs[0] && hw_ > 1 && c_ > 1; }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        const std::byte* x = in[0]->data();
        std::byte* y = out[0].mutableData();
        if (x_ == DType::UInt8) return pool(reinterpret_cast<const uint8_t*>(x), y);
        pool(reinterpret_cast<const int8_t*>(x), y);
    }

private:
    template <typename X>
    void pool(const X* x, std::byte* y) const {
        // Channels-last: the sums of a block of channels accumulate row by row ([HW, C]), the
        // blocks on the threads; plain: each channel's HW values are contiguous.
        constexpr int64_t block = 64;
        const int64_t blocks = (c_ + block - 1) / block;
#pragma omp parallel for schedule(static) if (n_ * c_ * hw_ >= (1 << 15))
        for (int64_t nb = 0; nb < n_ * blocks; ++nb) {
            const int64_t n = nb / blocks, c0 = (nb % blocks) * block, width = std::min(block, c_ - c0);
            int32_t sums[block] = {};
            if (kept_) {
                for (int64_t i = 0; i < hw_; ++i) {
                    const X* row = x + (n * hw_ + i) * c_ + c0;
                    for (int64_t c = 0; c < width; ++c) sums[c] += row[c];
                }
            } else {
                for (int64_t c = 0; c < width; ++c) sums[c] = int32_t(codeSum(x + (n * c_ + c0 + c) * hw_, hw_, 1));
            }
            for (int64_t c = 0; c < width; ++c) {
                const float mean = float(double(xs_) * (double(sums[c]) - double(hw_) * xz_) / double(hw_));
                const int64_t at = n * c_ + c0 + c;
                if (y_ == DType::UInt8) reinterpret_cast<uint8_t*>(y)[at] = requantize<uint8_t>(mean / ys_, yz_);
                else reinterpret_cast<int8_t*>(y)[at] = requantize<int8_t>(mean / ys_, yz_);
            }
        }
    }

    int64_t n_, c_, hw_;
    DType x_, y_;
    float xs_, xz_, ys_, yz_;
    int threads_;
    memory::desc last_;
    bool kept_ = false;
};

/// com.microsoft QLinearGlobalAveragePool (X, x_scale, x_zero, y_scale, y_zero), NCHW
/// (channels_last = 0), constant per-tensor parameters, u8/s8 of the same type in and out.
std::unique_ptr<PreparedKernel> prepareQLinearGlobalAveragePool(const NodeDescriptor& info) {
    if (info.inputTypes.size() < 4 || !info.hasInput(0) || info.attributes().getInt("channels_last", 0) != 0) return nullptr;
    const DType x = info.inputTypes[0], y = info.outputTypes[0];
    if (!isInt8(x) || x != y || info.inputDims[0].size() != 4) return nullptr;
    const auto xs = parameter(info, 1, 0), xz = parameter(info, 2, 0), ys = parameter(info, 3, 0), yz = parameter(info, 4, 0);
    if (!xs || !xz || !ys || !yz || !(*xs > 0) || !(*ys > 0) || !std::isfinite(*xs) || !std::isfinite(*ys)) return nullptr;
    return std::make_unique<QLinearGlobalAveragePoolKernel>(info.inputDims[0], x, y, *xs, *xz, *ys, *yz, info.threads);
}

struct MulParams {
    float as, az, bs, bz, cs, cz;
};

/// y[i] = Q(DQ(a[i]) * g) for one gate value g (a DQ'd b), or DQ(b[i]) where b has a's shape.
template <typename A, typename B, typename C>
void mulRun(const A* a, const B* b, bool perElement, C* c, int64_t n, int64_t stride, const MulParams& p) {
    for (int64_t i = 0; i < n; ++i) {
        const float fa = (float(a[i * stride]) - p.az) * p.as;
        const float fb = (float(b[perElement ? i * stride : 0]) - p.bz) * p.bs;
        const float product = fa * fb;
        c[i * stride] = requantize<C>(product / p.cs, p.cz);
    }
}

/// `rows` channels-last rows of `n` channels: y[r][c] = Q(DQ(a[r][c]) * gate[c]), gate[c] the
/// channel's dequantized gate; one value at a time.
template <typename A, typename C>
GRAPHLENS_VECTOR_CLONES void mulRowsScalar(const A* a, const float* gate, C* y, int64_t rows, int64_t n, float az, float as, float cs, float cz) {
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < n; ++c) {
            const float fa = (float(a[r * n + c]) - az) * as;
            const float product = fa * gate[c];
            y[r * n + c] = requantize<C>(product / cs, cz);
        }
}

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
/// mulRowsScalar 16 channels at a time, the same float steps (EfficientNet-B0's 16 gates were a
/// quarter of its int8 run).
template <typename A, typename C>
__attribute__((target("avx512f"))) void mulRowsAvx512(const A* a, const float* gate, C* y, int64_t rows, int64_t n, float az, float as,
                                                      float cs, float cz) {
    const Requantize16<C> q{cz};
    const __m512 azv = _mm512_set1_ps(az), asv = _mm512_set1_ps(as), csv = _mm512_set1_ps(cs);
    for (int64_t r = 0; r < rows; ++r) {
        const A* row = a + r * n;
        C* out = y + r * n;
        int64_t c = 0;
        for (; c + 16 <= n; c += 16) {
            const __m512 fa = _mm512_mul_ps(_mm512_sub_ps(load16(row + c), azv), asv);
            q.store(out + c, _mm512_div_ps(_mm512_mul_ps(fa, _mm512_loadu_ps(gate + c)), csv));
        }
        mulRowsScalar(row + c, gate + c, out + c, 1, n - c, az, as, cs, cz);
    }
}

/// mulRowsAvx512 on AVX2 machines, 8 channels at a time.
template <typename A, typename C>
__attribute__((target("avx2"))) void mulRowsAvx2(const A* a, const float* gate, C* y, int64_t rows, int64_t n, float az, float as, float cs,
                                                 float cz) {
    const Requantize8<C> q{cz};
    const __m256 azv = _mm256_set1_ps(az), asv = _mm256_set1_ps(as), csv = _mm256_set1_ps(cs);
    for (int64_t r = 0; r < rows; ++r) {
        const A* row = a + r * n;
        C* out = y + r * n;
        int64_t c = 0;
        for (; c + 8 <= n; c += 8) {
            const __m256 fa = _mm256_mul_ps(_mm256_sub_ps(load8(row + c), azv), asv);
            q.store(out + c, _mm256_div_ps(_mm256_mul_ps(fa, _mm256_loadu_ps(gate + c)), csv));
        }
        mulRowsScalar(row + c, gate + c, out + c, 1, n - c, az, as, cs, cz);
    }
}
#endif

/// `rows` channels-last rows of `n` channels: y[r][c] = Q(DQ(a[r][c]) * gate[c]), gate[c] the
/// channel's dequantized gate.
template <typename A, typename C>
void mulRows(const A* a, const float* gate, C* y, int64_t rows, int64_t n, float az, float as, float cs, float cz) {
#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
    if (hasAvx512f()) return mulRowsAvx512(a, gate, y, rows, n, az, as, cs, cz);
    if (hasAvx2()) return mulRowsAvx2(a, gate, y, rows, n, az, as, cs, cz);
#endif
    mulRowsScalar(a, gate, y, rows, n, az, as, cs, cz);
}

class QLinearMulKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    QLinearMulKernel(const std::vector<int64_t>& dims, bool perChannel, bool gateFirst, DType a, DType b, DType c, MulParams p, int threads)
        : n_(dims[0]), c_(dims[1]), hw_(dims[2] * dims[3]), perChannel_(perChannel), gateFirst_(gateFirst), a_(a), b_(b), out_(c), p_(p),
          threads_(threads), last_(channelsLast(dims, a)), lastOut_(channelsLast(dims, c)) {
        layoutFree_ = hw_ <= 1 || c_ <= 1;
    }
    std::string name() const override {
        return std::string("cpu:qlinear-mul") + (perChannel_ ? "-by-channel" : "") + (kept_ ? "[nhwc in,out]" : "");
    }
    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (layoutFree_ || i != fullInput() || !perChannel_) return std::nullopt;  // same shapes: element-wise, plain
        return last_;
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (layoutFree_ || !perChannel_) return std::nullopt;
        return lastOut_;
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        // Both channels-last, or both plain: the one layout the loops below compute in.
        const bool in = inputs.size() > fullInput() && inputs[fullInput()];
        kept_ = in && output;
        mixed_ = in != output;
        inKept_ = in;
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        const std::byte* a = in[fullInput()]->data();
        const std::byte* g = in[fullInput() == 0 ? 3 : 0]->data();
        std::byte* c = out[0].mutableData();
        const auto run = [&]<typename A, typename B, typename C>(const A* pa, const B* pb, C* pc) { compute(pa, pb, pc); };
        const bool au = a_ == DType::UInt8, bu = b_ == DType::UInt8, cu = out_ == DType::UInt8;
        const auto* a8 = reinterpret_cast<const uint8_t*>(a);
        const auto* g8 = reinterpret_cast<const uint8_t*>(g);
        const auto* ai = reinterpret_cast<const int8_t*>(a);
        const auto* gi = reinterpret_cast<const int8_t*>(g);
        if (cu) {
            auto* y = reinterpret_cast<uint8_t*>(c);
            if (au) bu ? run(a8, g8, y) : run(a8, gi, y);
            else bu ? run(ai, g8, y) : run(ai, gi, y);
        } else {
            auto* y = reinterpret_cast<int8_t*>(c);
            if (au) bu ? run(a8, g8, y) : run(a8, gi, y);
            else bu ? run(ai, g8, y) : run(ai, gi, y);
        }
    }

private:
    size_t fullInput() const { return gateFirst_ ? 3 : 0; }

    template <typename A, typename B, typename C>
    void compute(const A* a, const B* g, C* y) const {
        // The full operand is input 0 unless the gate came first; the gate's parameters follow it.
        const MulParams p = gateFirst_ ? MulParams{p_.bs, p_.bz, p_.as, p_.az, p_.cs, p_.cz} : p_;
        if (!perChannel_) {
            const int64_t n = n_ * c_ * hw_, chunk = 1 << 15;
#pragma omp parallel for schedule(static) if (n >= 2 * chunk)
            for (int64_t s = 0; s < n; s += chunk) mulRun(a + s, g + s, true, y + s, std::min(chunk, n - s), 1, p);
            return;
        }
        if (mixed_) return computeMixed(a, g, y, p);
        if (kept_) {  // rows of C channels, each times the image's gate vector
            std::vector<float> gate(size_t(n_ * c_));
            for (size_t i = 0; i < gate.size(); ++i) gate[i] = (float(g[i]) - p.bz) * p.bs;
            // Blocks of rows of one image, a few thousand values each, on the threads.
            const int64_t rowsPerBlock = std::max<int64_t>(1, 4096 / c_), blocks = (hw_ + rowsPerBlock - 1) / rowsPerBlock;
#pragma omp parallel for schedule(static) if (n_ * c_ * hw_ >= (1 << 15))
            for (int64_t nb = 0; nb < n_ * blocks; ++nb) {
                const int64_t n = nb / blocks, r0 = (nb % blocks) * rowsPerBlock, rows = std::min(rowsPerBlock, hw_ - r0);
                const int64_t at = (n * hw_ + r0) * c_;
                mulRows(a + at, gate.data() + n * c_, y + at, rows, c_, p.az, p.as, p.cs, p.cz);
            }
            return;
        }
#pragma omp parallel for schedule(static) if (n_ * c_ * hw_ >= (1 << 15))
        for (int64_t nc = 0; nc < n_ * c_; ++nc) mulRun(a + nc * hw_, g + nc, false, y + nc * hw_, hw_, 1, p);
    }

    /// One of a and y channels-last, the other plain (the plan found no better): element by element.
    template <typename A, typename B, typename C>
    void computeMixed(const A* a, const B* g, C* y, const MulParams& p) const {
        for (int64_t nc = 0; nc < n_ * c_; ++nc) {
            const int64_t n = nc / c_, c = nc % c_;
            for (int64_t i = 0; i < hw_; ++i) {
                const int64_t last = (n * hw_ + i) * c_ + c, plain = nc * hw_ + i;
                mulRun(a + (inKept_ ? last : plain), g + nc, false, y + (inKept_ ? plain : last), 1, 1, p);
            }
        }
    }

    int64_t n_, c_, hw_;
    bool perChannel_, gateFirst_;
    DType a_, b_, out_;
    MulParams p_;
    int threads_;
    memory::desc last_, lastOut_;
    bool layoutFree_ = false, kept_ = false, mixed_ = false, inKept_ = false;
};

/// com.microsoft QLinearMul (A, A_scale, A_zero, B, B_scale, B_zero, C_scale, C_zero) with
/// constant per-tensor parameters on [N, C, H, W] operands of one shape, or one of them [N, C, 1, 1].
std::unique_ptr<PreparedKernel> prepareQLinearMul(const NodeDescriptor& info) {
    if (info.inputTypes.size() < 7 || !info.hasInput(0) || !info.hasInput(3) || info.outputDims.size() != 1) return nullptr;
    const DType a = info.inputTypes[0], b = info.inputTypes[3], c = info.outputTypes[0];
    if (!isInt8(a) || !isInt8(b) || !isInt8(c)) return nullptr;
    const std::vector<int64_t>& y = info.outputDims[0];
    if (y.size() != 4) return nullptr;
    const std::vector<int64_t> gate{y[0], y[1], 1, 1};
    const bool same = info.inputDims[0] == y && info.inputDims[3] == y;
    const bool gateSecond = info.inputDims[0] == y && info.inputDims[3] == gate;
    const bool gateFirst = !gateSecond && info.inputDims[3] == y && info.inputDims[0] == gate;
    if (!same && !gateSecond && !gateFirst) return nullptr;
    float v[6];
    const size_t at[6] = {1, 2, 4, 5, 6, 7};
    for (int i = 0; i < 6; ++i) {
        const auto p = parameter(info, at[i], i % 2 == 0 ? -1.f : 0.f);
        if (!p) return nullptr;
        v[i] = *p;
    }
    for (int i = 0; i < 6; i += 2)
        if (!(v[i] > 0) || !std::isfinite(v[i])) return nullptr;
    const MulParams p{v[0], v[1], v[2], v[3], v[4], v[5]};
    const DType full = gateFirst ? b : a, other = gateFirst ? a : b;
    return std::make_unique<QLinearMulKernel>(y, !same, gateFirst, full, other, c, p, info.threads);
}

} // namespace

void registerSqueezeExcitationKernels(CpuKernelRegistry& registry) {
    registry.add("QLinearGlobalAveragePool", prepareQLinearGlobalAveragePool, "com.microsoft");
    registry.add("QLinearMul", prepareQLinearMul, "com.microsoft");
}

} // namespace graphlens::onednn
