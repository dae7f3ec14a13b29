// Reference kernels: the elementwise family (see families.h). This file registers the family's
// parts and holds the broadcasting arithmetic: Add Sub Mul Div Pow Mod, Sum Mean Max Min, PRelu.
#include "core/runtime/reference/elementwise_internal.h"
#include "core/runtime/reference/families.h"

namespace graphlens {
namespace ref {

void requireSameType(const Tensor& a, const Tensor& b, const std::string& op) {
    if (a.dtype() != b.dtype())
        throw KernelError(op + " needs inputs of one element type, got " + std::string(dtypeName(a.dtype())) +
                          " and " + std::string(dtypeName(b.dtype())));
}

} // namespace ref

namespace {

using namespace ref;

void add(KernelContext& ctx) {
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "Add", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapAdd(x, y);
        else return x + y;
    }));
}

void sub(KernelContext& ctx) {
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "Sub", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapSub(x, y);
        else return x - y;
    }));
}

void mul(KernelContext& ctx) {
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "Mul", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapMul(x, y);
        else return x * y;
    }));
}

/// Integer division truncating toward zero; the most negative value divided by -1 wraps.
template <typename T>
T integerDivide(T x, T y) {
    if (y == 0) throw KernelError("integer division by zero");
    if constexpr (std::is_signed_v<T>)
        if (y == T(-1)) return wrapSub(T(0), x);
    return T(x / y);
}

void divide(KernelContext& ctx) {
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "Div", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return integerDivide(x, y);
        else return x / y;
    }));
}

/// Remainder with the sign of the dividend (C fmod) or, when `pythonSign`, of the divisor.
template <typename T>
T modulo(T x, T y, bool pythonSign) {
    T r;
    if constexpr (std::is_floating_point_v<T>) {
        r = std::fmod(x, y);
    } else {
        if (y == 0) throw KernelError("integer modulo by zero");
        if constexpr (std::is_signed_v<T>)
            if (y == T(-1)) return T(0);
        r = T(x % y);
    }
    if (pythonSign && r != 0 && ((r < 0) != (y < 0))) r = T(r + y);
    return r;
}

void modOp(KernelContext& ctx) {
    const bool pythonSign = ctx.attributes().getInt("fmod", 0) == 0;
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "Mod",
                                   [&](auto x, auto y) { return modulo(x, y, pythonSign); }));
}

/// `base` to the power `exponent`: exact repeated squaring for integers, std::pow otherwise.
template <typename T>
T power(T base, double exponent) {
    if constexpr (std::is_integral_v<T>) {
        if (exponent >= 0 && exponent < 1e18 && exponent == std::floor(exponent)) {
            T result = 1;
            for (auto e = uint64_t(exponent); e; e >>= 1) {
                if (e & 1) result = wrapMul(result, base);
                base = wrapMul(base, base);
            }
            return result;
        }
    }
    return convertValue<T>(std::pow(double(base), exponent));
}

Tensor powTensor(const Tensor& base, const Tensor& exponent) {
    if (isHalfType(base.dtype())) return fromFloat(powTensor(toFloat(base), exponent), base.dtype());
    if (exponent.dtype() == DType::String || exponent.dtype() == DType::Bool)
        throw KernelError("Pow does not support a " + std::string(dtypeName(exponent.dtype())) + " exponent");
    const Tensor e = Tensor::fromVector(DType::Double, exponent.dims(), exponent.toDoubles());
    Tensor out;
    visitNumeric(base.dtype(), "Pow", [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>)
            throw KernelError("Pow does not support the element type bool");
        else
            out = mapBroadcast<T, double, T>(base, e, base.dtype(), [](T x, double y) { return power(x, y); });
    });
    return out;
}

void powOp(KernelContext& ctx) { ctx.setOutput(0, powTensor(ctx.input(0), ctx.input(1))); }

/// Folds every input with `f`, broadcasting; a single input is forwarded.
template <typename F>
Tensor foldInputs(KernelContext& ctx, const std::string& op, F&& f) {
    if (ctx.inputCount() == 0) throw KernelError(op + " needs at least one input");
    Tensor acc = ctx.input(0);
    for (size_t i = 1; i < ctx.inputCount(); ++i) acc = binaryNumeric(acc, ctx.input(i), op, f);
    return acc;
}

void sum(KernelContext& ctx) {
    ctx.setOutput(0, foldInputs(ctx, "Sum", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapAdd(x, y);
        else return x + y;
    }));
}

void mean(KernelContext& ctx) {
    const Tensor total = foldInputs(ctx, "Mean", [](auto x, auto y) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapAdd(x, y);
        else return x + y;
    });
    const auto count = double(ctx.inputCount());
    ctx.setOutput(0, mapNumeric(total, "Mean", [&](auto v) { return decltype(v)(double(v) / count); }));
}

/// max(x, y) (or min when `takeMin`), NaN when either is NaN.
template <typename T>
T extreme(T x, T y, bool takeMin) {
    if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    return takeMin ? std::min(x, y) : std::max(x, y);
}

void maxOp(KernelContext& ctx) {
    ctx.setOutput(0, foldInputs(ctx, "Max", [](auto x, auto y) { return extreme(x, y, false); }));
}

void minOp(KernelContext& ctx) {
    ctx.setOutput(0, foldInputs(ctx, "Min", [](auto x, auto y) { return extreme(x, y, true); }));
}

void prelu(KernelContext& ctx) {
    ctx.setOutput(0, binaryNumeric(ctx.input(0), ctx.input(1), "PRelu", [](auto x, auto slope) {
        using T = decltype(x);
        if (!(x < T(0))) return x;
        if constexpr (std::is_integral_v<T>) return wrapMul(x, slope);
        else return T(x * slope);
    }));
}

} // namespace

namespace ref {

void registerArithmeticKernels(KernelRegistry& registry) {
    registry.add("Add", add);
    registry.add("Sub", sub);
    registry.add("Mul", mul);
    registry.add("Div", divide);
    registry.add("Mod", modOp);
    registry.add("Pow", powOp);
    registry.add("Sum", sum);
    registry.add("Mean", mean);
    registry.add("Max", maxOp);
    registry.add("Min", minOp);
    registry.add("PRelu", prelu);
}

} // namespace ref

void registerElementwiseKernels(KernelRegistry& registry) {
    ref::registerArithmeticKernels(registry);
    ref::registerUnaryMathKernels(registry);
    ref::registerActivationKernels(registry);
    ref::registerLogicKernels(registry);
    ref::registerCastKernels(registry);
}

} // namespace graphlens
