// Helpers shared by the elementwise reference kernels: broadcasting maps over one, two or many
// tensors, float-type dispatch (float16/bfloat16 computed in float), and per-part registration.
#pragma once

#include "core/graph/activation_kinds.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

namespace graphlens::ref {

/// True when activationValue() computes the activation kind `id` (core/graph/activations.def).
bool hasActivationValue(ActivationId id);
/// f(x) of activation `id` with its numbers (alpha, beta): the math of a fused node's activation.
double activationValue(ActivationId id, double x, const ActivationParams& params);

inline bool isHalfType(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

/// Applies `f(T) -> R` to every element of `x` (element type T), into a new tensor of `outType`.
template <typename T, typename R, typename F>
Tensor mapElements(const Tensor& x, DType outType, F&& f) {
    Tensor out = Tensor::allocate(outType, x.dims());
    const T* in = dataOf<T>(x);
    R* o = mutableDataOf<R>(out);
    const int64_t n = std::max<int64_t>(x.numel(), 0);
    for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
    return out;
}

/// Applies `f(A, B) -> R` to the numpy broadcast of `a` and `b`.
template <typename A, typename B, typename R, typename F>
Tensor mapBroadcast(const Tensor& a, const Tensor& b, DType outType, F&& f) {
    const std::vector<int64_t> dims = broadcastDims(a.dims(), b.dims());
    Tensor out = Tensor::allocate(outType, dims);
    const std::vector<int64_t> ia = broadcastIndices(a.dims(), dims);
    const std::vector<int64_t> ib = broadcastIndices(b.dims(), dims);
    const A* pa = dataOf<A>(a);
    const B* pb = dataOf<B>(b);
    R* o = mutableDataOf<R>(out);
    for (size_t i = 0; i < ia.size(); ++i) o[i] = f(pa[ia[i]], pb[ib[i]]);
    return out;
}

/// Runs `f.template operator()<T>()` for float and double; float16/bfloat16 inputs are handled by
/// the callers through floatPath(). KernelError naming `op` for other types.
template <typename F>
void visitFloat(DType type, const std::string& op, F&& f) {
    if (type == DType::Float) return f.template operator()<float>();
    if (type == DType::Double) return f.template operator()<double>();
    throw KernelError(op + " does not support the element type " + std::string(dtypeName(type)));
}

/// Applies the generic `f(v) -> v` to a float, double, float16 or bfloat16 tensor.
template <typename F>
Tensor mapFloating(const Tensor& x, const std::string& op, F&& f) {
    if (isHalfType(x.dtype())) return fromFloat(mapFloating(toFloat(x), op, f), x.dtype());
    Tensor out;
    visitFloat(x.dtype(), op, [&]<typename T>() {
        out = mapElements<T, T>(x, x.dtype(), [&](T v) { return T(f(v)); });
    });
    return out;
}

/// Applies the generic `f(v) -> v` to a tensor of any numeric type but bool (halves via float).
template <typename F>
Tensor mapNumeric(const Tensor& x, const std::string& op, F&& f) {
    if (isHalfType(x.dtype())) return fromFloat(mapNumeric(toFloat(x), op, f), x.dtype());
    if (x.dtype() == DType::Bool)
        throw KernelError(op + " does not support the element type bool");
    Tensor out;
    visitNumeric(x.dtype(), op, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>)
            out = mapElements<T, T>(x, x.dtype(), [&](T v) { return T(f(v)); });
    });
    return out;
}

/// KernelError unless `a` and `b` have the same element type.
void requireSameType(const Tensor& a, const Tensor& b, const std::string& op);

/// Applies the generic `f(x, y) -> same type` to two broadcast tensors of one numeric type
/// (not bool); float16/bfloat16 go through float.
template <typename F>
Tensor binaryNumeric(const Tensor& a, const Tensor& b, const std::string& op, F&& f) {
    requireSameType(a, b, op);
    const DType t = a.dtype();
    if (isHalfType(t)) return fromFloat(binaryNumeric(toFloat(a), toFloat(b), op, f), t);
    if (t == DType::Bool) throw KernelError(op + " does not support the element type bool");
    Tensor out;
    visitNumeric(t, op, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>)
            out = mapBroadcast<T, T, T>(a, b, t, [&](T x, T y) { return T(f(x, y)); });
    });
    return out;
}

/// Integer `T` result of `x op y` computed modulo 2^bits (no signed-overflow UB).
template <typename T> T wrapAdd(T x, T y) { return T(uint64_t(x) + uint64_t(y)); }
template <typename T> T wrapSub(T x, T y) { return T(uint64_t(x) - uint64_t(y)); }
template <typename T> T wrapMul(T x, T y) { return T(uint64_t(x) * uint64_t(y)); }

/// `v` converted to the arithmetic type `T`: integers wrap, floats truncate toward zero and
/// saturate (NaN becomes 0), bool is `v != 0`.
template <typename T, typename S>
T convertValue(S v) {
    if constexpr (std::is_same_v<T, bool>) {
        return v != S(0);
    } else if constexpr (std::is_integral_v<T> && std::is_floating_point_v<S>) {
        if (std::isnan(v)) return T(0);
        if (v <= S(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        if (v >= S(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return T(v);
    } else {
        return T(v);
    }
}

// Registration of each part of the family (elementwise_<part>.cpp).
void registerArithmeticKernels(KernelRegistry& registry);
void registerUnaryMathKernels(KernelRegistry& registry);
void registerActivationKernels(KernelRegistry& registry);
void registerLogicKernels(KernelRegistry& registry);
void registerCastKernels(KernelRegistry& registry);

} // namespace graphlens::ref
