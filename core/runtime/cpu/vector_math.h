// Math in forms the compiler vectorizes (no libm calls, no branches), shared by the CPU kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

/// Compiles a hot loop three times (AVX-512, AVX2, baseline) and picks one at load time, so the
/// package runs everywhere and still uses the wide vectors of the machine it is on. Clang 14 cannot
/// clone function templates; its builds (the sanitizer and fuzzing builds) compile the baseline only.
#if defined(__clang__)
#define GRAPHLENS_VECTOR_CLONES
#else
#define GRAPHLENS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

namespace graphlens {

/// exp(x) in a form the compiler vectorizes: x = n*ln2 + r with |r| <= ln2/2 (ln2 split in two
/// parts for exactness), e^r by its degree-6 Taylor polynomial (relative error < 2e-7), times 2^n
/// built in the exponent bits. Saturates to 0 and +inf outside [-87.3, 88.7]; NaN stays NaN.
inline float vectorExp(float input) {
    // The clamp's argument order sends NaN to -87.33, so the integer conversion below is defined
    // (fuzzing: UBSan saw NaN reach it); the last line gives NaN back.
    const float x = std::max(-87.33f, std::min(input, 88.72f));
    constexpr float kRound = 12582912.f;  // 1.5 * 2^23: adding it rounds to the nearest integer
    const float n = (x * 1.44269504f + kRound) - kRound;
    const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
    float p = 1.f / 720;
    p = p * r + 1.f / 120;
    p = p * r + 1.f / 24;
    p = p * r + 1.f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.f;
    p = p * r + 1.f;
    const int32_t bits = (int32_t(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return input == input ? p * scale : input;
}

/// erf(x): below 0.5 in magnitude its Taylor series to x^13 (error < 1e-9), above it
/// Abramowitz-Stegun 7.1.26 (absolute error 1.5e-7); both are computed and one selected, so the
/// loop vectorizes.
inline float vectorErf(float x) {
    const float z = std::fabs(x);
    const float x2 = x * x;
    float series = 1.f / 9360;
    series = series * x2 - 1.f / 1320;
    series = series * x2 + 1.f / 216;
    series = series * x2 - 1.f / 42;
    series = series * x2 + 0.1f;
    series = series * x2 - 1.f / 3;
    series = (series * x2 + 1.f) * x * 1.12837917f;
    const float t = 1.f / (1.f + 0.3275911f * z);
    float poly = 1.061405429f;
    poly = poly * t - 1.453152027f;
    poly = poly * t + 1.421413741f;
    poly = poly * t - 0.284496736f;
    poly = poly * t + 0.254829592f;
    const float tail = 1.f - poly * t * vectorExp(-x2);
    return z < 0.5f ? series : (x < 0 ? -tail : tail);
}

/// Sum of n floats in 16 independent lanes (one running float sum would not vectorize).
inline float laneSum(const float* x, int64_t n) {
    float lanes[16] = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; ++k) lanes[k] += x[i + k];
    float sum = 0;
    for (; i < n; ++i) sum += x[i];
    for (float lane : lanes) sum += lane;
    return sum;
}

} // namespace graphlens
