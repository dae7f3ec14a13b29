// Optimized CPU kernels for binary arithmetic with general numpy broadcasting (Add, Sub, Mul, Div,
// Pow, Max, Min): whatever elementwise.cpp's same-shape, scalar and per-channel kernels leave, on
// float, and on int32/int64 where integers wrap as the reference kernels do.
#include "core/runtime/cpu/broadcast.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace graphlens {
namespace {

/// An integer result computed modulo 2^64 (no signed-overflow UB), cut to T's width.
template <typename T>
T wrapped(uint64_t value) { return T(value); }

struct AddOp {
    template <typename T> T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) return wrapped<T>(uint64_t(x) + uint64_t(y));
        else return x + y;
    }
};
struct SubOp {
    template <typename T> T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) return wrapped<T>(uint64_t(x) - uint64_t(y));
        else return x - y;
    }
};
struct MulOp {
    template <typename T> T operator()(T x, T y) const {
        if constexpr (std::is_integral_v<T>) return wrapped<T>(uint64_t(x) * uint64_t(y));
        else return x * y;
    }
};
struct DivOp {
    template <typename T> T operator()(T x, T y) const { return x / y; }
};
struct PowOp {
    float operator()(float x, float y) const { return std::pow(x, y); }
};
/// std::max / std::min, a quiet NaN when either operand is NaN (as the reference's Max and Min).
struct MaxOp {
    template <typename T> T operator()(T x, T y) const {
        const T m = x < y ? y : x;
        if constexpr (std::is_floating_point_v<T>) return x != x || y != y ? std::numeric_limits<T>::quiet_NaN() : m;
        else return m;
    }
};
struct MinOp {
    template <typename T> T operator()(T x, T y) const {
        const T m = y < x ? y : x;
        if constexpr (std::is_floating_point_v<T>) return x != x || y != y ? std::numeric_limits<T>::quiet_NaN() : m;
        else return m;
    }
};

/// The loops of `Op` for the element type of a node, or nullopt for types it does not cover:
/// float for every op, int32/int64 for the ops that cannot fail on integers.
template <typename Op>
std::optional<BinaryLoops> loopsFor(DType type) {
    constexpr bool floatOnly = std::is_same_v<Op, DivOp> || std::is_same_v<Op, PowOp>;
    if (type == DType::Float) return binaryLoops<float, float, Op>();
    if constexpr (!floatOnly) {
        if (type == DType::Int64) return binaryLoops<int64_t, int64_t, Op>();
        if (type == DType::Int32) return binaryLoops<int32_t, int32_t, Op>();
    }
    return std::nullopt;
}

template <typename Op>
std::unique_ptr<PreparedKernel> prepareBroadcastArithmetic(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.outputTypes.size() != 1) return nullptr;  // Max/Min of 1 or 3+ inputs
    const DType type = info.inputTypes[0];
    if (info.inputTypes[1] != type || info.outputTypes[0] != type) return nullptr;  // Pow with an integer exponent
    const auto loops = loopsFor<Op>(type);
    if (!loops) return nullptr;
    return makeBroadcastBinary(info, "cpu:broadcast-arithmetic", *loops);
}

} // namespace

void registerCpuArithmeticKernels(CpuKernelRegistry& registry) {
    registry.add("Add", prepareBroadcastArithmetic<AddOp>);
    registry.add("Sub", prepareBroadcastArithmetic<SubOp>);
    registry.add("Mul", prepareBroadcastArithmetic<MulOp>);
    registry.add("Div", prepareBroadcastArithmetic<DivOp>);
    registry.add("Pow", prepareBroadcastArithmetic<PowOp>);
    registry.add("Max", prepareBroadcastArithmetic<MaxOp>);
    registry.add("Min", prepareBroadcastArithmetic<MinOp>);
}

} // namespace graphlens
