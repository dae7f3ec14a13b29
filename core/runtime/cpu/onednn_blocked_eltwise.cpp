// Channel-wise kernels on oneDNN's channel-blocked activations (nChw8c, nChw16c and their 1-D and
// 3-D forms), so the blocked layout survives the squeeze-and-excitation blocks between blocked
// convolutions: GlobalAveragePool (blocked in, its small [N, C, 1...] output plain) and Add/Mul
// of equal shapes or with one value per channel (blocked in and out). Each gives exactly the
// values its plain kernel in elementwise.cpp gives; padded channel slots are written as zeros.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/vector_math.h"

#include <stdexcept>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using dt = memory::data_type;

constexpr int64_t kParallelThreshold = 1 << 15;  // elements, as elementwise.cpp

/// A channel-blocked layout: channels in blocks of `block` (the last one padded), each block
/// `spatial` vectors of `block` floats, blocks of one image after one another.
struct ChannelBlocks {
    int64_t batch = 0, channels = 0, block = 0, spatial = 1;
    int64_t blocks() const { return (channels + block - 1) / block; }
    int64_t rows() const { return batch * blocks(); }        ///< (image, block) pairs
    int64_t rowFloats() const { return spatial * block; }
    int64_t valid(int64_t row) const { return std::min(block, channels - (row % blocks()) * block); }
};

std::optional<ChannelBlocks> channelBlocks(const memory::desc& d) {
    using tag = memory::format_tag;
    const Dims dims = d.dims();
    if (dims.size() < 3 || dims.size() > 5 || d.data_type() != dt::f32) return std::nullopt;
    const tag by8[] = {tag::nCw8c, tag::nChw8c, tag::nCdhw8c}, by16[] = {tag::nCw16c, tag::nChw16c, tag::nCdhw16c};
    for (int block : {8, 16}) {
        if (d != memory::desc(dims, dt::f32, (block == 8 ? by8 : by16)[dims.size() - 3])) continue;
        ChannelBlocks b{dims[0], dims[1], block, 1};
        for (size_t i = 2; i < dims.size(); ++i) b.spatial *= dims[i];
        return b;
    }
    return std::nullopt;
}

// ---- the loops: templates inlined into per-ISA clones -------------------------------------

/// The mean of each of the B channels of a block: per channel, the sum in 16 running lanes over
/// the positions, the leftover positions first and then the lanes, as laneSum in vector_math.h.
template <int B>
[[gnu::always_inline]] inline void blockMeans(const float* x, int64_t n, float* means) {
    float lanes[16][B] = {};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; ++k)
            for (int c = 0; c < B; ++c) lanes[k][c] += x[(i + k) * B + c];
    float sum[B] = {};
    for (; i < n; ++i)
        for (int c = 0; c < B; ++c) sum[c] += x[i * B + c];
    for (int k = 0; k < 16; ++k)
        for (int c = 0; c < B; ++c) sum[c] += lanes[k][c];
    for (int c = 0; c < B; ++c) means[c] = sum[c] / float(n);
}

GRAPHLENS_VECTOR_CLONES
void blockMeans(const float* x, int64_t n, int block, float* means) {
    if (block == 8) blockMeans<8>(x, n, means);
    else blockMeans<16>(x, n, means);
}

/// y = a op b over n vectors of B lanes; b is n vectors too, or one (`broadcast`).
template <int B, bool Mul, bool Broadcast>
[[gnu::always_inline]] inline void combineBlock(const float* a, const float* b, float* y, int64_t n) {
    for (int64_t s = 0; s < n; ++s)
        for (int c = 0; c < B; ++c) {
            const float r = b[Broadcast ? c : s * B + c];
            y[s * B + c] = Mul ? a[s * B + c] * r : a[s * B + c] + r;
        }
}

template <int B>
[[gnu::always_inline]] inline void combineBlock(const float* a, const float* b, float* y, int64_t n, bool mul,
                                                bool broadcast) {
    if (mul) broadcast ? combineBlock<B, true, true>(a, b, y, n) : combineBlock<B, true, false>(a, b, y, n);
    else broadcast ? combineBlock<B, false, true>(a, b, y, n) : combineBlock<B, false, false>(a, b, y, n);
}

GRAPHLENS_VECTOR_CLONES
void combineBlock(const float* a, const float* b, float* y, int64_t n, int block, bool mul, bool broadcast) {
    if (block == 8) combineBlock<8>(a, b, y, n, mul, broadcast);
    else combineBlock<16>(a, b, y, n, mul, broadcast);
}

/// Zeroes the padded channel slots of one (image, block) row.
void clearPadding(float* y, const ChannelBlocks& b, int64_t row) {
    const int64_t valid = b.valid(row);
    if (valid == b.block) return;
    for (int64_t s = 0; s < b.spatial; ++s)
        for (int64_t c = valid; c < b.block; ++c) y[s * b.block + c] = 0.f;
}

/// Base of the blocked kernels: which inputs arrive in `layout`, and whether output 0 leaves in it.
class ChannelBlockedKernel : public PreparedKernel, public BlockedLayoutKernel {
public:
    ChannelBlockedKernel(const memory::desc& layout, std::vector<bool> blockedInputs, bool blockedOutput, int threads)
        : layout_(layout), inputs_(std::move(blockedInputs)), output_(blockedOutput), threads_(threads) {}

    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (i < inputs_.size() && inputs_[i]) return layout_;
        return std::nullopt;
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (output_) return layout_;
        return std::nullopt;
    }
    /// A variant: only ever used with everything it reads or writes blocked.
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        for (size_t i = 0; i < inputs_.size(); ++i)
            if (inputs_[i] && (i >= inputs.size() || !inputs[i]))
                throw std::logic_error("a channel-blocked kernel needs its blocked inputs blocked");
        if (output_ && !output) throw std::logic_error("a channel-blocked kernel needs its output blocked");
    }

protected:
    memory::desc layout_;
    std::vector<bool> inputs_;
    bool output_;
    int threads_;
};

class BlockedGlobalAveragePool final : public ChannelBlockedKernel {
public:
    BlockedGlobalAveragePool(const memory::desc& src, ChannelBlocks b, int threads)
        : ChannelBlockedKernel(src, {true}, false, threads), b_(b) {}

    std::string name() const override { return "cpu:global-average-pool[blocked in]"; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        const float* x = reinterpret_cast<const float*>(inputs[0]->data());
        float* y = reinterpret_cast<float*>(outputs[0].mutableData());
        const ChannelBlocks b = b_;
#pragma omp parallel for schedule(static) if (b.rows() * b.rowFloats() >= kParallelThreshold)
        for (int64_t row = 0; row < b.rows(); ++row) {
            float means[16];
            blockMeans(x + row * b.rowFloats(), b.spatial, int(b.block), means);
            const int64_t image = row / b.blocks(), first = (row % b.blocks()) * b.block;
            for (int64_t c = 0; c < b.valid(row); ++c) y[image * b.channels + first + c] = means[c];
        }
    }

private:
    ChannelBlocks b_;
};

/// How the second operand of a blocked Add/Mul lines up with the blocked one.
enum class Operand { Same, PerChannel, PerImageChannel, Scalar };

class BlockedBinary final : public ChannelBlockedKernel {
public:
    BlockedBinary(const memory::desc& layout, ChannelBlocks b, size_t full, Operand other, bool mul, int threads)
        : ChannelBlockedKernel(layout, blockedFlags(full, other), true, threads), b_(b), full_(full),
          other_(other), mul_(mul) {}

    std::string name() const override { return "cpu:binary[blocked in,out]"; }
    bool writesInPlace() const override { return full_ == 0; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        const float* a = reinterpret_cast<const float*>(inputs[full_]->data());
        const float* o = reinterpret_cast<const float*>(inputs[1 - full_]->data());
        float* y = reinterpret_cast<float*>(outputs[0].mutableData());
        const ChannelBlocks b = b_;
#pragma omp parallel for schedule(static) if (b.rows() * b.rowFloats() >= kParallelThreshold)
        for (int64_t row = 0; row < b.rows(); ++row) {
            const int64_t at = row * b.rowFloats();
            if (other_ == Operand::Same) {
                combineBlock(a + at, o + at, y + at, b.spatial, int(b.block), mul_, false);
            } else {
                float lanes[16] = {};  // padded slots 0: they stay 0 under + and *
                const int64_t image = row / b.blocks(), first = (row % b.blocks()) * b.block;
                const int64_t base = other_ == Operand::PerImageChannel ? image * b.channels : 0;
                for (int64_t c = 0; c < b.valid(row); ++c)
                    lanes[c] = other_ == Operand::Scalar ? o[0] : o[base + first + c];
                combineBlock(a + at, lanes, y + at, b.spatial, int(b.block), mul_, true);
            }
            clearPadding(y + at, b, row);
        }
    }

private:
    static std::vector<bool> blockedFlags(size_t full, Operand other) {
        std::vector<bool> flags(2, other == Operand::Same);
        flags[full] = true;
        return flags;
    }

    ChannelBlocks b_;
    size_t full_;
    Operand other_;
    bool mul_;
};

/// How `other` (right-aligned against the blocked operand's [N, C, spatial...]) broadcasts, if
/// it is one value, or one per channel (and image).
std::optional<Operand> broadcastOperand(const std::vector<int64_t>& full, const std::vector<int64_t>& other) {
    if (elementCount(other) == 1) return Operand::Scalar;
    if (other.size() > full.size()) return std::nullopt;
    std::vector<int64_t> aligned(full.size() - other.size(), 1);
    aligned.insert(aligned.end(), other.begin(), other.end());
    if (aligned[1] != full[1]) return std::nullopt;
    for (size_t i = 2; i < aligned.size(); ++i)
        if (aligned[i] != 1) return std::nullopt;
    if (aligned[0] == 1) return Operand::PerChannel;
    return aligned[0] == full[0] ? std::optional(Operand::PerImageChannel) : std::nullopt;
}

} // namespace

std::unique_ptr<PreparedKernel> prepareBlockedGlobalAveragePool(const NodeDescriptor& info, const memory::desc& src) {
    if (info.node.opType != "GlobalAveragePool" || !allFloat(info) || info.inputDims.size() != 1) return nullptr;
    const std::optional<ChannelBlocks> b = channelBlocks(src);
    if (!b || src.dims() != toDims(info.inputDims[0]) || b->spatial == 0) return nullptr;
    return std::make_unique<BlockedGlobalAveragePool>(src, *b, info.threads);
}

std::unique_ptr<PreparedKernel> prepareBlockedBinary(const NodeDescriptor& info,
                                                     const std::vector<const memory::desc*>& inputs) {
    const std::string& op = info.node.opType;
    if ((op != "Add" && op != "Mul") || !allFloat(info) || info.inputDims.size() != 2 || inputs.size() != 2) return nullptr;
    const auto& out = info.outputDims.at(0);
    for (size_t full : {size_t(0), size_t(1)}) {
        if (!inputs[full] || info.inputDims[full] != out || inputs[full]->dims() != toDims(out)) continue;
        const std::optional<ChannelBlocks> b = channelBlocks(*inputs[full]);
        if (!b) continue;
        const auto& otherDims = info.inputDims[1 - full];
        std::optional<Operand> other;
        if (otherDims == out) {
            if (!inputs[1 - full] || *inputs[1 - full] != *inputs[full]) continue;
            other = Operand::Same;
        } else {
            other = broadcastOperand(out, otherDims);
        }
        if (other) return std::make_unique<BlockedBinary>(*inputs[full], *b, full, *other, op == "Mul", info.threads);
    }
    return nullptr;
}

} // namespace graphlens::onednn
