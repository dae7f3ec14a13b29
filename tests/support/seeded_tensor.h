// Seeded random float tensors: the weights and inputs of test graphs, the same on every run.
#pragma once

#include "core/graph/tensor.h"

#include <cstdint>
#include <random>
#include <vector>

namespace graphlens::testing {

/// A float tensor of `dims` with seeded uniform values in [lo, hi).
inline Tensor seeded(std::vector<int64_t> dims, uint64_t seed, float lo = -1, float hi = 1) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    Tensor t = Tensor::allocate(DType::Float, std::move(dims));
    for (float& v : t.mutableSpan<float>()) v = dist(rng);
    return t;
}

} // namespace graphlens::testing
