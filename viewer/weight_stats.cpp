// weightStats: one pass for count, zeros, range and mean, a second for the deviation and the
// histogram.
// float32 tensors are read in place; other types through Tensor::toDoubles().
#include "viewer/weight_stats.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace graphlens {
namespace {

template <typename T>
WeightStats statsOf(std::span<const T> values, int bins) {
    WeightStats s;
    s.count = int64_t(values.size());
    double sum = 0;
    int64_t finite = 0;
    s.min = INFINITY;
    s.max = -INFINITY;
    for (const T value : values) {
        const double x = double(value);
        if (x == 0) ++s.zeros;
        if (!std::isfinite(x)) {
            ++s.nonFinite;
            continue;
        }
        ++finite;
        s.min = std::min(s.min, x);
        s.max = std::max(s.max, x);
        sum += x;
    }
    s.histogram.assign(size_t(std::max(bins, 1)), 0);
    if (finite == 0) {
        s.min = s.max = 0;
        return s;
    }
    s.mean = sum / double(finite);
    const double width = s.max - s.min;
    const auto last = int64_t(s.histogram.size()) - 1;
    double squaredDeviations = 0;
    for (const T value : values) {
        const double x = double(value);
        if (!std::isfinite(x)) continue;
        squaredDeviations += (x - s.mean) * (x - s.mean);
        const int64_t bin = width > 0 ? int64_t((x - s.min) / width * double(s.histogram.size())) : 0;
        ++s.histogram[size_t(std::clamp<int64_t>(bin, 0, last))];
    }
    s.std = std::sqrt(squaredDeviations / double(finite));
    return s;
}

} // namespace

std::optional<WeightStats> weightStats(const Tensor& tensor, int bins) {
    if (tensor.dtype() == DType::String || tensor.numel() <= 0) return std::nullopt;
    if (tensor.dtype() == DType::Float) return statsOf(tensor.span<float>(), bins);
    const std::vector<double> values = tensor.toDoubles();
    if (values.empty()) return std::nullopt;
    return statsOf(std::span<const double>(values), bins);
}

} // namespace graphlens
