// The one-row int8 product (int8_gemv.h): A - a_zero widened to 16 bits once per run, the weights
// packed at plan time one output per row (w - w_zero, depth padded to 16 with zeros), four rows
// at a time against the same 16 values of A with vpmaddwd, then the bias, the scale and the
// rounding of the reference kernels per output.
#include "core/runtime/cpu/int8_gemv.h"

#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/qdq_fusion.h"  // int8ProductsSaturate
#include "core/runtime/cpu/requantize.h"

#include <algorithm>

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE

namespace graphlens::onednn {
namespace {

constexpr int64_t kMaxDepth = 32768;  // |sum| <= 32768 * 255 * 128 < 2^31
constexpr int64_t kLanes = 16;        // 16-bit lanes of a 256-bit register
constexpr int64_t kRows = 4;          // outputs summed together, sharing the loads of A

__attribute__((target("avx2"))) inline int32_t horizontalSum(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

__attribute__((target("avx2"))) inline __m256i widened(const int8_t* p) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

/// sums[r] = sum_i a[i] * rows[r][i] for the `count` (1 to kRows) rows from `rows`, each `depth`
/// (a multiple of kLanes) long.
__attribute__((target("avx2"))) void rowSums(const int16_t* a, const int8_t* rows, int64_t depth, int64_t count, int32_t* sums) {
    if (count == kRows) {
        __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
        for (int64_t i = 0; i < depth; i += kLanes) {
            const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(av, widened(rows + i)));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(av, widened(rows + depth + i)));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(av, widened(rows + 2 * depth + i)));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(av, widened(rows + 3 * depth + i)));
        }
        sums[0] = horizontalSum(s0), sums[1] = horizontalSum(s1), sums[2] = horizontalSum(s2), sums[3] = horizontalSum(s3);
        return;
    }
    for (int64_t r = 0; r < count; ++r) {
        __m256i s = _mm256_setzero_si256();
        for (int64_t i = 0; i < depth; i += kLanes)
            s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), widened(rows + r * depth + i)));
        sums[r] = horizontalSum(s);
    }
}

class Int8GemvKernel final : public PreparedKernel {
public:
    Int8GemvKernel(std::string name, Int8Gemv p, int threads)
        : name_(std::move(name)), p_(std::move(p)), threads_(threads), depth_((p_.k + kLanes - 1) / kLanes * kLanes) {
        rows_.assign(size_t(p_.n * depth_), 0);
        for (int64_t j = 0; j < p_.n; ++j)
            for (int64_t i = 0; i < p_.k; ++i)
                rows_[size_t(j * depth_ + i)] = p_.weights[size_t(p_.transB ? j * p_.k + i : i * p_.n + j)];
        p_.weights = {};
        if (p_.scales.size() == 1) p_.scales.assign(size_t(p_.n), p_.scales[0]);
    }

    std::string name() const override { return name_; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        auto* a = static_cast<int16_t*>(scratchBuffer(0, size_t(depth_) * sizeof(int16_t)));
        const void* codes = inputs[0]->data();
        for (int64_t i = 0; i < p_.k; ++i)
            a[i] = int16_t((p_.a == DType::Int8 ? int32_t(static_cast<const int8_t*>(codes)[i]) : int32_t(static_cast<const uint8_t*>(codes)[i])) - p_.aZero);
        std::fill(a + p_.k, a + depth_, int16_t(0));
        void* y = outputs[0].mutableData();
        // One block of rows per thread; under 64K weights one thread reads them all sooner than
        // a team starts.
        const int64_t blocks = threads_ > 1 && p_.n * depth_ >= (int64_t(1) << 16) ? threads_ : 1;
        const int64_t perBlock = ((p_.n + blocks - 1) / blocks + kRows - 1) / kRows * kRows;
        ThreadScope threads(threads_);
#pragma omp parallel for schedule(static) if (blocks > 1)
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t end = std::min(p_.n, (b + 1) * perBlock);
            for (int64_t j = b * perBlock; j < end; j += kRows) {
                int32_t sums[kRows];
                const int64_t count = std::min(kRows, end - j);
                rowSums(a, rows_.data() + j * depth_, depth_, count, sums);
                for (int64_t r = 0; r < count; ++r) write(y, j + r, sums[r]);
            }
        }
    }

private:
    /// Output j from its sum, as the reference kernels compute it: the bias added exactly, the
    /// sum converted to float, times the scale, then rounded half to even and saturated.
    void write(void* y, int64_t j, int32_t sum) const {
        const int64_t total = int64_t(sum) + (p_.bias.empty() ? 0 : p_.bias[size_t(j)]);
        switch (p_.y) {
        case DType::Int32: static_cast<int32_t*>(y)[j] = int32_t(total); break;
        case DType::Float: static_cast<float*>(y)[j] = float(total) * p_.scales[size_t(j)]; break;
        case DType::UInt8: static_cast<uint8_t*>(y)[j] = requantize<uint8_t>(float(total) * p_.scales[size_t(j)], float(p_.yZero)); break;
        default: static_cast<int8_t*>(y)[j] = requantize<int8_t>(float(total) * p_.scales[size_t(j)], float(p_.yZero)); break;
        }
    }

    std::string name_;
    Int8Gemv p_;
    int threads_;
    int64_t depth_;
    std::vector<int8_t> rows_;  ///< [n][depth_]
};

} // namespace

bool int8GemvWanted() { return hasAvx2() && int8ProductsSaturate(); }

std::unique_ptr<PreparedKernel> prepareInt8Gemv(std::string name, Int8Gemv product, int threads) {
    const Int8Gemv& p = product;
    const bool int8Output = p.y == DType::UInt8 || p.y == DType::Int8;
    if (p.k <= 0 || p.n <= 0 || p.k > kMaxDepth || (p.a != DType::UInt8 && p.a != DType::Int8)) return nullptr;
    // A zero point of A's own type keeps A - a_zero within 16 bits (a file may type it otherwise).
    if (p.a == DType::UInt8 ? p.aZero < 0 || p.aZero > 255 : p.aZero < -128 || p.aZero > 127) return nullptr;
    if (p.y == DType::Int32 ? !p.scales.empty() || !p.bias.empty() : !(int8Output || p.y == DType::Float)) return nullptr;
    if (p.y != DType::Int32 && p.scales.size() != 1 && int64_t(p.scales.size()) != p.n) return nullptr;
    if ((!p.bias.empty() && int64_t(p.bias.size()) != p.n) || int64_t(p.weights.size()) != p.k * p.n) return nullptr;
    return std::make_unique<Int8GemvKernel>(std::move(name), std::move(product), threads);
}

} // namespace graphlens::onednn

#else

namespace graphlens::onednn {
bool int8GemvWanted() { return false; }
std::unique_ptr<PreparedKernel> prepareInt8Gemv(std::string, Int8Gemv, int) { return nullptr; }
} // namespace graphlens::onednn

#endif
