// Reference kernels of the shape family that rearrange elements by position: Transpose, Expand,
// Tile, DepthToSpace, SpaceToDepth and Trilu.
#include "core/runtime/reference/shape_internal.h"

#include <algorithm>

namespace graphlens::shape {

namespace {

/// out (cols x rows) = in (rows x cols) transposed, in 32 x 32 tiles so both sides stay in cache
/// (weights of exported Linear layers are transposed this way when a model is folded).
void transposeMatrix(const float* in, float* out, int64_t rows, int64_t cols) {
    constexpr int64_t tile = 32;
    for (int64_t r0 = 0; r0 < rows; r0 += tile)
        for (int64_t c0 = 0; c0 < cols; c0 += tile)
            for (int64_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (int64_t c = c0; c < std::min(cols, c0 + tile); ++c) out[c * rows + r] = in[r * cols + c];
}

} // namespace

Tensor transposed(const Tensor& in, const std::vector<int64_t>& perm) {
    const size_t rank = in.rank();
    if (perm.size() != rank) throw KernelError("the permutation does not have one entry per axis");
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> outDims(rank);
    std::vector<int64_t> step(rank);  // input stride along each output axis
    const std::vector<int64_t> inStrides = ref::stridesOf(in.dims());
    for (size_t i = 0; i < rank; ++i) {
        const int64_t axis = ref::normalizeAxis(perm[i], int64_t(rank), "permutation axis");
        if (seen[size_t(axis)]) throw KernelError("the permutation repeats the axis " + std::to_string(perm[i]));
        seen[size_t(axis)] = true;
        outDims[i] = in.dims()[size_t(axis)];
        step[i] = inStrides[size_t(axis)];
    }
    Tensor out = Tensor::allocate(in.dtype(), outDims);
    if (rank == 2 && perm[0] == 1 && in.dtype() != DType::String && dtypeBits(in.dtype()) == 32) {
        transposeMatrix(in.span<float>().data(), out.mutableSpan<float>().data(), in.dims()[0], in.dims()[1]);
        return out;
    }
    const ElementMover mover(in, out);
    forEachIndex(outDims, [&](const std::vector<int64_t>& position, int64_t linear) {
        int64_t source = 0;
        for (size_t i = 0; i < rank; ++i) source += position[i] * step[i];
        mover.copy(linear, source);
    });
    return out;
}

void transpose(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    std::vector<int64_t> perm = ctx.attributes().getInts("perm");
    if (!ctx.attributes().has("perm"))
        for (size_t i = in.rank(); i-- > 0;) perm.push_back(int64_t(i));
    ctx.setOutput(0, transposed(in, perm));
}

namespace {

/// out = `in` (seen with `inDims`, of out's rank) repeated repeats[d] times along each axis d, the
/// copy Tile makes and Expand too (an axis of 1 repeated to the output's size). Each input row is
/// copied once; then, from the innermost axis out, each block already written is doubled in
/// place until it holds its repeats: whole-run copies, never a walk over single elements (a Tile
/// of a [1, 1] input to 10^8 elements was an index walk of seconds).
void replicate(const Tensor& in, const std::vector<int64_t>& inDims, const std::vector<int64_t>& repeats, Tensor& out) {
    if (out.numel() == 0) return;
    const size_t rank = inDims.size();
    if (rank == 0) return ElementMover(in, out).copy(0, 0);
    const std::vector<int64_t> outStrides = ref::stridesOf(out.dims());
    // bases[k]: where each input position over axes [0, k) starts in the output.
    std::vector<std::vector<int64_t>> bases{{0}};
    for (size_t d = 0; d + 1 < rank; ++d) {
        std::vector<int64_t> next;
        next.reserve(bases[d].size() * size_t(inDims[d]));
        for (const int64_t base : bases[d])
            for (int64_t i = 0; i < inDims[d]; ++i) next.push_back(base + i * outStrides[d]);
        bases.push_back(std::move(next));
    }
    const ElementMover fromInput(in, out), withinOutput(out, out);
    // Grows the block of `length` elements at `base` to `times` copies of itself, doubling.
    const auto grow = [&](int64_t base, int64_t length, int64_t times) {
        const int64_t total = length * times;
        for (int64_t filled = length; filled < total;) {
            const int64_t count = std::min(filled, total - filled);
            withinOutput.copyRun(base + filled, base, count);
            filled += count;
        }
    };
    const int64_t row = inDims[rank - 1];
    int64_t source = 0;
    for (const int64_t base : bases[rank - 1]) {
        fromInput.copyRun(base, source, row);
        grow(base, row, repeats[rank - 1]);
        source += row;
    }
    for (size_t d = rank - 1; d-- > 0;)
        for (const int64_t base : bases[d]) grow(base, inDims[d] * outStrides[d], repeats[d]);
}

} // namespace

void expand(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    if (ctx.input(1).rank() != 1) throw KernelError("the shape input must be 1-D");
    const std::vector<int64_t> dims = ref::broadcastDims(in.dims(), ref::toInt64s(ctx.input(1)));
    checkOutputSize(in.dtype(), dims);
    Tensor& out = ctx.allocateOutput(0, in.dtype(), dims);
    std::vector<int64_t> inDims(dims.size() - in.rank(), 1);  // the input's dims aligned to the output's
    inDims.insert(inDims.end(), in.dims().begin(), in.dims().end());
    std::vector<int64_t> repeats(dims.size(), 1);
    for (size_t d = 0; d < dims.size(); ++d)
        if (inDims[d] != dims[d]) repeats[d] = dims[d];  // broadcast from 1
    replicate(in, inDims, repeats, out);
}

void tile(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const std::vector<int64_t> repeats = ref::toInt64s(ctx.input(1));
    if (repeats.size() != in.rank()) throw KernelError("repeats must have one entry per input axis");
    std::vector<int64_t> dims = in.dims();
    for (size_t d = 0; d < dims.size(); ++d) {
        if (repeats[d] < 0) throw KernelError("repeats must not be negative");
        dims[d] = checkedMul(dims[d], repeats[d]);
    }
    checkOutputSize(in.dtype(), dims);
    Tensor& out = ctx.allocateOutput(0, in.dtype(), dims);
    replicate(in, in.dims(), repeats, out);
}

namespace {

/// The blocksize attribute, and the input checked to be 4-D.
int64_t blockSizeOf(KernelContext& ctx) {
    if (ctx.input(0).rank() != 4) throw KernelError("the input must be 4-D (N, C, H, W)");
    const int64_t block = ctx.attributes().getInt("blocksize", 0);
    if (block <= 0 || block > (int64_t(1) << 20)) throw KernelError("blocksize must be positive and sensible");
    return block;
}

} // namespace

void depthToSpace(KernelContext& ctx) {
    const int64_t b = blockSizeOf(ctx);
    const Tensor& in = ctx.input(0);
    const auto& d = in.dims();
    const int64_t n = d[0], c = d[1], h = d[2], w = d[3];
    if (c % (b * b) != 0) throw KernelError("the channels are not divisible by blocksize squared");
    const bool crd = ctx.attributes().getString("mode", "DCR") == "CRD";
    const Tensor blocks = crd ? withDims(in, {n, c / (b * b), b, b, h, w}) : withDims(in, {n, b, b, c / (b * b), h, w});
    const std::vector<int64_t> perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3}
                                          : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    ctx.setOutput(0, withDims(transposed(blocks, perm), {n, c / (b * b), checkedMul(h, b), checkedMul(w, b)}));
}

void spaceToDepth(KernelContext& ctx) {
    const int64_t b = blockSizeOf(ctx);
    const Tensor& in = ctx.input(0);
    const auto& d = in.dims();
    const int64_t n = d[0], c = d[1], h = d[2], w = d[3];
    if (h % b != 0 || w % b != 0) throw KernelError("the height and width must be divisible by blocksize");
    const Tensor blocks = withDims(in, {n, c, h / b, b, w / b, b});
    ctx.setOutput(0, withDims(transposed(blocks, {0, 3, 5, 1, 2, 4}), {n, checkedMul(c, b * b), h / b, w / b}));
}

void trilu(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    if (in.rank() < 2) throw KernelError("the input must have at least 2 dimensions");
    int64_t k = 0;
    if (ctx.hasInput(1)) {
        const auto values = ref::toInt64s(ctx.input(1));
        if (values.size() != 1) throw KernelError("k must hold exactly one value");
        k = values[0];
    }
    const bool upper = ctx.attributes().getInt("upper", 1) != 0;
    Tensor& out = ctx.allocateOutput(0, in.dtype(), in.dims());
    const ElementMover mover(in, out);
    const size_t rank = in.rank();
    forEachIndex(in.dims(), [&](const std::vector<int64_t>& position, int64_t linear) {
        const int64_t offset = position[rank - 1] - position[rank - 2];  // column - row
        if (upper ? offset >= k : offset <= k) mover.copy(linear, linear);
    });
}

} // namespace graphlens::shape
