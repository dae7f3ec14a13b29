// Error measures of a tensor against a reference, in doubles.
#include "core/compare/tensor_error.h"

#include "core/graph/shape.h"

#include <algorithm>
#include <cmath>

namespace graphlens {

double relativeErrorFloor(double maxAbs) { return std::max(1e-2 * maxAbs, 1e-30); }

TensorError measureError(const Tensor& a, const Tensor& b) {
    TensorError error;
    if (a.dtype() == DType::String || b.dtype() == DType::String) {
        error.problem = "string tensors are not compared";
        return error;
    }
    if (a.numel() != b.numel()) {
        error.problem = "shape " + Shape::ofSizes(b.dims()).toString() + " against " + Shape::ofSizes(a.dims()).toString();
        return error;
    }
    const std::vector<double> x = a.toDoubles(), y = b.toDoubles();
    double largest = 0;
    for (double v : x)
        if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
    const double floor = relativeErrorFloor(largest);
    double dot = 0, normA = 0, normB = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) || std::isnan(y[i])) {
            if (std::isnan(x[i]) != std::isnan(y[i]) && error.problem.empty())
                error.problem = "element " + std::to_string(i) + " is " + std::to_string(y[i]) + " against " + std::to_string(x[i]);
            continue;
        }
        if (x[i] != y[i]) {  // equal infinities match
            const double diff = std::abs(y[i] - x[i]);
            error.maxAbsError = std::max(error.maxAbsError, diff);
            error.maxRelError = std::max(error.maxRelError, diff / std::max(std::abs(x[i]), floor));
        }
        dot += x[i] * y[i];
        normA += x[i] * x[i];
        normB += y[i] * y[i];
    }
    if (normA == 0 || normB == 0) error.cosine = normA == normB ? 1 : 0;
    else error.cosine = std::clamp(dot / (std::sqrt(normA) * std::sqrt(normB)), -1.0, 1.0);
    return error;
}

} // namespace graphlens
