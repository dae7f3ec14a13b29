// Optimized CPU kernels that move data without arithmetic: Transpose (a strided copy of
// contiguous runs, or 16 x 16 tiles when the input's contiguous axis moves away from the end), Slice with unit steps (a copy of
// contiguous runs), Pad, Concat and its inverse Split (block copies), and Reshape, Flatten,
// Squeeze, Unsqueeze (a copy that vanishes when the output takes over the input's buffer).
// Any element size; shapes fixed at plan time.
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/reference/ref_util.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <cstdint>
#include <optional>

namespace graphlens {
namespace {

/// Copies an [outer dims..., run] block: for every index of `dims` (all but the last, which is
/// a run of `run` contiguous elements), from `src + sum(index * srcStrides)` to the next
/// contiguous spot of `dst`. Strides are in elements; parallel over the first dimension.
void stridedCopy(const std::byte* src, std::byte* dst, const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& srcStrides, int64_t run, size_t elementBytes) {
    const int64_t rows = std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<>());
    const size_t rank = dims.size();
    const size_t runBytes = size_t(run) * elementBytes;
#pragma omp parallel for schedule(static) if (rows * run >= (1 << 16))
    for (int64_t row = 0; row < rows; ++row) {
        int64_t rest = row, offset = 0;
        for (size_t d = rank; d-- > 0;) {
            offset += (rest % dims[d]) * srcStrides[d];
            rest /= dims[d];
        }
        if (run == 1) std::memcpy(dst + size_t(row) * elementBytes, src + size_t(offset) * elementBytes, elementBytes);
        else std::memcpy(dst + size_t(row) * runBytes, src + size_t(offset) * elementBytes, runBytes);
    }
}

/// Copies 2-D tiles for a transpose whose last output axis is strided in the input: `dims` and
/// `srcStrides` describe the output (in elements), `inner` is the output axis that is contiguous in
/// the input (stride 1). For every index of the other axes, the [dims[inner], dims.back()] plane is
/// copied in 16 x 16 tiles, so reads run along the input's rows and writes along the output's.
template <typename Element>
void tiledTranspose(const Element* src, Element* dst, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& srcStrides, size_t inner) {
    const size_t rank = dims.size();
    std::vector<int64_t> dstStrides(rank, 1);
    for (size_t d = rank - 1; d-- > 0;) dstStrides[d] = dstStrides[d + 1] * dims[d + 1];
    const int64_t rows = dims[inner], cols = dims.back();           // the plane: output (row, col)
    const int64_t rowDst = dstStrides[inner], colSrc = srcStrides.back();
    int64_t planes = 1;
    for (size_t d = 0; d + 1 < rank; ++d)
        if (d != inner) planes *= dims[d];
    constexpr int64_t kTile = 16;
#pragma omp parallel for schedule(static) if (planes * rows * cols >= (1 << 15))
    for (int64_t plane = 0; plane < planes; ++plane) {
        int64_t rest = plane, srcBase = 0, dstBase = 0;
        for (size_t d = rank - 1; d-- > 0;) {
            if (d == inner) continue;
            const int64_t i = rest % dims[d];
            rest /= dims[d];
            srcBase += i * srcStrides[d];
            dstBase += i * dstStrides[d];
        }
        for (int64_t r0 = 0; r0 < rows; r0 += kTile)
            for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                const int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
                for (int64_t c = c0; c < c1; ++c) {
                    const Element* in = src + srcBase + c * colSrc;
                    Element* out = dst + dstBase + c;
                    for (int64_t r = r0; r < r1; ++r) out[r * rowDst] = in[r];
                }
            }
    }
}

class TransposeKernel final : public PreparedKernel {
public:
    TransposeKernel(std::vector<int64_t> outDims, std::vector<int64_t> srcStrides, size_t elementBytes)
        : outDims_(std::move(outDims)), srcStrides_(std::move(srcStrides)), elementBytes_(elementBytes) {
        // The output axis the input stores contiguously, when the last output axis is not it.
        if (!outDims_.empty() && srcStrides_.back() != 1)
            for (size_t d = 0; d + 1 < outDims_.size(); ++d)
                if (srcStrides_[d] == 1 && outDims_[d] > 1) inner_ = d;
    }
    std::string name() const override { return "cpu:transpose"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::byte* src = in[0]->data();
        std::byte* dst = out[0].mutableData();
        if (inner_ && tiled(src, dst)) return;
        // the last output axis is contiguous in the input only when its stride is 1
        const bool contiguousTail = !outDims_.empty() && srcStrides_.back() == 1;
        std::vector<int64_t> dims = outDims_, strides = srcStrides_;
        int64_t run = 1;
        if (contiguousTail) {
            run = dims.back();
            dims.pop_back();
            strides.pop_back();
        }
        stridedCopy(src, dst, dims, strides, run, elementBytes_);
    }

private:
    bool tiled(const std::byte* src, std::byte* dst) const {
        const auto go = [&]<typename E>(E) {
            tiledTranspose(reinterpret_cast<const E*>(src), reinterpret_cast<E*>(dst), outDims_, srcStrides_, *inner_);
            return true;
        };
        switch (elementBytes_) {
        case 1: return go(uint8_t{});
        case 2: return go(uint16_t{});
        case 4: return go(uint32_t{});
        case 8: return go(uint64_t{});
        default: return false;
        }
    }

    std::vector<int64_t> outDims_, srcStrides_;
    size_t elementBytes_;
    std::optional<size_t> inner_;
};

std::unique_ptr<PreparedKernel> prepareTranspose(const NodeDescriptor& info) {
    const int bits = dtypeBits(info.inputTypes.at(0));
    if (bits < 8 || info.inputTypes[0] == DType::String) return nullptr;
    const auto& in = info.inputDims[0];
    std::vector<int64_t> perm = info.attributes().getInts("perm");
    if (perm.empty()) {
        perm.resize(in.size());
        std::iota(perm.rbegin(), perm.rend(), 0);
    }
    if (perm.size() != in.size()) return nullptr;
    const auto inStrides = ref::stridesOf(in);
    std::vector<int64_t> outDims, srcStrides;
    for (int64_t p : perm) {
        if (p < 0 || p >= int64_t(in.size())) return nullptr;
        outDims.push_back(in[size_t(p)]);
        srcStrides.push_back(inStrides[size_t(p)]);
    }
    if (outDims != info.outputDims[0]) return nullptr;
    return std::make_unique<TransposeKernel>(outDims, srcStrides, size_t(bits / 8));
}

/// Slice with constant starts/ends/axes and unit steps: a strided copy from a start offset.
class SliceKernel final : public PreparedKernel {
public:
    SliceKernel(int64_t startOffset, std::vector<int64_t> outDims, std::vector<int64_t> srcStrides, size_t elementBytes)
        : startOffset_(startOffset), outDims_(std::move(outDims)), srcStrides_(std::move(srcStrides)),
          elementBytes_(elementBytes) {}
    std::string name() const override { return "cpu:slice"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        std::vector<int64_t> dims = outDims_, strides = srcStrides_;
        int64_t run = 1;
        if (!dims.empty()) {
            run = dims.back();
            dims.pop_back();
            strides.pop_back();
        }
        stridedCopy(in[0]->data() + size_t(startOffset_) * elementBytes_, out[0].mutableData(), dims, strides, run,
                    elementBytes_);
    }

private:
    int64_t startOffset_;
    std::vector<int64_t> outDims_, srcStrides_;
    size_t elementBytes_;
};

std::unique_ptr<PreparedKernel> prepareSlice(const NodeDescriptor& info) {
    const int bits = dtypeBits(info.inputTypes.at(0));
    if (info.opset < 10 || bits < 8 || info.inputTypes[0] == DType::String) return nullptr;
    if (!info.hasInput(1) || !info.hasInput(2)) return nullptr;
    for (size_t i = 1; i < info.inputTypes.size(); ++i)
        if (info.hasInput(i) && !info.constants[i]) return nullptr;
    auto ints = [&](size_t i) { return info.hasInput(i) ? ref::toInt64s(*info.constants[i]) : std::vector<int64_t>{}; };
    const auto& in = info.inputDims[0];
    const auto starts = ints(1), ends = ints(2);
    std::vector<int64_t> axes = ints(3), steps = ints(4);
    if (axes.empty()) {
        axes.resize(starts.size());
        std::iota(axes.begin(), axes.end(), 0);
    }
    if (starts.size() != ends.size() || axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()))
        return nullptr;
    for (int64_t s : steps)
        if (s != 1) return nullptr;
    const auto inStrides = ref::stridesOf(in);
    std::vector<int64_t> outDims = in;
    std::vector<bool> seen(in.size(), false);
    int64_t offset = 0;
    for (size_t k = 0; k < axes.size(); ++k) {
        const int64_t axis = axes[k] < 0 ? axes[k] + int64_t(in.size()) : axes[k];
        if (axis < 0 || axis >= int64_t(in.size()) || seen[size_t(axis)]) return nullptr;
        seen[size_t(axis)] = true;
        const int64_t dim = in[size_t(axis)];
        // Negative bounds count from the end; starts and ends may be any int64 (INT64_MAX: "to the end").
        auto clamped = [dim](int64_t v) { return std::clamp(v < 0 ? (v < -dim ? int64_t(0) : v + dim) : v, int64_t(0), dim); };
        const int64_t start = clamped(starts[k]), end = clamped(ends[k]);
        outDims[size_t(axis)] = std::max<int64_t>(end - start, 0);
        offset += start * inStrides[size_t(axis)];
    }
    // The copy trusts these dims: a plan whose stated output disagrees goes to the reference kernel
    // (fuzzing: a Slice without starts and ends copied the plan's output dims past its input).
    if (outDims != info.outputDims[0]) return nullptr;
    return std::make_unique<SliceKernel>(offset, outDims, inStrides, size_t(bits / 8));
}

/// Pad in constant mode with pads known at plan time: fill, then copy each input row into place.
class PadKernel final : public PreparedKernel {
public:
    PadKernel(std::vector<int64_t> inDims, std::vector<int64_t> outDims, std::vector<int64_t> begins, float value,
              size_t elementBytes)
        : inDims_(std::move(inDims)), outStrides_(ref::stridesOf(outDims)), begins_(std::move(begins)),
          value_(value), elementBytes_(elementBytes) {}
    std::string name() const override { return "cpu:pad"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        std::byte* dst = out[0].mutableData();
        if (value_ == 0.f) {
            std::memset(dst, 0, out[0].byteSize());
        } else {
            auto values = out[0].mutableSpan<float>();
            std::fill(values.begin(), values.end(), value_);
        }
        const size_t rank = inDims_.size();
        if (rank == 0) return std::memcpy(dst, in[0]->data(), in[0]->byteSize()), void();
        const int64_t width = inDims_.back();
        const int64_t rows = in[0]->numel() / std::max<int64_t>(width, 1);
        const std::byte* src = in[0]->data();
#pragma omp parallel for schedule(static) if (rows * width >= (1 << 16))
        for (int64_t row = 0; row < rows; ++row) {
            int64_t rest = row, offset = begins_[rank - 1] * outStrides_[rank - 1];
            for (size_t d = rank - 1; d-- > 0;) {
                offset += (rest % inDims_[d] + begins_[d]) * outStrides_[d];
                rest /= inDims_[d];
            }
            std::memcpy(dst + size_t(offset) * elementBytes_, src + size_t(row * width) * elementBytes_,
                        size_t(width) * elementBytes_);
        }
    }

private:
    std::vector<int64_t> inDims_, outStrides_, begins_;
    float value_;
    size_t elementBytes_;
};

std::unique_ptr<PreparedKernel> preparePad(const NodeDescriptor& info) {
    const DType type = info.inputTypes.at(0);
    const int bits = dtypeBits(type);
    if (bits < 8 || type == DType::String || info.attributes().getString("mode", "constant") != "constant") return nullptr;
    if (info.opset < 11 || info.hasInput(3)) return nullptr;  // the attribute form and axes: the reference
    if (!info.constants.at(1)) return nullptr;
    std::vector<int64_t> pads;
    for (double d : info.constants[1]->toDoubles()) pads.push_back(int64_t(d));
    const auto& in = info.inputDims[0];
    if (pads.size() != 2 * in.size()) return nullptr;
    for (int64_t p : pads)
        if (p < 0) return nullptr;  // cropping: the reference kernel
    float value = 0.f;
    if (info.hasInput(2)) {
        if (!info.constants[2] || info.constants[2]->numel() != 1) return nullptr;
        value = float(info.constants[2]->toDoubles().at(0));
        if (value != 0.f && type != DType::Float) return nullptr;
    }
    std::vector<int64_t> begins(pads.begin(), pads.begin() + std::ptrdiff_t(in.size()));
    return std::make_unique<PadKernel>(in, info.outputDims[0], std::move(begins), value, size_t(bits / 8));
}

/// Concat as block copies: each of the `outer` output rows is the inputs' rows side by side.
class ConcatKernel final : public PreparedKernel {
public:
    ConcatKernel(int64_t outer, std::vector<size_t> blockBytes) : outer_(outer), blockBytes_(std::move(blockBytes)) {
        for (size_t b : blockBytes_) rowBytes_ += b;
    }
    std::string name() const override { return "cpu:concat"; }
    std::vector<Piece> inputPieces() const override {
        if (outer_ != 1) return {};
        std::vector<Piece> pieces;
        uint64_t offset = 0;
        for (size_t b : blockBytes_) {
            pieces.push_back({offset, b});
            offset += b;
        }
        return pieces;
    }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        std::byte* dst = out[0].mutableData();
#pragma omp parallel for schedule(static) if (outer_ * int64_t(rowBytes_) >= (1 << 18))
        for (int64_t row = 0; row < outer_; ++row) {
            size_t offset = size_t(row) * rowBytes_;
            for (size_t i = 0; i < in.size(); ++i) {
                // An input the plan placed inside the output (inputPieces) is there already.
                if (blockBytes_[i] && in[i]->data() != dst + offset)
                    std::memcpy(dst + offset, in[i]->data() + size_t(row) * blockBytes_[i], blockBytes_[i]);
                offset += blockBytes_[i];
            }
        }
    }

private:
    int64_t outer_;
    std::vector<size_t> blockBytes_;
    size_t rowBytes_ = 0;
};

std::unique_ptr<PreparedKernel> prepareConcat(const NodeDescriptor& info) {
    const DType type = info.outputTypes.at(0);
    const int bits = dtypeBits(type);
    if (bits < 8 || type == DType::String || info.inputDims.empty()) return nullptr;
    const auto& out = info.outputDims[0];
    const auto rank = int64_t(out.size());
    int64_t axis = info.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return nullptr;
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out[size_t(d)];
    std::vector<size_t> blocks;
    int64_t along = 0;
    for (size_t i = 0; i < info.inputDims.size(); ++i) {
        if (!info.hasInput(i) || info.inputTypes[i] != type || int64_t(info.inputDims[i].size()) != rank) return nullptr;
        for (int64_t d = 0; d < rank; ++d)
            if (d != axis && info.inputDims[i][size_t(d)] != out[size_t(d)]) return nullptr;
        along += info.inputDims[i][size_t(axis)];
        int64_t block = 1;
        for (int64_t d = axis; d < rank; ++d) block *= info.inputDims[i][size_t(d)];
        blocks.push_back(size_t(block) * size_t(bits / 8));
    }
    if (along != out[size_t(axis)]) return nullptr;  // the block copies would not fill the output exactly
    return std::make_unique<ConcatKernel>(outer, std::move(blocks));
}

/// Split as block copies: each of the `outer` input rows is the outputs' rows side by side.
class SplitKernel final : public PreparedKernel {
public:
    SplitKernel(int64_t outer, std::vector<size_t> blockBytes) : outer_(outer), blockBytes_(std::move(blockBytes)) {
        for (size_t b : blockBytes_) rowBytes_ += b;
    }
    std::string name() const override { return "cpu:split"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::byte* src = in[0]->data();
#pragma omp parallel for schedule(static) if (outer_ * int64_t(rowBytes_) >= (1 << 18))
        for (int64_t row = 0; row < outer_; ++row) {
            size_t offset = size_t(row) * rowBytes_;
            for (size_t i = 0; i < out.size(); ++i) {
                if (blockBytes_[i]) std::memcpy(out[i].mutableData() + size_t(row) * blockBytes_[i], src + offset, blockBytes_[i]);
                offset += blockBytes_[i];
            }
        }
    }

private:
    int64_t outer_;
    std::vector<size_t> blockBytes_;
    size_t rowBytes_ = 0;
};

std::unique_ptr<PreparedKernel> prepareSplit(const NodeDescriptor& info) {
    const DType type = info.inputTypes.at(0);
    const int bits = dtypeBits(type);
    if (bits < 8 || type == DType::String || info.outputDims.empty()) return nullptr;
    const auto& in = info.inputDims[0];
    const auto rank = int64_t(in.size());
    int64_t axis = info.attributes().getInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return nullptr;
    int64_t outer = 1, inner = 1, total = 0;
    for (int64_t d = 0; d < axis; ++d) outer *= in[size_t(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= in[size_t(d)];
    std::vector<size_t> blocks;
    for (size_t i = 0; i < info.outputDims.size(); ++i) {
        auto expected = in;
        expected[size_t(axis)] = info.outputDims[i].size() == in.size() ? info.outputDims[i][size_t(axis)] : -1;
        if (info.outputTypes[i] != type || info.outputDims[i] != expected) return nullptr;
        total += expected[size_t(axis)];
        blocks.push_back(size_t(expected[size_t(axis)] * inner) * size_t(bits / 8));
    }
    if (total != in[size_t(axis)]) return nullptr;
    return std::make_unique<SplitKernel>(outer, std::move(blocks));
}

/// Reshape, Flatten, Squeeze, Unsqueeze: the same bytes under new dims. Declared in place, so the
/// memory plan usually gives the output the input's buffer and nothing is copied.
class ReshapeKernel final : public PreparedKernel {
public:
    std::string name() const override { return "cpu:reshape"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const std::byte* src = in[0]->data();
        std::byte* dst = out[0].mutableData();
        if (src == dst) return;
        const auto bytes = int64_t(in[0]->byteSize());
        constexpr int64_t kChunk = 1 << 20;
#pragma omp parallel for schedule(static) if (bytes >= 4 * kChunk)
        for (int64_t at = 0; at < bytes; at += kChunk)
            std::memcpy(dst + at, src + at, size_t(std::min(kChunk, bytes - at)));
    }
};

std::unique_ptr<PreparedKernel> prepareReshape(const NodeDescriptor& info) {
    const DType type = info.inputTypes.at(0);
    if (type == DType::String || dtypeBits(type) < 8 || info.outputTypes.size() != 1 || info.outputTypes[0] != type ||
        ref::elementCount(info.inputDims[0]) != ref::elementCount(info.outputDims[0]))
        return nullptr;
    return std::make_unique<ReshapeKernel>();
}

} // namespace

void registerCpuLayoutKernels(CpuKernelRegistry& registry) {
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) registry.add(op, prepareReshape);
    registry.add("Split", prepareSplit);
    registry.add("Concat", prepareConcat);
    registry.add("Pad", preparePad);
    registry.add("Transpose", prepareTranspose);
    registry.add("Slice", prepareSlice);
}

} // namespace graphlens
