// com.microsoft QLinearConcat (what the CPU plan makes of a QDQ Concat, qdq_select.cpp):
// Y = Q(Concat(DQ(X_1), DQ(X_2), ...)) on u8/s8 tensors with constant per-tensor parameters.
// Each input's codes map to the output's through a table of 256 entries, Q(DQ(code)), computed
// with the reference's float steps, so the result equals the reference's; an input quantized
// like the output is copied as it is. Along the channels of a 4-D tensor it also runs
// channels-last (the int8 convolutions' layout), where each pixel's channels are one row of
// [N * H * W, C]: SqueezeNet's Fire modules concatenate two int8 convolutions' outputs.
#include "core/runtime/cpu/byte_table.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/requantize.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <cstring>
#include <optional>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;

/// One input: its size along the axis, its table where its parameters differ from the output's,
/// and (4-D) its layouts.
struct Part {
    int64_t width = 0;
    std::optional<ByteTable> table;
    memory::desc plain, last;
    dnnl::reorder toOutputLayout;  ///< where it arrives in the layout the output is not written in
    bool arrivesLast = false;
};

template <typename Q>
std::array<uint8_t, 256> requantizeTable(float xs, float xz, float ys, float yz) {
    std::array<uint8_t, 256> t{};
    for (int b = 0; b < 256; ++b) {
        const Q code = Q(uint8_t(b));  // an s8 code's byte
        const float v = (float(code) - xz) * xs;
        t[size_t(b)] = uint8_t(requantize<Q>(v / ys, yz));
    }
    return t;
}

class QLinearConcatKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    QLinearConcatKernel(std::vector<Part> parts, const std::vector<int64_t>& dims, int64_t axis, memory::data_type type, int threads)
        : parts_(std::move(parts)), threads_(threads) {
        outer_ = 1;
        for (int64_t d = 0; d < axis; ++d) outer_ *= dims[size_t(d)];
        inner_ = 1;
        for (size_t d = size_t(axis) + 1; d < dims.size(); ++d) inner_ *= dims[d];
        channelsLast_ = dims.size() == 4 && axis == 1 && dims[2] * dims[3] > 1;
        if (channelsLast_) last_ = memory::desc(toDims(dims), type, memory::format_tag::nhwc);
    }

    std::string name() const override {
        if (!lastOut_ && !anyLastIn_) return "cpu:qlinear-concat";
        return std::string("cpu:qlinear-concat[nhwc") + (anyLastIn_ ? " in" : "") + (lastOut_ ? (anyLastIn_ ? ",out" : " out") : "") + "]";
    }
    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (!channelsLast_ || i < 2 || (i - 2) % 3 != 0 || (i - 2) / 3 >= parts_.size()) return std::nullopt;
        return parts_[(i - 2) / 3].last;
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (!channelsLast_) return std::nullopt;
        return last_;
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        lastOut_ = channelsLast_ && output;
        for (size_t k = 0; k < parts_.size(); ++k) {
            Part& p = parts_[k];
            const size_t i = 2 + 3 * k;
            p.arrivesLast = channelsLast_ && i < inputs.size() && inputs[i];
            anyLastIn_ = anyLastIn_ || p.arrivesLast;
            if (p.arrivesLast == lastOut_) continue;
            const memory plain(p.plain, engine(), DNNL_MEMORY_NONE), last(p.last, engine(), DNNL_MEMORY_NONE);
            p.toOutputLayout = p.arrivesLast ? dnnl::reorder(last, plain) : dnnl::reorder(plain, last);
        }
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        auto* y = reinterpret_cast<uint8_t*>(out[0].mutableData());
        // Rows of the output: channels-last, a pixel's channels; plain, an outer index's slab.
        const int64_t rows = lastOut_ ? elementCount(out[0].dims()) / out[0].dims()[1] : outer_;
        const int64_t unit = lastOut_ ? 1 : inner_;
        int64_t rowWidth = 0;
        for (const Part& p : parts_) rowWidth += p.width * unit;
        int64_t offset = 0;
        for (const Part& p : parts_) {
            if (p.width == 0 || rows == 0) continue;  // nothing to copy (and maybe no buffer)
            const auto* x = static_cast<const uint8_t*>(handleOf(*in[2 + 3 * (&p - parts_.data())]));
            if (p.arrivesLast != lastOut_) {  // into the output's layout first
                void* scratch = scratchBuffer(0, p.plain.get_size());
                dnnl::stream& s = stream();
                memory from(p.arrivesLast ? p.last : p.plain, engine(), const_cast<uint8_t*>(x));
                memory to(p.arrivesLast ? p.plain : p.last, engine(), scratch);
                p.toOutputLayout.execute(s, from, to);
                s.wait();
                x = static_cast<const uint8_t*>(scratch);
            }
            const int64_t width = p.width * unit;
#pragma omp parallel for schedule(static) if (rows * width >= (1 << 15))
            for (int64_t r = 0; r < rows; ++r) {
                if (p.table) p.table->map(x + r * width, y + r * rowWidth + offset, width);
                else std::memcpy(y + r * rowWidth + offset, x + r * width, size_t(width));
            }
            offset += width;
        }
    }

private:
    std::vector<Part> parts_;
    int threads_;
    int64_t outer_ = 1, inner_ = 1;
    bool channelsLast_ = false, lastOut_ = false, anyLastIn_ = false;
    memory::desc last_;
};

/// QLinearConcat of u8/s8 tensors of one type with constant per-tensor scales and zero points.
std::unique_ptr<PreparedKernel> prepareQLinearConcat(const NodeDescriptor& info) {
    const size_t n = info.inputTypes.size();
    if (n < 5 || (n - 2) % 3 != 0 || info.outputTypes.size() != 1 || info.outputDims.empty()) return nullptr;
    const DType type = info.outputTypes[0];
    if (type != DType::UInt8 && type != DType::Int8) return nullptr;
    const auto scalar = [&](size_t i) -> std::optional<float> {
        if (!info.hasInput(i) || !info.constants[i] || info.constants[i]->numel() != 1) return std::nullopt;
        return float(info.constants[i]->toDoubles()[0]);
    };
    const auto ys = scalar(0), yz = scalar(1);
    if (!ys || !yz || !(*ys > 0) || info.inputTypes[1] != type) return nullptr;
    const std::vector<int64_t>& dims = info.outputDims[0];
    const int64_t rank = int64_t(dims.size());
    int64_t count = 1;  // empty or overflowing shapes go to the reference kernel
    for (int64_t d : dims)
        if (d <= 0 || __builtin_mul_overflow(count, d, &count)) return nullptr;
    int64_t axis = info.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return nullptr;
    const memory::data_type dt = type == DType::UInt8 ? memory::data_type::u8 : memory::data_type::s8;
    std::vector<Part> parts;
    int64_t total = 0;
    for (size_t i = 2; i < n; i += 3) {
        const auto xs = scalar(i + 1), xz = scalar(i + 2);
        if (!info.hasInput(i) || info.inputTypes[i] != type || info.inputTypes[i + 2] != type || !xs || !xz || !(*xs > 0) ||
            info.inputDims[i].size() != dims.size())
            return nullptr;
        Part p;
        const std::vector<int64_t>& x = info.inputDims[i];
        p.width = x[size_t(axis)];
        total += p.width;
        if (*xs != *ys || *xz != *yz)
            p.table.emplace(type == DType::UInt8 ? requantizeTable<uint8_t>(*xs, *xz, *ys, *yz) : requantizeTable<int8_t>(*xs, *xz, *ys, *yz));
        if (x.size() == 4) {
            p.plain = memory::desc(toDims(x), dt, memory::format_tag::nchw);
            p.last = memory::desc(toDims(x), dt, memory::format_tag::nhwc);
        }
        parts.push_back(std::move(p));
    }
    if (total != dims[size_t(axis)]) return nullptr;
    return std::make_unique<QLinearConcatKernel>(std::move(parts), dims, axis, dt, info.threads);
}

} // namespace

void registerQLinearConcatKernels(CpuKernelRegistry& registry) {
    registry.add("QLinearConcat", prepareQLinearConcat, "com.microsoft");
}

} // namespace graphlens::onednn
