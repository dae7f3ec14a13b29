// Reference kernels: comparisons (bool results), boolean logic, bit shifts and bitwise ops, and
// Where, all with numpy broadcasting.
#include "core/runtime/reference/elementwise_internal.h"

#include <cstring>

namespace graphlens {
namespace {

using namespace ref;

/// Bool tensor of `test(x, y)` over two broadcast string tensors.
template <typename F>
Tensor compareStrings(const Tensor& a, const Tensor& b, F&& test) {
    const std::vector<int64_t> dims = broadcastDims(a.dims(), b.dims());
    Tensor out = Tensor::allocate(DType::Bool, dims);
    const std::vector<int64_t> ia = broadcastIndices(a.dims(), dims);
    const std::vector<int64_t> ib = broadcastIndices(b.dims(), dims);
    const auto& sa = a.strings();
    const auto& sb = b.strings();
    if (sa.size() != size_t(a.numel()) || sb.size() != size_t(b.numel()))
        throw KernelError("a string tensor holds the wrong number of strings");
    uint8_t* o = mutableDataOf<uint8_t>(out);
    for (size_t i = 0; i < ia.size(); ++i) o[i] = uint8_t(test(sa[size_t(ia[i])], sb[size_t(ib[i])]));
    return out;
}

/// Bool tensor of the generic `test(x, y)` over two broadcast tensors of one type.
template <typename F>
Tensor compare(const Tensor& a, const Tensor& b, const std::string& op, F&& test) {
    requireSameType(a, b, op);
    if (isHalfType(a.dtype())) return compare(toFloat(a), toFloat(b), op, test);
    if (a.dtype() == DType::String) return compareStrings(a, b, test);
    if (a.dtype() == DType::Bool)
        return mapBroadcast<uint8_t, uint8_t, uint8_t>(
            a, b, DType::Bool, [&](uint8_t x, uint8_t y) { return uint8_t(test(x != 0, y != 0)); });
    Tensor out;
    visitNumeric(a.dtype(), op, [&]<typename T>() {
        out = mapBroadcast<T, T, uint8_t>(a, b, DType::Bool, [&](T x, T y) { return uint8_t(test(x, y)); });
    });
    return out;
}

void equal(KernelContext& ctx) {
    ctx.setOutput(0, compare(ctx.input(0), ctx.input(1), "Equal", [](const auto& x, const auto& y) { return x == y; }));
}
void less(KernelContext& ctx) {
    ctx.setOutput(0, compare(ctx.input(0), ctx.input(1), "Less", [](const auto& x, const auto& y) { return x < y; }));
}
void greater(KernelContext& ctx) {
    ctx.setOutput(0, compare(ctx.input(0), ctx.input(1), "Greater", [](const auto& x, const auto& y) { return x > y; }));
}
void lessOrEqual(KernelContext& ctx) {
    ctx.setOutput(0, compare(ctx.input(0), ctx.input(1), "LessOrEqual",
                             [](const auto& x, const auto& y) { return x <= y; }));
}
void greaterOrEqual(KernelContext& ctx) {
    ctx.setOutput(0, compare(ctx.input(0), ctx.input(1), "GreaterOrEqual",
                             [](const auto& x, const auto& y) { return x >= y; }));
}

/// `f(bool, bool) -> bool` over two broadcast bool tensors.
template <typename F>
Tensor logic(const Tensor& a, const Tensor& b, const std::string& op, F&& f) {
    if (a.dtype() != DType::Bool || b.dtype() != DType::Bool) throw KernelError(op + " needs bool inputs");
    return mapBroadcast<uint8_t, uint8_t, uint8_t>(
        a, b, DType::Bool, [&](uint8_t x, uint8_t y) { return uint8_t(f(x != 0, y != 0)); });
}

void andOp(KernelContext& ctx) {
    ctx.setOutput(0, logic(ctx.input(0), ctx.input(1), "And", [](bool x, bool y) { return x && y; }));
}
void orOp(KernelContext& ctx) {
    ctx.setOutput(0, logic(ctx.input(0), ctx.input(1), "Or", [](bool x, bool y) { return x || y; }));
}
void xorOp(KernelContext& ctx) {
    ctx.setOutput(0, logic(ctx.input(0), ctx.input(1), "Xor", [](bool x, bool y) { return x != y; }));
}

/// The generic `f(x, y)` over two broadcast tensors of one integer type; `unsignedOnly` for
/// BitShift.
template <typename F>
Tensor integerBinary(const Tensor& a, const Tensor& b, const std::string& op, bool unsignedOnly, F&& f) {
    requireSameType(a, b, op);
    Tensor out;
    const std::string kind = unsignedOnly ? "unsigned integer" : "integer";
    if (a.dtype() == DType::Bool) throw KernelError(op + " needs " + kind + " inputs");
    visitNumeric(a.dtype(), op, [&]<typename T>() {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (unsignedOnly && std::is_signed_v<T>) throw KernelError(op + " needs " + kind + " inputs");
            out = mapBroadcast<T, T, T>(a, b, a.dtype(), [&](T x, T y) { return T(f(x, y)); });
        } else {
            throw KernelError(op + " needs " + kind + " inputs");
        }
    });
    return out;
}

void bitShift(KernelContext& ctx) {
    const std::string direction = ctx.attributes().getString("direction");
    if (direction != "LEFT" && direction != "RIGHT")
        throw KernelError("BitShift's direction must be LEFT or RIGHT, not '" + direction + "'");
    const bool left = direction == "LEFT";
    ctx.setOutput(0, integerBinary(ctx.input(0), ctx.input(1), "BitShift", true, [&](auto x, auto n) {
        using T = decltype(x);
        if (uint64_t(n) >= sizeof(T) * 8) return T(0);
        return left ? T(uint64_t(x) << n) : T(x >> n);
    }));
}

void bitwiseAnd(KernelContext& ctx) {
    ctx.setOutput(0, integerBinary(ctx.input(0), ctx.input(1), "BitwiseAnd", false, [](auto x, auto y) { return x & y; }));
}
void bitwiseOr(KernelContext& ctx) {
    ctx.setOutput(0, integerBinary(ctx.input(0), ctx.input(1), "BitwiseOr", false, [](auto x, auto y) { return x | y; }));
}
void bitwiseXor(KernelContext& ctx) {
    ctx.setOutput(0, integerBinary(ctx.input(0), ctx.input(1), "BitwiseXor", false, [](auto x, auto y) { return x ^ y; }));
}

void bitwiseNot(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == DType::Bool || !isInteger(x.dtype())) throw KernelError("BitwiseNot needs an integer input");
    visitNumeric(x.dtype(), "BitwiseNot", [&]<typename T>() {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            ctx.setOutput(0, mapElements<T, T>(x, x.dtype(), [](T v) { return T(~v); }));
    });
}

/// Copies element `from` of `src` to element `to` of `dst` (same non-string type).
void copyElement(const Tensor& src, int64_t from, const Tensor& dst, int64_t to, size_t bytes) {
    std::memcpy(dst.mutableData() + size_t(to) * bytes, src.data() + size_t(from) * bytes, bytes);
}

void where(KernelContext& ctx) {
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (cond.dtype() != DType::Bool) throw KernelError("Where needs a bool condition");
    requireSameType(x, y, "Where");
    const auto dims = broadcastDims(broadcastDims(cond.dims(), x.dims()), y.dims());
    const auto ic = broadcastIndices(cond.dims(), dims);
    const auto ix = broadcastIndices(x.dims(), dims);
    const auto iy = broadcastIndices(y.dims(), dims);
    const uint8_t* c = dataOf<uint8_t>(cond);
    Tensor& out = ctx.allocateOutput(0, x.dtype(), dims);
    if (x.dtype() == DType::String) {
        auto& o = out.mutableStrings();
        for (size_t i = 0; i < ic.size(); ++i) o[i] = c[ic[i]] ? x.strings().at(size_t(ix[i])) : y.strings().at(size_t(iy[i]));
        return;
    }
    const int bits = dtypeBits(x.dtype());
    if (bits <= 0 || bits % 8) throw KernelError("Where does not support the element type " + std::string(dtypeName(x.dtype())));
    for (size_t i = 0; i < ic.size(); ++i) {
        if (c[ic[i]]) copyElement(x, ix[i], out, int64_t(i), size_t(bits / 8));
        else copyElement(y, iy[i], out, int64_t(i), size_t(bits / 8));
    }
}

} // namespace

namespace ref {

void registerLogicKernels(KernelRegistry& registry) {
    registry.add("Equal", equal);
    registry.add("Less", less);
    registry.add("Greater", greater);
    registry.add("LessOrEqual", lessOrEqual);
    registry.add("GreaterOrEqual", greaterOrEqual);
    registry.add("And", andOp);
    registry.add("Or", orOp);
    registry.add("Xor", xorOp);
    registry.add("BitShift", bitShift);
    registry.add("BitwiseAnd", bitwiseAnd);
    registry.add("BitwiseOr", bitwiseOr);
    registry.add("BitwiseXor", bitwiseXor);
    registry.add("BitwiseNot", bitwiseNot);
    registry.add("Where", where);
}

} // namespace ref
} // namespace graphlens
