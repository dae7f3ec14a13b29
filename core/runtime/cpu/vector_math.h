// Math in forms the compiler vectorizes (no libm calls, no branches), shared by the CPU kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

/// Compiles a hot loop three times (AVX-512, AVX2, baseline) and picks one at load time, so the
/// package runs everywhere and still uses the wide vectors of the machine it is on.
#define GRAPHLENS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace graphlens {

/// exp(x) in a form the compiler vectorizes: x = n*ln2 + r with |r| <= ln2/2 (ln2 split in two
/// parts for exactness), e^r by its degree-6 Taylor polynomial (relative error < 2e-7), times 2^n
/// built in the exponent bits. Saturates to 0 and +inf outside [-87.3, 88.7].
inline float vectorExp(float x) {
    x = std::min(std::max(x, -87.33f), 88.72f);
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
    return p * scale;
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
