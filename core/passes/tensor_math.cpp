// Folding math on small float tensors.
#include "core/passes/tensor_math.h"

#include <cmath>
#include <functional>
#include <stdexcept>

namespace graphlens::math {

std::optional<FloatTensor> FloatTensor::from(const Tensor& tensor) {
    if (tensor.dtype() != DType::Float) return std::nullopt;
    auto s = tensor.span<float>();
    return FloatTensor{tensor.dims(), std::vector<float>(s.begin(), s.end())};
}

FloatTensor FloatTensor::filled(std::vector<int64_t> dims, float value) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return {std::move(dims), std::vector<float>(size_t(n), value)};
}

Tensor FloatTensor::toTensor() const { return Tensor::floats(dims, values); }

namespace {

FloatTensor zip(const FloatTensor& a, const FloatTensor& b, const std::function<float(float, float)>& f) {
    if (a.size() != b.size() && a.size() != 1 && b.size() != 1)
        throw std::invalid_argument("folding math: operands of " + std::to_string(a.size()) + " and " +
                                    std::to_string(b.size()) + " elements do not broadcast");
    FloatTensor out = a.size() >= b.size() ? FloatTensor{a.dims, {}} : FloatTensor{b.dims, {}};
    const size_t n = std::max(a.size(), b.size());
    out.values.resize(n);
    for (size_t i = 0; i < n; ++i) out.values[i] = f(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
    return out;
}

} // namespace

FloatTensor operator+(const FloatTensor& a, const FloatTensor& b) { return zip(a, b, std::plus<float>()); }
FloatTensor operator-(const FloatTensor& a, const FloatTensor& b) { return zip(a, b, std::minus<float>()); }
FloatTensor operator*(const FloatTensor& a, const FloatTensor& b) { return zip(a, b, std::multiplies<float>()); }
FloatTensor operator/(const FloatTensor& a, const FloatTensor& b) { return zip(a, b, std::divides<float>()); }
FloatTensor operator+(const FloatTensor& a, float b) { return a + FloatTensor{{}, {b}}; }

FloatTensor sqrt(const FloatTensor& a) {
    FloatTensor out = a;
    for (float& v : out.values) v = std::sqrt(v);
    return out;
}

FloatTensor scaleByAxis(const FloatTensor& t, const FloatTensor& scale, size_t axis) {
    if (axis >= t.dims.size()) throw std::invalid_argument("scaleByAxis: axis out of range");
    const int64_t count = t.dims[axis];
    if (int64_t(scale.size()) != count && scale.size() != 1)
        throw std::invalid_argument("scaleByAxis: scale does not match the axis");
    int64_t inner = 1;
    for (size_t i = axis + 1; i < t.dims.size(); ++i) inner *= t.dims[i];
    FloatTensor out = t;
    for (size_t i = 0; i < out.values.size(); ++i) {
        const size_t k = scale.size() == 1 ? 0 : size_t((int64_t(i) / inner) % count);
        out.values[i] *= scale[k];
    }
    return out;
}

FloatTensor broadcastTo(const FloatTensor& t, int64_t n) {
    if (int64_t(t.size()) == n) return FloatTensor{{n}, t.values};
    if (t.size() != 1) throw std::invalid_argument("broadcastTo: cannot broadcast to " + std::to_string(n));
    return FloatTensor::filled({n}, t[0]);
}

} // namespace graphlens::math
