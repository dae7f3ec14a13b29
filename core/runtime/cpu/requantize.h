// The rounding every int8 kernel of the CPU backend shares with QuantizeLinear:
// saturate(round_half_even(v) + zero), all in float, so results equal the reference kernels'.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRAPHLENS_HAS_X86_REQUANTIZE 1
#endif

namespace graphlens::onednn {

/// Adding and subtracting 1.5 * 2^23 rounds a float of magnitude under 2^22 to an integer in the
/// default rounding mode (half to even).
inline constexpr float kRoundingMagic = 12582912.f;
/// The codes of Q as floats.
template <typename Q>
inline constexpr float kLowestCode = float(std::numeric_limits<Q>::lowest());
template <typename Q>
inline constexpr float kHighestCode = float(std::numeric_limits<Q>::max());

/// saturate(round_half_even(v) + zero) for Q: clamped first (within the float range the
/// rounding trick needs), rounded with kRoundingMagic, then saturated. A NaN takes the lowest code, as in ONNX Runtime's QuantizeLinear (whose
/// max keeps the bound) and the reference kernels. Callers compile without fused multiply-add
/// (fp-contract=off).
template <typename Q>
inline Q requantize(float v, float zero) {
    constexpr float lowest = kLowestCode<Q>, highest = kHighestCode<Q>;
    const float low = lowest - zero - 1.f;
    v = std::min(v >= low ? v : low, highest - zero + 1.f);
    const float r = (v + kRoundingMagic) - kRoundingMagic;
    return Q(int32_t(std::min(std::max(r + zero, lowest), highest)));
}

#ifdef GRAPHLENS_HAS_X86_REQUANTIZE
// GCC 12 warns of the undefined pass-through operand inside _mm512_max_ps and _mm512_min_ps
// (Clang has no such warning, and warns of the unknown name).
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/// requantize() on 16 lanes: its float steps in the same order (vmaxps keeps its second operand
/// where a lane is NaN, so a NaN takes the lower bound as there), then the integer each lane
/// holds truncated to its low byte (vpmovdb), as Q(int32_t(r)) does. GCC's vectorization of the
/// scalar loops narrows through masks and packs on 256-bit registers: 0.45 ns a value, four
/// times DequantizeLinear's. Callers check hasAvx512f() first.
template <typename Q>
struct Requantize16 {
    __m512 lo, hi, magic, zero, qlo, qhi;
    __attribute__((target("avx512f"))) explicit Requantize16(float z)
        : lo(_mm512_set1_ps(kLowestCode<Q> - z - 1.f)), hi(_mm512_set1_ps(kHighestCode<Q> - z + 1.f)), magic(_mm512_set1_ps(kRoundingMagic)),
          zero(_mm512_set1_ps(z)), qlo(_mm512_set1_ps(kLowestCode<Q>)), qhi(_mm512_set1_ps(kHighestCode<Q>)) {}
    __attribute__((target("avx512f"))) void store(Q* y, __m512 v) const {
        v = _mm512_min_ps(hi, _mm512_max_ps(v, lo));  // (hi < v) ? hi : v after (v > lo) ? v : lo
        v = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
        v = _mm512_min_ps(qhi, _mm512_max_ps(qlo, _mm512_add_ps(v, zero)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
    }
};

/// 16 u8 or s8 values as floats.
template <typename T>
__attribute__((target("avx512f"))) inline __m512 load16(const T* p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if constexpr (std::is_same_v<T, uint8_t>) return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes));
    else return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes));
}

#pragma GCC diagnostic pop

inline bool hasAvx512f() {
    static const bool has = __builtin_cpu_supports("avx512f");
    return has;
}

/// Requantize16 on 8 lanes for AVX2 machines (no AVX-512): the same float steps, then the
/// integers narrowed with saturating packs, which keep them as they are: the clamp has put them
/// within Q's range already. Callers check hasAvx2() first.
template <typename Q>
struct Requantize8 {
    __m256 lo, hi, magic, zero, qlo, qhi;
    __attribute__((target("avx2"))) explicit Requantize8(float z)
        : lo(_mm256_set1_ps(kLowestCode<Q> - z - 1.f)), hi(_mm256_set1_ps(kHighestCode<Q> - z + 1.f)), magic(_mm256_set1_ps(kRoundingMagic)),
          zero(_mm256_set1_ps(z)), qlo(_mm256_set1_ps(kLowestCode<Q>)), qhi(_mm256_set1_ps(kHighestCode<Q>)) {}
    __attribute__((target("avx2"))) void store(Q* y, __m256 v) const {
        v = _mm256_min_ps(hi, _mm256_max_ps(v, lo));  // vmaxps keeps lo where v is NaN, as above
        v = _mm256_sub_ps(_mm256_add_ps(v, magic), magic);
        v = _mm256_min_ps(qhi, _mm256_max_ps(qlo, _mm256_add_ps(v, zero)));
        const __m256i words = _mm256_cvttps_epi32(v);
        const __m128i halves = _mm_packs_epi32(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        const __m128i bytes = std::is_same_v<Q, uint8_t> ? _mm_packus_epi16(halves, halves) : _mm_packs_epi16(halves, halves);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(y), bytes);
    }
};

/// 8 u8 or s8 values as floats.
template <typename T>
__attribute__((target("avx2"))) inline __m256 load8(const T* p) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    if constexpr (std::is_same_v<T, uint8_t>) return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
    else return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes));
}

inline bool hasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
#endif

} // namespace graphlens::onednn
