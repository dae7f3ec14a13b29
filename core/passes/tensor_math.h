// A tiny float tensor for folding math, so a fusion body reads like the textbook:
//   k = gamma / sqrt(var + eps);  b = beta - mean * k;  W' = scaleByAxis(W, k, 0)
// Binary operations take equal shapes or a one-element operand.
#pragma once

#include "core/graph/tensor.h"

#include <optional>
#include <vector>

namespace graphlens::math {

struct FloatTensor {
    std::vector<int64_t> dims;
    std::vector<float> values;

    /// The tensor's values as float32; nullopt for other dtypes.
    static std::optional<FloatTensor> from(const Tensor& tensor);
    static FloatTensor filled(std::vector<int64_t> dims, float value);
    size_t size() const { return values.size(); }
    float operator[](size_t i) const { return values[i]; }
    Tensor toTensor() const;
};

FloatTensor operator+(const FloatTensor& a, const FloatTensor& b);
FloatTensor operator-(const FloatTensor& a, const FloatTensor& b);
FloatTensor operator*(const FloatTensor& a, const FloatTensor& b);
FloatTensor operator/(const FloatTensor& a, const FloatTensor& b);
FloatTensor operator+(const FloatTensor& a, float b);
FloatTensor sqrt(const FloatTensor& a);
/// Multiplies slice k of `t` along `axis` by scale[k] (scale has t.dims[axis] elements, or 1).
FloatTensor scaleByAxis(const FloatTensor& t, const FloatTensor& scale, size_t axis);
/// The same for a float32 tensor, written straight into a new tensor (weights of a whole model
/// pass through here: one copy, no index arithmetic per element).
Tensor scaleByAxis(const Tensor& t, const FloatTensor& scale, size_t axis);
/// The values as a vector of length n: itself when it has n elements, repeated when it has 1.
FloatTensor broadcastTo(const FloatTensor& t, int64_t n);

} // namespace graphlens::math
