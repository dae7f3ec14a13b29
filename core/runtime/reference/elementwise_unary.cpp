// Reference kernels: unary math of the elementwise family (Neg, Abs, Sqrt, Exp, Log, rounding,
// trigonometric and hyperbolic functions, Erf) and the predicates IsNaN, IsInf and Not.
#include "core/runtime/reference/elementwise_internal.h"

#include <cmath>

namespace graphlens {
namespace {

using namespace ref;

/// A kernel applying `f` to a float/double/float16/bfloat16 input.
#define GRAPHLENS_FLOAT_UNARY(name, op, expr)                                                      \
    void name(KernelContext& ctx) {                                                                \
        ctx.setOutput(0, mapFloating(ctx.input(0), op, [](auto x) { return decltype(x)(expr); })); \
    }

GRAPHLENS_FLOAT_UNARY(sqrtOp, "Sqrt", std::sqrt(x))
GRAPHLENS_FLOAT_UNARY(expOp, "Exp", std::exp(x))
GRAPHLENS_FLOAT_UNARY(logOp, "Log", std::log(x))
GRAPHLENS_FLOAT_UNARY(reciprocal, "Reciprocal", 1 / x)
GRAPHLENS_FLOAT_UNARY(floorOp, "Floor", std::floor(x))
GRAPHLENS_FLOAT_UNARY(ceilOp, "Ceil", std::ceil(x))
GRAPHLENS_FLOAT_UNARY(roundOp, "Round", std::nearbyint(x))  // default mode: half to even
GRAPHLENS_FLOAT_UNARY(sinOp, "Sin", std::sin(x))
GRAPHLENS_FLOAT_UNARY(cosOp, "Cos", std::cos(x))
GRAPHLENS_FLOAT_UNARY(tanOp, "Tan", std::tan(x))
GRAPHLENS_FLOAT_UNARY(asinOp, "Asin", std::asin(x))
GRAPHLENS_FLOAT_UNARY(acosOp, "Acos", std::acos(x))
GRAPHLENS_FLOAT_UNARY(atanOp, "Atan", std::atan(x))
GRAPHLENS_FLOAT_UNARY(sinhOp, "Sinh", std::sinh(x))
GRAPHLENS_FLOAT_UNARY(coshOp, "Cosh", std::cosh(x))
GRAPHLENS_FLOAT_UNARY(asinhOp, "Asinh", std::asinh(x))
GRAPHLENS_FLOAT_UNARY(acoshOp, "Acosh", std::acosh(x))
GRAPHLENS_FLOAT_UNARY(atanhOp, "Atanh", std::atanh(x))
GRAPHLENS_FLOAT_UNARY(erfOp, "Erf", std::erf(x))

#undef GRAPHLENS_FLOAT_UNARY

void neg(KernelContext& ctx) {
    ctx.setOutput(0, mapNumeric(ctx.input(0), "Neg", [](auto x) {
        if constexpr (std::is_integral_v<decltype(x)>) return wrapSub(decltype(x)(0), x);
        else return -x;
    }));
}

void absOp(KernelContext& ctx) {
    ctx.setOutput(0, mapNumeric(ctx.input(0), "Abs", [](auto x) {
        using T = decltype(x);
        if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
        else if constexpr (std::is_signed_v<T>) return x < 0 ? wrapSub(T(0), x) : x;
        else return x;
    }));
}

void sign(KernelContext& ctx) {
    ctx.setOutput(0, mapNumeric(ctx.input(0), "Sign", [](auto x) {
        using T = decltype(x);
        if constexpr (std::is_floating_point_v<T>)
            if (std::isnan(x)) return x;
        return T(x > T(0) ? 1 : (x < T(0) ? -1 : 0));
    }));
}

/// A bool tensor with `test(v)` for every element of a floating-point tensor.
template <typename F>
Tensor floatPredicate(const Tensor& x, const std::string& op, F&& test) {
    if (isHalfType(x.dtype())) return floatPredicate(toFloat(x), op, test);
    Tensor out;
    visitFloat(x.dtype(), op, [&]<typename T>() {
        out = mapElements<T, uint8_t>(x, DType::Bool, [&](T v) { return uint8_t(test(double(v))); });
    });
    return out;
}

void isNaN(KernelContext& ctx) {
    ctx.setOutput(0, floatPredicate(ctx.input(0), "IsNaN", [](double v) { return std::isnan(v); }));
}

void isInf(KernelContext& ctx) {
    const bool negative = ctx.attributes().getInt("detect_negative", 1) != 0;
    const bool positive = ctx.attributes().getInt("detect_positive", 1) != 0;
    ctx.setOutput(0, floatPredicate(ctx.input(0), "IsInf", [&](double v) {
        return std::isinf(v) && (v < 0 ? negative : positive);
    }));
}

void notOp(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Bool) throw KernelError("Not needs a bool input");
    ctx.setOutput(0, mapElements<uint8_t, uint8_t>(x, DType::Bool, [](uint8_t v) { return uint8_t(v == 0); }));
}

} // namespace

namespace ref {

void registerUnaryMathKernels(KernelRegistry& registry) {
    registry.add("Neg", neg);
    registry.add("Abs", absOp);
    registry.add("Sign", sign);
    registry.add("Sqrt", sqrtOp);
    registry.add("Exp", expOp);
    registry.add("Log", logOp);
    registry.add("Reciprocal", reciprocal);
    registry.add("Floor", floorOp);
    registry.add("Ceil", ceilOp);
    registry.add("Round", roundOp);
    registry.add("Sin", sinOp);
    registry.add("Cos", cosOp);
    registry.add("Tan", tanOp);
    registry.add("Asin", asinOp);
    registry.add("Acos", acosOp);
    registry.add("Atan", atanOp);
    registry.add("Sinh", sinhOp);
    registry.add("Cosh", coshOp);
    registry.add("Asinh", asinhOp);
    registry.add("Acosh", acoshOp);
    registry.add("Atanh", atanhOp);
    registry.add("Erf", erfOp);
    registry.add("IsNaN", isNaN);
    registry.add("IsInf", isInf);
    registry.add("Not", notOp);
}

} // namespace ref
} // namespace graphlens
