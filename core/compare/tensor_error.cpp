// Error measures of a tensor against a reference, in doubles.
#include "core/compare/tensor_error.h"

#include "core/graph/shape.h"

#include <algorithm>
#include <cmath>

namespace graphlens {

double relativeErrorFloor(double maxAbs) { return std::max(1e-2 * maxAbs, 1e-30); }

namespace {

/// The error of y against x, element by element; `at` reads element i of a side as a double.
template <typename ReadA, typename ReadB>
TensorError measure(size_t count, const ReadA& x, const ReadB& y) {
    TensorError error;
    double largest = 0;
    for (size_t i = 0; i < count; ++i)
        if (const double v = x(i); std::isfinite(v)) largest = std::max(largest, std::abs(v));
    const double floor = relativeErrorFloor(largest);
    double dot = 0, normA = 0, normB = 0;
    for (size_t i = 0; i < count; ++i) {
        const double xi = x(i), yi = y(i);
        if (std::isnan(xi) || std::isnan(yi)) {
            if (std::isnan(xi) != std::isnan(yi) && error.problem.empty())
                error.problem = "element " + std::to_string(i) + " is " + std::to_string(yi) + " against " + std::to_string(xi);
            continue;
        }
        if (xi != yi) {  // equal infinities match
            const double diff = std::abs(yi - xi);
            error.maxAbsError = std::max(error.maxAbsError, diff);
            error.maxRelError = std::max(error.maxRelError, diff / std::max(std::abs(xi), floor));
        }
        dot += xi * yi;
        normA += xi * xi;
        normB += yi * yi;
    }
    if (normA == 0 || normB == 0) error.cosine = normA == normB ? 1 : 0;
    else error.cosine = std::clamp(dot / (std::sqrt(normA) * std::sqrt(normB)), -1.0, 1.0);
    return error;
}

} // namespace

TensorError measureError(const Tensor& a, const Tensor& b) {
    if (a.dtype() == DType::String || b.dtype() == DType::String) {
        TensorError error;
        error.problem = "string tensors are not compared";
        return error;
    }
    if (a.numel() != b.numel()) {
        TensorError error;
        error.problem = "shape " + Shape::ofSizes(b.dims()).toString() + " against " + Shape::ofSizes(a.dims()).toString();
        return error;
    }
    const size_t count = size_t(a.numel());
    if (a.dtype() == DType::Float && b.dtype() == DType::Float) {  // the common case, without a copy
        const auto x = a.span<float>(), y = b.span<float>();
        return measure(count, [&](size_t i) { return double(x[i]); }, [&](size_t i) { return double(y[i]); });
    }
    const std::vector<double> x = a.toDoubles(), y = b.toDoubles();
    return measure(count, [&](size_t i) { return x[i]; }, [&](size_t i) { return y[i]; });
}

} // namespace graphlens
