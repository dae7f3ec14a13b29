// Optimized CPU kernels for comparisons and boolean logic with numpy broadcasting: Equal, Less,
// LessOrEqual, Greater, GreaterOrEqual (bool results), And, Or, Xor, Not, and Where, which picks
// elements of any fixed-size type by a bool condition.
#include "core/runtime/cpu/broadcast.h"

#include <array>
#include <cstring>
#include <utility>

namespace graphlens {
namespace {

// ---- comparisons and logic ----------------------------------------------------------------------

struct EqualOp {
    template <typename T> uint8_t operator()(T x, T y) const { return x == y; }
};
struct LessOp {
    template <typename T> uint8_t operator()(T x, T y) const { return x < y; }
};
struct LessOrEqualOp {
    template <typename T> uint8_t operator()(T x, T y) const { return x <= y; }
};
struct GreaterOp {
    template <typename T> uint8_t operator()(T x, T y) const { return x > y; }
};
struct GreaterOrEqualOp {
    template <typename T> uint8_t operator()(T x, T y) const { return x >= y; }
};
struct AndOp {
    uint8_t operator()(uint8_t x, uint8_t y) const { return (x != 0) & (y != 0); }
};
struct OrOp {
    uint8_t operator()(uint8_t x, uint8_t y) const { return (x != 0) | (y != 0); }
};
struct XorOp {
    uint8_t operator()(uint8_t x, uint8_t y) const { return (x != 0) ^ (y != 0); }
};

/// Comparison loops for the input type, with bool results; nullopt for types not covered.
template <typename Op>
std::optional<BinaryLoops> comparisonLoops(DType type) {
    switch (type) {
    case DType::Float: return binaryLoops<float, uint8_t, Op>();
    case DType::Double: return binaryLoops<double, uint8_t, Op>();
    case DType::Int64: return binaryLoops<int64_t, uint8_t, Op>();
    case DType::Int32: return binaryLoops<int32_t, uint8_t, Op>();
    case DType::Int8: return binaryLoops<int8_t, uint8_t, Op>();
    case DType::UInt8: case DType::Bool: return binaryLoops<uint8_t, uint8_t, Op>();  // bools are 0 or 1
    default: return std::nullopt;
    }
}

template <typename Op>
std::unique_ptr<PreparedKernel> prepareComparison(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.outputTypes.size() != 1 || info.outputTypes[0] != DType::Bool ||
        info.inputTypes[0] != info.inputTypes[1])
        return nullptr;
    const auto loops = comparisonLoops<Op>(info.inputTypes[0]);
    return loops ? makeBroadcastBinary(info, "cpu:compare", *loops) : nullptr;
}

template <typename Op>
std::unique_ptr<PreparedKernel> prepareLogic(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 2 || info.inputTypes[0] != DType::Bool || info.inputTypes[1] != DType::Bool ||
        info.outputTypes.size() != 1 || info.outputTypes[0] != DType::Bool)
        return nullptr;
    return makeBroadcastBinary(info, "cpu:logic", binaryLoops<uint8_t, uint8_t, Op>());
}

GRAPHLENS_VECTOR_CLONES
void negateBools(const uint8_t* x, uint8_t* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] == 0;
}

class NotKernel final : public PreparedKernel {
public:
    std::string name() const override { return "cpu:logic"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const auto* x = reinterpret_cast<const uint8_t*>(in[0]->data());
        auto* y = reinterpret_cast<uint8_t*>(out[0].mutableData());
        parallelRanges(in[0]->numel(), [&](int64_t b, int64_t e) { negateBools(x + b, y + b, e - b); });
    }
};

std::unique_ptr<PreparedKernel> prepareNot(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 1 || info.inputTypes[0] != DType::Bool || info.outputTypes.size() != 1 ||
        info.inputDims[0] != info.outputDims[0])
        return nullptr;
    return std::make_unique<NotKernel>();
}

// ---- Where --------------------------------------------------------------------------------------

using WhereFn = void (*)(const uint8_t* cond, const std::byte* x, const std::byte* y, std::byte* out, int64_t n);

/// One run of Where; bit 0, 1, 2 of `Repeats` flag the condition, X and Y as repeating one element.
template <typename T, int Repeats>
GRAPHLENS_VECTOR_CLONES void whereRun(const uint8_t* cond, const std::byte* x, const std::byte* y, std::byte* out,
                                      int64_t n) {
    constexpr bool rc = Repeats & 1, rx = Repeats & 2, ry = Repeats & 4;
    const T* px = reinterpret_cast<const T*>(x);
    const T* py = reinterpret_cast<const T*>(y);
    T* po = reinterpret_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) po[i] = (rc ? cond[0] : cond[i]) ? (rx ? px[0] : px[i]) : (ry ? py[0] : py[i]);
}

template <typename T, int... Repeats>
std::array<WhereFn, 8> whereTable(std::integer_sequence<int, Repeats...>) {
    return {whereRun<T, Repeats>...};
}

/// The Where loop for elements of `bytes` bytes and the given repeat flags.
WhereFn whereLoop(size_t bytes, int repeats) {
    static const auto t1 = whereTable<uint8_t>(std::make_integer_sequence<int, 8>());
    static const auto t2 = whereTable<uint16_t>(std::make_integer_sequence<int, 8>());
    static const auto t4 = whereTable<uint32_t>(std::make_integer_sequence<int, 8>());
    static const auto t8 = whereTable<uint64_t>(std::make_integer_sequence<int, 8>());
    const auto& table = bytes == 1 ? t1 : bytes == 2 ? t2 : bytes == 4 ? t4 : t8;
    return table[size_t(repeats)];
}

class WhereKernel final : public PreparedKernel {
public:
    WhereKernel(BroadcastPlan plan, size_t bytes) : plan_(std::move(plan)), bytes_(bytes) {
        int repeats = 0;
        for (size_t i = 0; i < 3; ++i) repeats |= plan_.repeatsInRun(i) ? 1 << i : 0;
        loop_ = whereLoop(bytes, repeats);
    }
    std::string name() const override { return "cpu:where"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const auto* cond = reinterpret_cast<const uint8_t*>(in[0]->data());
        const std::byte* x = in[1]->data();
        const std::byte* y = in[2]->data();
        std::byte* o = out[0].mutableData();
        parallelRuns<3>(plan_, [&](int64_t at, const std::array<int64_t, 3>& index, int64_t length) {
            loop_(cond + index[0], x + size_t(index[1]) * bytes_, y + size_t(index[2]) * bytes_,
                  o + size_t(at) * bytes_, length);
        });
    }

private:
    BroadcastPlan plan_;
    size_t bytes_;
    WhereFn loop_ = nullptr;
};

std::unique_ptr<PreparedKernel> prepareWhere(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 3 || info.inputTypes[0] != DType::Bool || info.outputTypes.size() != 1) return nullptr;
    const DType type = info.inputTypes[1];
    const int bits = dtypeBits(type);
    if (type == DType::String || info.inputTypes[2] != type || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
        return nullptr;
    auto plan = planBroadcast({info.inputDims[0], info.inputDims[1], info.inputDims[2]}, info.outputDims[0]);
    if (!plan) return nullptr;
    return std::make_unique<WhereKernel>(std::move(*plan), size_t(bits / 8));
}

} // namespace

void registerCpuLogicKernels(CpuKernelRegistry& registry) {
    registry.add("Equal", prepareComparison<EqualOp>);
    registry.add("Less", prepareComparison<LessOp>);
    registry.add("LessOrEqual", prepareComparison<LessOrEqualOp>);
    registry.add("Greater", prepareComparison<GreaterOp>);
    registry.add("GreaterOrEqual", prepareComparison<GreaterOrEqualOp>);
    registry.add("And", prepareLogic<AndOp>);
    registry.add("Or", prepareLogic<OrOp>);
    registry.add("Xor", prepareLogic<XorOp>);
    registry.add("Not", prepareNot);
    registry.add("Where", prepareWhere);
}

} // namespace graphlens
