// Reference kernels of the shape family that read or write elements at positions given by index
// tensors: Gather, GatherElements, GatherND, ScatterElements (and the old Scatter), ScatterND,
// NonZero and OneHot.
#include "core/runtime/reference/shape_internal.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace graphlens::shape {
namespace {

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
    int64_t n = 1;
    for (size_t d = from; d < to && d < dims.size(); ++d) n *= dims[d];
    return n;
}

/// A copy of `t` that this kernel may write into before handing it on.
Tensor copyOf(const Tensor& t) {
    Tensor out = Tensor::allocate(t.dtype(), t.dims());
    ElementMover(t, out).copyRun(0, 0, t.numel());
    return out;
}

/// a + b or a * b; integers wrap around instead of overflowing.
template <typename T>
T combine(T a, T b, bool multiply) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const auto x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
        return static_cast<T>(multiply ? x * y : x + y);
    } else {
        return static_cast<T>(multiply ? a * b : a + b);
    }
}

/// `count` elements of updates starting at `from` to combine into the output at `to`.
struct Run {
    int64_t to, from, count;
};

/// Combines the runs of `updates` into `out` in order, with the ONNX scatter `reduction`.
Tensor applyRuns(Tensor out, const Tensor& updates, const std::vector<Run>& runs, const std::string& reduction) {
    if (updates.dtype() != out.dtype()) throw KernelError("updates must have the data's element type");
    if (reduction == "none") {
        const ElementMover mover(updates, out);
        for (const Run& r : runs) mover.copyRun(r.to, r.from, r.count);
        return out;
    }
    if (out.dtype() == DType::Float16 || out.dtype() == DType::BFloat16)
        return ref::fromFloat(applyRuns(copyOf(ref::toFloat(out)), ref::toFloat(updates), runs, reduction),
                              out.dtype());
    if (reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
        throw KernelError("the reduction '" + reduction + "' is unknown");
    ref::visitNumeric(out.dtype(), "scatter with a reduction", [&]<typename T>() {
        T* o = ref::mutableDataOf<T>(out);
        const T* u = ref::dataOf<T>(updates);
        for (const Run& r : runs)
            for (int64_t i = 0; i < r.count; ++i) {
                T& target = o[r.to + i];
                const T value = u[r.from + i];
                if (reduction == "add" || reduction == "mul") target = combine(target, value, reduction == "mul");
                else if (reduction == "max") target = std::max(target, value);
                else target = std::min(target, value);
            }
    });
    return out;
}

} // namespace

void gather(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const std::vector<int64_t> indices = ref::toInt64s(ctx.input(1));
    const int64_t axis = axisIn(ctx.attributes().getInt("axis", 0), int64_t(data.rank()));
    const int64_t dim = data.dims()[size_t(axis)];
    std::vector<int64_t> dims(data.dims().begin(), data.dims().begin() + axis);
    dims.insert(dims.end(), ctx.input(1).dims().begin(), ctx.input(1).dims().end());
    dims.insert(dims.end(), data.dims().begin() + axis + 1, data.dims().end());
    Tensor& out = ctx.allocateOutput(0, data.dtype(), dims);
    const ElementMover mover(data, out);
    std::vector<int64_t> wrapped;
    wrapped.reserve(indices.size());
    for (int64_t index : indices) wrapped.push_back(wrapIndex(index, dim, "the index"));
    if (out.numel() == 0) return;  // nothing to move, however large the dims before the axis
    const int64_t outer = product(data.dims(), 0, size_t(axis));
    const int64_t inner = product(data.dims(), size_t(axis) + 1, data.rank());
    int64_t next = 0;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t index : wrapped) {
            mover.copyRun(next, (o * dim + index) * inner, inner);
            next += inner;
        }
}

void gatherElements(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indexTensor = ctx.input(1);
    const std::vector<int64_t> indices = ref::toInt64s(indexTensor);
    const int64_t rank = int64_t(data.rank());
    const auto axis = size_t(axisIn(ctx.attributes().getInt("axis", 0), rank));
    if (int64_t(indexTensor.rank()) != rank) throw KernelError("indices must have the rank of the data");
    for (size_t d = 0; d < size_t(rank); ++d)
        if (d != axis && indexTensor.dims()[d] > data.dims()[d])
            throw KernelError("indices are larger than the data outside the axis");
    Tensor& out = ctx.allocateOutput(0, data.dtype(), indexTensor.dims());
    const ElementMover mover(data, out);
    const std::vector<int64_t> strides = ref::stridesOf(data.dims());
    forEachIndex(indexTensor.dims(), [&](const std::vector<int64_t>& position, int64_t linear) {
        int64_t source = 0;
        for (size_t d = 0; d < size_t(rank); ++d)
            source += (d == axis ? wrapIndex(indices[size_t(linear)], data.dims()[d], "the index") : position[d]) *
                      strides[d];
        mover.copy(linear, source);
    });
}

namespace {

/// For each index tuple (the last axis of `indexTensor`) the element offset it selects in `data`,
/// the first `batchDims` axes of both being shared batch axes.
std::vector<int64_t> tupleOffsets(const Tensor& data, const Tensor& indexTensor, int64_t batchDims) {
    const std::vector<int64_t> indices = ref::toInt64s(indexTensor);
    const auto& id = indexTensor.dims();
    if (id.empty()) throw KernelError("indices must have at least one dimension");
    const int64_t k = id.back();
    if (batchDims < 0 || batchDims >= int64_t(id.size()) || k < 0 || batchDims + k > int64_t(data.rank()))
        throw KernelError("the index tuples do not fit the data's rank");
    for (int64_t b = 0; b < batchDims; ++b)
        if (id[size_t(b)] != data.dims()[size_t(b)]) throw KernelError("the batch dimensions differ");
    const std::vector<int64_t> strides = ref::stridesOf(data.dims());
    const std::vector<int64_t> tupleDims(id.begin(), id.end() - 1);
    std::vector<int64_t> offsets;
    forEachIndex(tupleDims, [&](const std::vector<int64_t>& position, int64_t tuple) {
        int64_t offset = 0;
        for (int64_t b = 0; b < batchDims; ++b) offset += position[size_t(b)] * strides[size_t(b)];
        for (int64_t j = 0; j < k; ++j) {
            const auto axis = size_t(batchDims + j);
            offset += wrapIndex(indices[size_t(tuple * k + j)], data.dims()[axis], "the index") * strides[axis];
        }
        offsets.push_back(offset);
    });
    return offsets;
}

} // namespace

void gatherND(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indexTensor = ctx.input(1);
    const int64_t batchDims = ctx.attributes().getInt("batch_dims", 0);
    const std::vector<int64_t> offsets = tupleOffsets(data, indexTensor, batchDims);
    const size_t sliceStart = size_t(batchDims + indexTensor.dims().back());
    std::vector<int64_t> dims(indexTensor.dims().begin(), indexTensor.dims().end() - 1);
    dims.insert(dims.end(), data.dims().begin() + int64_t(sliceStart), data.dims().end());
    Tensor& out = ctx.allocateOutput(0, data.dtype(), dims);
    const ElementMover mover(data, out);
    const int64_t inner = product(data.dims(), sliceStart, data.rank());
    for (size_t t = 0; t < offsets.size(); ++t) mover.copyRun(int64_t(t) * inner, offsets[t], inner);
}

void scatterElements(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indexTensor = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    const std::vector<int64_t> indices = ref::toInt64s(indexTensor);
    const int64_t rank = int64_t(data.rank());
    const auto axis = size_t(axisIn(ctx.attributes().getInt("axis", 0), rank));
    if (int64_t(indexTensor.rank()) != rank || updates.dims() != indexTensor.dims())
        throw KernelError("indices and updates must have the same shape and the data's rank");
    for (size_t d = 0; d < size_t(rank); ++d)
        if (d != axis && indexTensor.dims()[d] > data.dims()[d])
            throw KernelError("indices are larger than the data outside the axis");
    const std::vector<int64_t> strides = ref::stridesOf(data.dims());
    std::vector<Run> runs;
    forEachIndex(indexTensor.dims(), [&](const std::vector<int64_t>& position, int64_t linear) {
        int64_t target = 0;
        for (size_t d = 0; d < size_t(rank); ++d)
            target += (d == axis ? wrapIndex(indices[size_t(linear)], data.dims()[d], "the index") : position[d]) *
                      strides[d];
        runs.push_back({target, linear, 1});
    });
    ctx.setOutput(0, applyRuns(copyOf(data), updates, runs, ctx.attributes().getString("reduction", "none")));
}

void scatterND(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indexTensor = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    const std::vector<int64_t> offsets = tupleOffsets(data, indexTensor, 0);
    const size_t sliceStart = size_t(indexTensor.dims().back());
    std::vector<int64_t> expected(indexTensor.dims().begin(), indexTensor.dims().end() - 1);
    expected.insert(expected.end(), data.dims().begin() + int64_t(sliceStart), data.dims().end());
    if (updates.dims() != expected)
        throw KernelError("updates have the shape " + ref::dimsText(updates.dims()) + ", expected " +
                          ref::dimsText(expected));
    const int64_t inner = product(data.dims(), sliceStart, data.rank());
    std::vector<Run> runs;
    for (size_t t = 0; t < offsets.size(); ++t) runs.push_back({offsets[t], int64_t(t) * inner, inner});
    ctx.setOutput(0, applyRuns(copyOf(data), updates, runs, ctx.attributes().getString("reduction", "none")));
}

void nonZero(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const std::vector<double> values = in.toDoubles();
    if (int64_t(values.size()) != in.numel())
        throw KernelError("NonZero does not support the element type " + std::string(dtypeName(in.dtype())));
    std::vector<int64_t> found;  // linear indices of the non-zero elements
    for (size_t i = 0; i < values.size(); ++i)
        if (values[i] != 0.0) found.push_back(int64_t(i));
    const int64_t rank = int64_t(in.rank()), count = int64_t(found.size());
    Tensor& out = ctx.allocateOutput(0, DType::Int64, {rank, count});
    int64_t* o = ref::mutableDataOf<int64_t>(out);
    for (int64_t j = 0; j < count; ++j) {
        const std::vector<int64_t> position = unravel(found[size_t(j)], in.dims());
        for (int64_t d = 0; d < rank; ++d) o[d * count + j] = position[size_t(d)];
    }
}

void oneHot(KernelContext& ctx) {
    const Tensor& indexTensor = ctx.input(0);
    const std::vector<double> indices = indexTensor.toDoubles();
    const std::vector<double> depthValues = ctx.input(1).toDoubles();
    const Tensor& values = ctx.input(2);
    if (depthValues.size() != 1 || !(depthValues[0] >= 1 && depthValues[0] < 1e15)) throw KernelError("depth must be one positive value");
    if (values.numel() != 2) throw KernelError("values must hold exactly two elements (off, on)");
    if (int64_t(indices.size()) != indexTensor.numel()) throw KernelError("indices must be numeric");
    const auto depth = int64_t(depthValues[0]);
    const int64_t rank = int64_t(indexTensor.rank()) + 1;
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", -1), rank);
    std::vector<int64_t> dims = indexTensor.dims();
    dims.insert(dims.begin() + axis, depth);
    checkOutputSize(values.dtype(), dims);
    Tensor& out = ctx.allocateOutput(0, values.dtype(), dims);
    const ElementMover mover(values, out);
    for (int64_t i = 0; i < out.numel(); ++i) mover.copy(i, 0);
    const int64_t inner = product(indexTensor.dims(), size_t(axis), indexTensor.rank());
    for (size_t p = 0; p < indices.size(); ++p) {
        if (!(std::abs(indices[p]) < 1e15)) continue;  // NaN or far out of range
        auto index = int64_t(indices[p]);
        if (index < 0) index += depth;
        if (index < 0 || index >= depth) continue;  // out of range: the row stays off
        const int64_t o = int64_t(p) / inner, i = int64_t(p) % inner;
        mover.copy((o * depth + index) * inner + i, 1);
    }
}

} // namespace graphlens::shape
