// The rounding every int8 kernel of the CPU backend shares with QuantizeLinear:
// saturate(round_half_even(v) + zero), all in float, so results equal the reference kernels'.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace graphlens::onednn {

/// saturate(round_half_even(v) + zero) for Q: clamped first (within the float range the
/// rounding trick needs), rounded by adding and subtracting 1.5 * 2^23 (the default rounding
/// mode), then saturated. Callers compile without fused multiply-add (fp-contract=off).
template <typename Q>
inline Q requantize(float v, float zero) {
    constexpr float lowest = float(std::numeric_limits<Q>::lowest()), highest = float(std::numeric_limits<Q>::max());
    constexpr float magic = 12582912.f;
    v = std::min(std::max(v, lowest - zero - 1.f), highest - zero + 1.f);
    const float r = (v + magic) - magic;
    return Q(int32_t(std::min(std::max(r + zero, lowest), highest)));
}

} // namespace graphlens::onednn
