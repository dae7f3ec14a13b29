// Reference kernels: Cast and CastLike between the numeric types, float16/bfloat16, bool and
// strings (numbers print as their shortest round-trip text, as numpy does).
#include "core/runtime/reference/elementwise_internal.h"

#include <charconv>
#include <cstdlib>

namespace graphlens {
namespace {

using namespace ref;

/// `x` (a non-half numeric tensor) converted element by element to the non-half numeric `to`.
Tensor castNumeric(const Tensor& x, DType to) {
    Tensor out;
    visitNumeric(x.dtype(), "Cast", [&]<typename S>() {
        visitNumeric(to, "Cast", [&]<typename D>() {
            using Read = std::conditional_t<std::is_same_v<S, bool>, uint8_t, S>;
            using Write = std::conditional_t<std::is_same_v<D, bool>, uint8_t, D>;
            out = mapElements<Read, Write>(x, to, [](Read v) {
                if constexpr (std::is_same_v<D, bool>) return Write(v != Read(0));
                else return convertValue<D>(v);
            });
        });
    });
    return out;
}

/// Numpy's str() of a float or double: positional in [1e-4, 1e16), scientific otherwise.
template <typename T>
std::string numberText(T v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    const T magnitude = std::fabs(v);
    const bool positional = magnitude == 0 || (magnitude >= T(1e-4) && magnitude < T(1e16));
    const auto r = std::to_chars(buf, buf + sizeof buf, v,
                                 positional ? std::chars_format::fixed : std::chars_format::scientific);
    std::string text(buf, r.ptr);
    if (positional && text.find('.') == std::string::npos) text += ".0";
    return text;
}

Tensor castToStrings(const Tensor& x) {
    const Tensor source = isHalfType(x.dtype()) ? toFloat(x) : x;
    std::vector<std::string> texts;
    texts.reserve(size_t(std::max<int64_t>(x.numel(), 0)));
    visitNumeric(source.dtype(), "Cast", [&]<typename T>() {
        const int64_t n = std::max<int64_t>(source.numel(), 0);
        for (int64_t i = 0; i < n; ++i) {
            if constexpr (std::is_same_v<T, bool>)
                texts.push_back(dataOf<uint8_t>(source)[i] ? "True" : "False");
            else if constexpr (std::is_floating_point_v<T>)
                texts.push_back(numberText(dataOf<T>(source)[i]));
            else
                texts.push_back(std::to_string(dataOf<T>(source)[i]));
        }
    });
    return Tensor::fromStrings(x.dims(), std::move(texts));
}

/// Parses every string as a double ("NaN", "INF", "-inf" included); KernelError for non-numbers.
Tensor parseStrings(const Tensor& x) {
    const auto& texts = x.strings();
    std::vector<double> values;
    values.reserve(texts.size());
    for (const std::string& text : texts) {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
            throw KernelError("the string '" + text + "' is not a number");
        values.push_back(v);
    }
    if (values.size() != size_t(std::max<int64_t>(x.numel(), 0)))
        throw KernelError("a string tensor holds the wrong number of strings");
    return Tensor::fromVector(DType::Double, x.dims(), values);
}

/// A float tensor cut to bfloat16 by dropping the low 16 bits, as ONNX's Cast cases expect
/// (NaN stays NaN).
Tensor truncateToBFloat16(const Tensor& x) {
    return mapElements<uint32_t, uint16_t>(x, DType::BFloat16, [](uint32_t bits) {
        if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40u);
        return uint16_t(bits >> 16);
    });
}

Tensor castTensor(const Tensor& x, DType to) {
    if (x.dtype() == to) return x;
    if (to == DType::String) return castToStrings(x);
    if (x.dtype() == DType::String) return castTensor(parseStrings(x), to);
    if (isHalfType(x.dtype())) return castTensor(toFloat(x), to);
    if (isHalfType(to)) {
        const Tensor f = x.dtype() == DType::Double ? toFloat(x) : castNumeric(x, DType::Float);
        return to == DType::BFloat16 ? truncateToBFloat16(f) : fromFloat(f, to);
    }
    return castNumeric(x, to);
}

void cast(KernelContext& ctx) {
    const int64_t to = ctx.attributes().getInt("to", 0);
    const auto target = dtypeFromOnnx(int32_t(to));
    if (!target || to != int64_t(int32_t(to)) || *target == DType::Undefined)
        throw KernelError("Cast's 'to' " + std::to_string(to) + " is not a known element type");
    ctx.setOutput(0, castTensor(ctx.input(0), *target));
}

void castLike(KernelContext& ctx) { ctx.setOutput(0, castTensor(ctx.input(0), ctx.input(1).dtype())); }

} // namespace

namespace ref {

void registerCastKernels(KernelRegistry& registry) {
    registry.add("Cast", cast);
    registry.add("CastLike", castLike);
}

} // namespace ref
} // namespace graphlens
