// Reference kernels for pooling: MaxPool (with Indices), AveragePool, LpPool, their Global forms,
// and MaxUnpool; N-d windows with the same geometry as Conv.
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace graphlens::nn {
namespace {

enum class PoolKind { Max, Average, Lp };

struct PoolSettings {
    PoolKind kind = PoolKind::Max;
    bool countIncludePad = false;
    double p = 2.0;
    bool columnMajorIndices = false;
};

struct PoolResult {
    std::vector<double> values;
    std::vector<int64_t> indices;  ///< MaxPool only: flat input index of each maximum
};

/// Number of window positions inside the input plus its explicit pads.
int64_t paddedWindowCount(const WindowGeometry& g, const int64_t* out) {
    int64_t count = 1;
    for (size_t d = 0; d < g.inSizes.size(); ++d) {
        const auto [first, last] = tapsWithin(out[d] * g.strides[d] - g.padsBegin[d], g.dilations[d], g.kernel[d],
                                              -g.padsBegin[d], g.inSizes[d] + g.padsEnd[d]);
        count *= last - first;
    }
    return count;
}

/// The flat index of spatial offset `offset` when the spatial axes are stored column-major.
int64_t columnMajorOffset(const std::vector<int64_t>& sizes, int64_t offset) {
    int64_t result = 0, stride = 1;
    const auto rowStrides = ref::stridesOf(sizes);
    for (size_t d = 0; d < sizes.size(); ++d) {
        result += (offset / rowStrides[d]) * stride;
        offset %= rowStrides[d];
        stride *= sizes[d];
    }
    return result;
}

double reduceWindow(const PoolSettings& s, const double* plane, const std::vector<Tap>& taps, int64_t padded,
                    int64_t& argmax) {
    if (s.kind == PoolKind::Max) {
        double best = -std::numeric_limits<double>::infinity();
        for (const Tap& t : taps)
            if (plane[t.inputOffset] > best || argmax < 0) {
                best = plane[t.inputOffset];
                argmax = t.inputOffset;
            }
        return best;
    }
    double sum = 0.0;
    for (const Tap& t : taps)
        sum += s.kind == PoolKind::Lp ? std::pow(std::abs(plane[t.inputOffset]), s.p) : plane[t.inputOffset];
    if (s.kind == PoolKind::Lp) return std::pow(sum, 1.0 / s.p);
    const int64_t count = s.countIncludePad ? padded : int64_t(taps.size());
    return count > 0 ? sum / double(count) : 0.0;
}

PoolResult pool(const WindowGeometry& g, int64_t planes, const std::vector<double>& x, const PoolSettings& s) {
    const size_t rank = g.inSizes.size();
    const int64_t inPlane = ref::elementCount(g.inSizes), outPlane = ref::elementCount(g.outSizes);
    if (planes == 0 || outPlane == 0) return {};  // nothing to pool, however wide the planes would be
    const auto outPositions = allPositions(g.outSizes);
    const auto inStrides = ref::stridesOf(g.inSizes);
    PoolResult r{std::vector<double>(size_t(planes * outPlane)), std::vector<int64_t>(size_t(planes * outPlane))};
    std::vector<Tap> taps;
    for (int64_t o = 0; o < outPlane; ++o) {
        const int64_t* position = outPositions.data() + size_t(o) * rank;
        tapsAt(g, position, inStrides, taps);
        const int64_t padded = paddedWindowCount(g, position);
        for (int64_t plane = 0; plane < planes; ++plane) {
            int64_t argmax = -1;
            r.values[size_t(plane * outPlane + o)] = reduceWindow(s, x.data() + plane * inPlane, taps, padded, argmax);
            if (argmax >= 0 && s.columnMajorIndices) argmax = columnMajorOffset(g.inSizes, argmax);
            r.indices[size_t(plane * outPlane + o)] = plane * inPlane + std::max<int64_t>(argmax, 0);
        }
    }
    return r;
}

std::vector<int64_t> pooledDims(const std::vector<int64_t>& x, const std::vector<int64_t>& spatial) {
    std::vector<int64_t> dims{x[0], x[1]};
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    return dims;
}

void checkPoolInput(const Tensor& x) {
    if (x.rank() < 3) throw KernelError("the pooling input must have rank 3 or more, got " + ref::dimsText(x.dims()));
}

/// Pools with a kernel_shape window; writes output 0 (and Indices for MaxPool when asked).
void windowPool(KernelContext& ctx, PoolSettings settings) {
    const Tensor& x = ctx.input(0);
    checkPoolInput(x);
    const Attributes& a = ctx.attributes();
    const std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
    if (!a.has("kernel_shape")) throw KernelError("kernel_shape is required");
    const WindowGeometry g = windowGeometry(a, spatial, a.getInts("kernel_shape"), a.getInt("ceil_mode", 0) != 0);
    settings.columnMajorIndices = a.getInt("storage_order", 0) != 0;
    ref::checkWorkingSet("the output", pooledDims(x.dims(), g.outSizes), sizeof(double) + sizeof(int64_t));
    const PoolResult r = pool(g, x.dims()[0] * x.dims()[1], doublesOf(x), settings);
    const std::vector<int64_t> dims = pooledDims(x.dims(), g.outSizes);
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), dims, r.values));
    if (settings.kind == PoolKind::Max && ctx.outputCount() > 1) ctx.setOutput(1, Tensor::int64s(dims, r.indices));
}

/// Pools each whole spatial plane into one value.
void globalPool(KernelContext& ctx, PoolSettings settings) {
    const Tensor& x = ctx.input(0);
    checkPoolInput(x);
    const std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
    WindowGeometry g{spatial, spatial, std::vector<int64_t>(spatial.size(), 1),
                     std::vector<int64_t>(spatial.size(), 1), std::vector<int64_t>(spatial.size(), 0),
                     std::vector<int64_t>(spatial.size(), 0), std::vector<int64_t>(spatial.size(), 1)};
    const PoolResult r = pool(g, x.dims()[0] * x.dims()[1], doublesOf(x), settings);
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), pooledDims(x.dims(), g.outSizes), r.values));
}

/// A flat index into a tensor of `from` dims moved to the same coordinates in a tensor of `to`
/// dims (MaxUnpool's output_shape pads at the end); -1 when it fits in neither.
int64_t relocatedIndex(int64_t index, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
    if (index < 0 || index >= ref::elementCount(from)) return -1;
    int64_t result = 0;
    const auto fromStrides = ref::stridesOf(from), toStrides = ref::stridesOf(to);
    for (size_t d = 0; d < from.size(); ++d) {
        const int64_t coordinate = index / fromStrides[d];
        index %= fromStrides[d];
        if (coordinate >= to[d]) return -1;
        result += coordinate * toStrides[d];
    }
    return result;
}

} // namespace

void maxPool(KernelContext& ctx) { windowPool(ctx, {PoolKind::Max}); }

void averagePool(KernelContext& ctx) {
    windowPool(ctx, {PoolKind::Average, ctx.attributes().getInt("count_include_pad", 0) != 0});
}

void lpPool(KernelContext& ctx) {
    windowPool(ctx, {PoolKind::Lp, false, double(ctx.attributes().getInt("p", 2))});
}

void globalAveragePool(KernelContext& ctx) { globalPool(ctx, {PoolKind::Average}); }
void globalMaxPool(KernelContext& ctx) { globalPool(ctx, {PoolKind::Max}); }
void globalLpPool(KernelContext& ctx) {
    globalPool(ctx, {PoolKind::Lp, false, double(ctx.attributes().getInt("p", 2))});
}

void maxUnpool(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    checkPoolInput(x);
    const Attributes& a = ctx.attributes();
    const std::vector<int64_t> spatial(x.dims().begin() + 2, x.dims().end());
    const size_t rank = spatial.size();
    const std::vector<int64_t> kernel = a.getInts("kernel_shape");
    if (kernel.size() != rank) throw KernelError("kernel_shape must have one value per spatial axis");
    const auto strides = attributeInts(a, "strides", rank, 1);
    const auto pads = attributeInts(a, "pads", 2 * rank, 0);
    std::vector<int64_t> pooledFrom{x.dims()[0], x.dims()[1]};  // the shape the indices refer to
    for (size_t i = 0; i < rank; ++i)
        pooledFrom.push_back((spatial[i] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + rank]);
    const std::vector<int64_t> dims = ctx.hasInput(2) ? ref::toInt64s(ctx.input(2)) : pooledFrom;
    const std::vector<int64_t> indices = ref::toInt64s(ctx.input(1));
    if (ctx.input(1).dims() != x.dims()) throw KernelError("the indices must have the shape of the input");
    if (dims.size() != x.rank()) throw KernelError("output_shape must have the rank of the input");
    const std::vector<double> values = doublesOf(x);
    std::vector<double> out(size_t(ref::elementCount(dims)), 0.0);
    for (size_t i = 0; i < values.size(); ++i) {
        const int64_t at = relocatedIndex(indices[i], pooledFrom, dims);
        if (at < 0) throw KernelError("the index " + std::to_string(indices[i]) + " is outside the output");
        out[size_t(at)] = values[i];
    }
    ctx.setOutput(0, tensorOfDoubles(x.dtype(), dims, out));
}

} // namespace graphlens::nn
