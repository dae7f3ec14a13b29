// Channel-wise kernels on oneDNN's channel-blocked activations (nChw8c, nChw16c and their 1-D and
// 3-D forms), so the blocked layout survives the squeeze-and-excitation blocks between blocked
// convolutions: GlobalAveragePool (blocked in, its small [N, C, 1...] output plain) and Add/Mul
// of equal shapes or with one value per channel (blocked in and out). Each gives exactly the
// values its plain kernel in elementwise.cpp gives; padded channel slots are written as zeros.
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/vector_math.h"

#include <algorithm>
#include <cstring>
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
    /// Rows split into pieces of at most kPiece positions, so that the threads share a tensor of few
    /// blocks (16 channels at 112 x 112) evenly: piece p covers positions [begin, end) of row(p).
    static constexpr int64_t kPiece = 1024;
    int64_t piecesPerRow() const { return std::max<int64_t>(1, (spatial + kPiece - 1) / kPiece); }
    int64_t pieces() const { return rows() * piecesPerRow(); }
    int64_t row(int64_t piece) const { return piece / piecesPerRow(); }
    int64_t begin(int64_t piece) const { return (piece % piecesPerRow()) * kPiece; }
    int64_t end(int64_t piece) const { return std::min(spatial, begin(piece) + kPiece); }
    /// The float offset of position `s` of row `row`.
    int64_t at(int64_t row, int64_t s) const { return row * rowFloats() + s * block; }
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

/// B floats as one vector (see combineBlock). Spelled out per size: GCC 12 drops a vector_size
/// that depends on a template parameter of an alias template.
template <int B>
struct LanesOf;
template <>
struct LanesOf<8> {
    typedef float type __attribute__((vector_size(8 * sizeof(float))));
};
template <>
struct LanesOf<16> {
    typedef float type __attribute__((vector_size(16 * sizeof(float))));
};
template <int B>
using Lanes = typename LanesOf<B>::type;

/// y = a op b over n vectors of B lanes; b is n vectors too, or one (`broadcast`).
/// (Equal shapes: one flat loop; a broadcast block: one vector of B lanes, which GCC's vector
/// extension compiles to one AVX-512 register, two AVX2 ones or four SSE ones per clone: the
/// compiler vectorizes the lane loop of such blocks poorly on its own.)
template <int B, bool Mul, bool Broadcast>
[[gnu::always_inline]] inline void combineBlock(const float* a, const float* b, float* y, int64_t n) {
    if constexpr (Broadcast) {
        Lanes<B> r, v;  // loaded and stored by memcpy: unaligned, and no vectors cross calls
        std::memcpy(&r, b, sizeof r);
        for (int64_t s = 0; s < n; ++s) {
            std::memcpy(&v, a + s * B, sizeof v);
            if constexpr (Mul) v *= r;
            else v += r;
            std::memcpy(y + s * B, &v, sizeof v);
        }
    } else {
        for (int64_t i = 0; i < n * B; ++i) y[i] = Mul ? a[i] * b[i] : a[i] + b[i];
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

/// Zeroes the padded channel slots of `n` positions (from y on) of one (image, block) row.
void clearPadding(float* y, const ChannelBlocks& b, int64_t row, int64_t n) {
    const int64_t valid = b.valid(row);
    if (valid == b.block) return;
    for (int64_t s = 0; s < n; ++s)
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
    /// The full operand, whichever input it is (EfficientNet's Mul(scale, x)): each element is
    /// read before it is written, the other operand's per-channel values copied out first.
    int inPlaceInput() const override { return int(full_); }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        const float* a = reinterpret_cast<const float*>(inputs[full_]->data());
        const float* o = reinterpret_cast<const float*>(inputs[1 - full_]->data());
        float* y = reinterpret_cast<float*>(outputs[0].mutableData());
        const ChannelBlocks b = b_;
#pragma omp parallel for schedule(static) if (b.rows() * b.rowFloats() >= kParallelThreshold)
        for (int64_t piece = 0; piece < b.pieces(); ++piece) {
            const int64_t row = b.row(piece), at = b.at(row, b.begin(piece)), n = b.end(piece) - b.begin(piece);
            if (other_ == Operand::Same) {
                combineBlock(a + at, o + at, y + at, n, int(b.block), mul_, false);
            } else {
                float lanes[16] = {};  // padded slots 0: they stay 0 under + and *
                const int64_t image = row / b.blocks(), first = (row % b.blocks()) * b.block;
                const int64_t base = other_ == Operand::PerImageChannel ? image * b.channels : 0;
                for (int64_t c = 0; c < b.valid(row); ++c)
                    lanes[c] = other_ == Operand::Scalar ? o[0] : o[base + first + c];
                combineBlock(a + at, lanes, y + at, n, int(b.block), mul_, true);
            }
            clearPadding(y + at, b, row, n);
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

/// y = x * scale + shift over n vectors of B lanes, one scale and shift per lane.
template <int B>
[[gnu::always_inline]] inline void scaleShiftBlock(const float* x, const float* scale, const float* shift, float* y,
                                                   int64_t n) {
    Lanes<B> k, b, v;  // as combineBlock
    std::memcpy(&k, scale, sizeof k);
    std::memcpy(&b, shift, sizeof b);
    for (int64_t s = 0; s < n; ++s) {
        std::memcpy(&v, x + s * B, sizeof v);
        v = v * k + b;
        std::memcpy(y + s * B, &v, sizeof v);
    }
}

GRAPHLENS_VECTOR_CLONES
void scaleShiftBlock(const float* x, const float* scale, const float* shift, float* y, int64_t n, int block) {
    if (block == 8) scaleShiftBlock<8>(x, scale, shift, y, n);
    else scaleShiftBlock<16>(x, scale, shift, y, n);
}

/// Inference BatchNormalization on a channel-blocked input (blocked in and out): the scale and
/// shift of its CPU kernel, stored per block with zeros in the padded slots (which so stay 0).
class BlockedBatchNorm final : public ChannelBlockedKernel {
public:
    BlockedBatchNorm(const memory::desc& layout, ChannelBlocks b, const ChannelAffine& affine, int threads)
        : ChannelBlockedKernel(layout, {true, false, false, false, false}, true, threads), b_(b),
          scale_(size_t(b.blocks() * b.block)), shift_(scale_.size()) {
        std::copy(affine.scale.begin(), affine.scale.end(), scale_.begin());
        std::copy(affine.shift.begin(), affine.shift.end(), shift_.begin());
    }

    std::string name() const override { return "cpu:batchnorm[blocked in,out]"; }
    bool writesInPlace() const override { return true; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        const float* x = reinterpret_cast<const float*>(inputs[0]->data());
        float* y = reinterpret_cast<float*>(outputs[0].mutableData());
        const ChannelBlocks b = b_;
#pragma omp parallel for schedule(static) if (b.rows() * b.rowFloats() >= kParallelThreshold)
        for (int64_t piece = 0; piece < b.pieces(); ++piece) {
            const int64_t row = b.row(piece), at = b.at(row, b.begin(piece)), first = (row % b.blocks()) * b.block;
            scaleShiftBlock(x + at, scale_.data() + first, shift_.data() + first, y + at, b.end(piece) - b.begin(piece),
                            int(b.block));
        }
    }

private:
    ChannelBlocks b_;
    std::vector<float> scale_, shift_;
};

/// An element-wise activation on a channel-blocked input (blocked in and out): its CPU kernel run
/// over the whole blocked buffer, padded slots included (zeros, as every blocked kernel writes
/// them), which are set back to zero where the activation of 0 is not 0 (Sigmoid, HardSigmoid).
class BlockedUnary final : public ChannelBlockedKernel {
public:
    BlockedUnary(const memory::desc& layout, ChannelBlocks b, size_t inputs, std::unique_ptr<PreparedKernel> plain,
                 int threads)
        : ChannelBlockedKernel(layout, flags(inputs), true, threads), b_(b), plain_(std::move(plain)),
          floats_(int64_t(layout.get_size() / sizeof(float))),
          clearPadding_(b.channels % b.block != 0 && !mapsZeroToZero(*plain_, inputs)) {}

    std::string name() const override { return plain_->name() + "[blocked in,out]"; }
    bool writesInPlace() const override { return plain_->writesInPlace(); }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        const size_t bytes = size_t(floats_) * sizeof(float);
        Tensor x = Tensor::view(DType::Float, {floats_}, inputs[0]->data(), bytes, inputs[0]->sharedStorage());
        std::vector<const Tensor*> in(inputs);
        in[0] = &x;
        std::vector<Tensor> out{Tensor::view(DType::Float, {floats_}, outputs[0].data(), bytes, outputs[0].sharedStorage())};
        plain_->run(in, out);
        if (!clearPadding_) return;
        float* y = reinterpret_cast<float*>(outputs[0].mutableData());
        for (int64_t row = b_.blocks() - 1; row < b_.rows(); row += b_.blocks())
            clearPadding(y + row * b_.rowFloats(), b_, row, b_.spatial);
    }

private:
    static std::vector<bool> flags(size_t inputs) {
        std::vector<bool> f(inputs, false);
        f.at(0) = true;
        return f;
    }

    /// The activation of 0 is exactly 0 (not NaN), asked of the kernel itself.
    static bool mapsZeroToZero(PreparedKernel& kernel, size_t inputs) {
        const Tensor zero = Tensor::allocate(DType::Float, {1});
        std::vector<const Tensor*> in(inputs, &zero);  // the kernel reads input 0 only
        std::vector<Tensor> out{Tensor::floats({1}, {1.f})};
        kernel.run(in, out);
        return out[0].span<float>()[0] == 0.f;
    }

    ChannelBlocks b_;
    std::unique_ptr<PreparedKernel> plain_;
    int64_t floats_;
    bool clearPadding_;
};

/// Concat along the channels of channel-blocked inputs whose channel counts are multiples of the
/// block: the output's blocks of one image are the inputs' blocks of that image one after another,
/// so each (image, input) is one contiguous copy (as ConcatKernel in layout.cpp, on blocks).
class BlockedConcat final : public PreparedKernel, public BlockedLayoutKernel {
public:
    BlockedConcat(std::vector<memory::desc> inputs, const memory::desc& output, int64_t batch, int threads)
        : inputs_(std::move(inputs)), output_(output), batch_(batch), threads_(threads) {
        for (const memory::desc& d : inputs_) {
            imageBytes_.push_back(d.get_size() / size_t(batch_));
            rowBytes_ += imageBytes_.back();
        }
    }

    std::string name() const override { return "cpu:concat[blocked in,out]"; }

    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (i < inputs_.size()) return inputs_[i];
        return std::nullopt;
    }
    std::optional<memory::desc> blockedOutput() const override { return output_; }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        if (!output || inputs.size() != inputs_.size() || std::find(inputs.begin(), inputs.end(), false) != inputs.end())
            throw std::logic_error("a channel-blocked Concat needs every input and its output blocked");
    }

    std::vector<Piece> inputPieces() const override {
        if (batch_ != 1) return {};
        std::vector<Piece> pieces;
        uint64_t offset = 0;
        for (size_t b : imageBytes_) {
            pieces.push_back({offset, b});
            offset += b;
        }
        return pieces;
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        std::byte* dst = out[0].mutableData();
        const int64_t parts = batch_ * int64_t(in.size());
#pragma omp parallel for schedule(static) if (batch_ * int64_t(rowBytes_) >= (1 << 18))
        for (int64_t part = 0; part < parts; ++part) {
            const size_t image = size_t(part) / in.size(), i = size_t(part) % in.size();
            size_t offset = image * rowBytes_;
            for (size_t j = 0; j < i; ++j) offset += imageBytes_[j];
            // An input the plan placed inside the output (inputPieces) is there already.
            if (in[i]->data() + image * imageBytes_[i] != dst + offset)
                std::memcpy(dst + offset, in[i]->data() + image * imageBytes_[i], imageBytes_[i]);
        }
    }

private:
    std::vector<memory::desc> inputs_;
    memory::desc output_;
    int64_t batch_;
    int threads_;
    std::vector<size_t> imageBytes_;
    size_t rowBytes_ = 0;
};

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

std::unique_ptr<PreparedKernel> prepareBlockedConcat(const NodeDescriptor& info,
                                                     const std::vector<const memory::desc*>& inputs) {
    if (info.node.opType != "Concat" || !allFloat(info) || info.inputDims.empty() || inputs.size() != info.inputDims.size())
        return nullptr;
    const auto& out = info.outputDims.at(0);
    const size_t rank = out.size();
    int64_t axis = info.attributes().getInt("axis", 0);
    if (axis < 0) axis += int64_t(rank);
    if (rank < 3 || rank > 5 || axis != 1) return nullptr;
    const int64_t block = channelBlock();
    std::vector<memory::desc> layouts;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto& dims = info.inputDims[i];
        if (!info.hasInput(i) || !inputs[i] || dims.size() != rank || dims[1] % block != 0) return nullptr;
        const memory::desc layout(toDims(dims), dt::f32, channelBlockedTag(rank));
        if (*inputs[i] != layout) return nullptr;
        layouts.push_back(layout);
    }
    if (out[0] == 0) return nullptr;
    const memory::desc output(toDims(out), dt::f32, channelBlockedTag(rank));
    return std::make_unique<BlockedConcat>(std::move(layouts), output, out[0], info.threads);
}

namespace {

/// The channel-blocked layout `src` when it is one and lays out `dims` (the node's input 0).
std::optional<ChannelBlocks> blockedInputOf(const NodeDescriptor& info, const memory::desc& src) {
    const std::optional<ChannelBlocks> b = channelBlocks(src);
    if (!b || info.inputDims.empty() || src.dims() != toDims(info.inputDims[0]) || info.outputDims.size() != 1 ||
        info.outputDims[0] != info.inputDims[0])
        return std::nullopt;
    return b;
}

} // namespace

std::unique_ptr<PreparedKernel> prepareBlockedBatchNorm(const NodeDescriptor& info, const memory::desc& src) {
    if (info.node.opType != "BatchNormalization") return nullptr;
    const std::optional<ChannelBlocks> b = blockedInputOf(info, src);
    const std::optional<ChannelAffine> affine = b ? batchNormAffine(info) : std::nullopt;
    if (!affine) return nullptr;
    return std::make_unique<BlockedBatchNorm>(src, *b, *affine, info.threads);
}

std::unique_ptr<PreparedKernel> prepareBlockedActivation(const NodeDescriptor& info, const memory::desc& src) {
    const std::optional<ChannelBlocks> b = blockedInputOf(info, src);
    if (!b || !allFloat(info)) return nullptr;
    for (size_t i = 1; i < info.inputDims.size(); ++i)  // Clip's bounds: constants, read plain
        if (info.hasInput(i) && !info.constants[i]) return nullptr;
    std::unique_ptr<PreparedKernel> plain = prepareCpuActivation(info);
    if (!plain) return nullptr;
    return std::make_unique<BlockedUnary>(src, *b, info.inputDims.size(), std::move(plain), info.threads);
}

} // namespace graphlens::onednn
