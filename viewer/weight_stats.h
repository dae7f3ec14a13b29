// Statistics of a weight tensor for the inspector: element count, min, max, mean, standard
// deviation, sparsity and a histogram. Qt-free, so the numbers are unit tested exactly.
#pragma once

#include "core/graph/tensor.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace graphlens {

struct WeightStats {
    int64_t count = 0;      ///< elements
    int64_t zeros = 0;      ///< elements exactly equal to 0
    int64_t nonFinite = 0;  ///< NaN and infinite elements, left out of min..std and the histogram
    double min = 0, max = 0, mean = 0;
    double std = 0;         ///< population standard deviation (divides by the number of values)
    /// Equal-width bins over [min, max]; the last bin includes max. All values fall in bin 0
    /// when min == max.
    std::vector<int64_t> histogram;

    /// The fraction of elements that are exactly zero.
    double sparsity() const { return count == 0 ? 0.0 : double(zeros) / double(count); }
};

/// Statistics of `tensor`'s values (float types and integer types alike); nullopt for string
/// and empty tensors.
std::optional<WeightStats> weightStats(const Tensor& tensor, int bins = 32);

} // namespace graphlens
