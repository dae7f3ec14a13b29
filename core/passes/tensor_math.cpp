// Folding math on small float tensors.
#include "core/passes/tensor_math.h"

#include <cmath>
#include <functional>
#include <span>
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

namespace {

/// out = in with each run of `inner` values along `axis` (of `count`) multiplied by its scale.
void scaleRuns(std::span<const float> in, std::span<float> out, const std::vector<int64_t>& dims,
               const FloatTensor& scale, size_t axis) {
    if (axis >= dims.size()) throw std::invalid_argument("scaleByAxis: axis out of range");
    const int64_t count = dims[axis];
    if (int64_t(scale.size()) != count && scale.size() != 1)
        throw std::invalid_argument("scaleByAxis: scale does not match the axis");
    int64_t inner = 1;
    for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
    const float* from = in.data();
    float* to = out.data();
    const int64_t outer = count * inner == 0 ? 0 : int64_t(in.size()) / (count * inner);
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < count; ++k, from += inner, to += inner) {
            const float f = scale[scale.size() == 1 ? 0 : size_t(k)];
            for (int64_t i = 0; i < inner; ++i) to[i] = from[i] * f;
        }
    }
}

} // namespace

FloatTensor scaleByAxis(const FloatTensor& t, const FloatTensor& scale, size_t axis) {
    FloatTensor out{t.dims, std::vector<float>(t.values.size())};
    scaleRuns(t.values, out.values, t.dims, scale, axis);
    return out;
}

Tensor scaleByAxis(const Tensor& t, const FloatTensor& scale, size_t axis) {
    if (t.dtype() != DType::Float) throw std::invalid_argument("scaleByAxis: the tensor is not float32");
    Tensor out = Tensor::allocate(DType::Float, t.dims());
    scaleRuns(t.span<float>(), out.mutableSpan<float>(), t.dims(), scale, axis);
    return out;
}

FloatTensor broadcastTo(const FloatTensor& t, int64_t n) {
    if (int64_t(t.size()) == n) return FloatTensor{{n}, t.values};
    if (t.size() != 1) throw std::invalid_argument("broadcastTo: cannot broadcast to " + std::to_string(n));
    return FloatTensor::filled({n}, t[0]);
}

} // namespace graphlens::math
