// Optimized CPU kernels for Cast and CastLike between float, double, int64, int32, int8, uint8 and
// bool (floats truncate toward zero and saturate, NaN becomes 0, bool is "not zero", as in the
// reference kernels), and between float and float16. One vectorized loop per pair of types.
#include "core/runtime/cpu/broadcast.h"
#include "core/runtime/reference/elementwise_internal.h"

#include <type_traits>

namespace graphlens {
namespace {

using CastFn = void (*)(const std::byte* in, std::byte* out, int64_t n);

/// Element type of a bool tensor as stored (one byte, 0 or 1).
template <typename T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename S, typename D>
GRAPHLENS_VECTOR_CLONES void castRun(const std::byte* in, std::byte* out, int64_t n) {
    const auto* x = reinterpret_cast<const Stored<S>*>(in);
    auto* y = reinterpret_cast<Stored<D>*>(out);
    for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<D, bool>) y[i] = x[i] != Stored<S>(0);
        else y[i] = ref::convertValue<D>(x[i]);
    }
}

void halfToFloatRun(const std::byte* in, std::byte* out, int64_t n) {
    const auto* x = reinterpret_cast<const uint16_t*>(in);
    auto* y = reinterpret_cast<float*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = halfToFloat(x[i]);
}

void floatToHalfRun(const std::byte* in, std::byte* out, int64_t n) {
    const auto* x = reinterpret_cast<const float*>(in);
    auto* y = reinterpret_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = ref::floatToHalf(x[i]);
}

/// Calls f.template operator()<T>() with the C++ type of `type` among the types the casts cover;
/// false for the others.
template <typename F>
bool visitCastType(DType type, F&& f) {
    switch (type) {
    case DType::Float: f.template operator()<float>(); return true;
    case DType::Double: f.template operator()<double>(); return true;
    case DType::Int64: f.template operator()<int64_t>(); return true;
    case DType::Int32: f.template operator()<int32_t>(); return true;
    case DType::Int8: f.template operator()<int8_t>(); return true;
    case DType::UInt8: f.template operator()<uint8_t>(); return true;
    case DType::Bool: f.template operator()<bool>(); return true;
    default: return false;
    }
}

/// The loop converting `from` to `to`; nullptr for pairs it does not cover.
CastFn castLoop(DType from, DType to) {
    if (from == DType::Float16 && to == DType::Float) return halfToFloatRun;
    if (from == DType::Float && to == DType::Float16) return floatToHalfRun;
    CastFn loop = nullptr;
    visitCastType(from, [&]<typename S>() { visitCastType(to, [&]<typename D>() { loop = castRun<S, D>; }); });
    return loop;
}

class CastKernel final : public PreparedKernel {
public:
    CastKernel(CastFn loop, size_t inBytes, size_t outBytes) : loop_(loop), inBytes_(inBytes), outBytes_(outBytes) {}
    std::string name() const override { return "cpu:cast"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::byte* x = in[0]->data();
        std::byte* y = out[0].mutableData();
        parallelRanges(in[0]->numel(), [&](int64_t b, int64_t e) {
            loop_(x + size_t(b) * inBytes_, y + size_t(b) * outBytes_, e - b);
        });
    }

private:
    CastFn loop_;
    size_t inBytes_, outBytes_;
};

/// Cast (`to` attribute) and CastLike (input 1's type): the planned output type says the target.
std::unique_ptr<PreparedKernel> prepareCast(const NodeDescriptor& info) {
    if (info.inputTypes.empty() || info.outputTypes.size() != 1 || info.inputDims[0] != info.outputDims[0])
        return nullptr;
    const DType from = info.inputTypes[0], to = info.outputTypes[0];
    if (info.node.opType == "Cast") {
        const auto target = dtypeFromOnnx(int32_t(info.attributes().getInt("to", 0)));
        if (!target || *target != to) return nullptr;
    }
    const CastFn loop = castLoop(from, to);
    if (!loop || ref::elementCount(info.outputDims[0]) == 0) return nullptr;
    return std::make_unique<CastKernel>(loop, size_t(dtypeBits(from) / 8), size_t(dtypeBits(to) / 8));
}

} // namespace

void registerCpuCastKernels(CpuKernelRegistry& registry) {
    registry.add("Cast", prepareCast);
    registry.add("CastLike", prepareCast);
}

} // namespace graphlens
