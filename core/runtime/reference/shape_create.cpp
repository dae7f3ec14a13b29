// Reference kernels of the shape family that make new tensors from sizes or values:
// ConstantOfShape, Range, EyeLike and Unique.
#include "core/runtime/reference/shape_internal.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <type_traits>

namespace graphlens::shape {

void constantOfShape(KernelContext& ctx) {
    const Tensor& shapeInput = ctx.input(0);
    if (shapeInput.rank() != 1) throw KernelError("the shape input must be 1-D");
    const std::vector<int64_t> dims = ref::toInt64s(shapeInput);
    for (int64_t d : dims)
        if (d < 0) throw KernelError("the shape has the negative dimension " + std::to_string(d));
    const Tensor* value = ctx.attributes().getTensor("value");
    const Tensor zero = Tensor::allocate(DType::Float, {1});
    if (!value) value = &zero;
    if (value->numel() != 1) throw KernelError("value must hold exactly one element");
    checkOutputSize(value->dtype(), dims);
    Tensor& out = ctx.allocateOutput(0, value->dtype(), dims);
    const ElementMover mover(*value, out);
    for (int64_t i = 0; i < out.numel(); ++i) mover.copy(i, 0);
}

void range(KernelContext& ctx) {
    const Tensor& startTensor = ctx.input(0);
    for (size_t i = 0; i < 3; ++i) {
        if (ctx.input(i).numel() != 1) throw KernelError("start, limit and delta must be scalars");
        if (ctx.input(i).dtype() != startTensor.dtype()) throw KernelError("start, limit and delta must have one type");
    }
    ref::visitNumeric(startTensor.dtype(), "Range", [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>) {
            throw KernelError("Range does not support bool");
        } else {
            const T start = ref::dataOf<T>(ctx.input(0))[0];
            const T limit = ref::dataOf<T>(ctx.input(1))[0];
            const T delta = ref::dataOf<T>(ctx.input(2))[0];
            if (delta == T(0)) throw KernelError("delta must not be 0");
            const double steps = std::ceil((double(limit) - double(start)) / double(delta));
            if (!(steps < 1e12)) throw KernelError("the range is too long");
            const auto count = int64_t(std::max(steps, 0.0));
            Tensor& out = ctx.allocateOutput(0, startTensor.dtype(), {count});
            T* o = ref::mutableDataOf<T>(out);
            T value = start;  // integers: exact steps; floats: start + i * delta like numpy
            for (int64_t i = 0; i < count; ++i) {
                if constexpr (std::is_integral_v<T>) {
                    o[i] = value;
                    if (i + 1 < count) value = static_cast<T>(value + delta);
                } else {
                    o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
                }
            }
        }
    });
}

void eyeLike(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 2) throw KernelError("the input must be 2-D");
    DType dtype = in.dtype();
    if (ctx.attributes().has("dtype")) {
        const auto chosen = dtypeFromOnnx(int32_t(ctx.attributes().getInt("dtype", 0)));
        if (!chosen) throw KernelError("the dtype attribute names no known type");
        dtype = *chosen;
    }
    const int64_t k = ctx.attributes().getInt("k", 0);
    const Tensor one = filled(dtype, {1}, 1.0);
    Tensor& out = ctx.allocateOutput(0, dtype, in.dims());
    const ElementMover mover(one, out);
    const int64_t rows = in.dims()[0], cols = in.dims()[1];
    for (int64_t r = 0; r < rows; ++r)
        if (k >= -r && k < cols - r) mover.copy(r * cols + r + k, 0);
}

namespace {

/// Strict ordering with every NaN equal and after all numbers.
template <typename T>
bool lessValue(const T& a, const T& b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(b)) return !std::isnan(a);
        if (std::isnan(a)) return false;
    }
    return a < b;
}

template <typename T>
struct LessItem {
    bool operator()(const std::vector<T>& a, const std::vector<T>& b) const {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), lessValue<T>);
    }
};

/// Unique items: `first` holds each unique item's first occurrence in output order.
struct UniqueItems {
    std::vector<int64_t> first, inverse, counts;
};

template <typename T>
UniqueItems findUnique(const std::vector<std::vector<T>>& items, bool sorted) {
    std::map<std::vector<T>, int64_t, LessItem<T>> seen;  // item -> order of first occurrence
    UniqueItems u;
    for (size_t i = 0; i < items.size(); ++i)
        if (seen.emplace(items[i], int64_t(u.first.size())).second) u.first.push_back(int64_t(i));
    std::vector<int64_t> slot(u.first.size());  // order of first occurrence -> output position
    std::iota(slot.begin(), slot.end(), 0);
    if (sorted) {
        int64_t position = 0;
        std::vector<int64_t> firstSorted;
        for (const auto& [item, order] : seen) {
            slot[size_t(order)] = position++;
            firstSorted.push_back(u.first[size_t(order)]);
        }
        u.first = firstSorted;
    }
    u.counts.assign(u.first.size(), 0);
    for (const auto& item : items) {
        const int64_t at = slot[size_t(seen.at(item))];
        u.inverse.push_back(at);
        ++u.counts[size_t(at)];
    }
    return u;
}

/// The elements of item k (index k along the axis) of `values`, for `outer` x `dim` x `inner`.
template <typename T>
std::vector<std::vector<T>> itemsOf(const T* values, int64_t outer, int64_t dim, int64_t inner) {
    std::vector<std::vector<T>> items(static_cast<size_t>(dim));
    for (int64_t k = 0; k < dim; ++k)
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) items[size_t(k)].push_back(values[(o * dim + k) * inner + i]);
    return items;
}

UniqueItems uniqueOf(const Tensor& in, int64_t outer, int64_t dim, int64_t inner, bool sorted) {
    if (in.dtype() == DType::String) return findUnique(itemsOf(in.strings().data(), outer, dim, inner), sorted);
    if (in.dtype() == DType::Float16 || in.dtype() == DType::BFloat16)
        return uniqueOf(ref::toFloat(in), outer, dim, inner, sorted);
    UniqueItems u;
    ref::visitNumeric(in.dtype(), "Unique", [&]<typename T>() {
        u = findUnique(itemsOf(ref::dataOf<T>(in), outer, dim, inner), sorted);
    });
    return u;
}

} // namespace

void unique(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const bool byAxis = ctx.attributes().has("axis");
    const Tensor source = byAxis ? in : withDims(in, {in.numel()});
    const int64_t axis = byAxis ? axisIn(ctx.attributes().getInt("axis", 0), int64_t(in.rank())) : 0;
    const auto& d = source.dims();
    int64_t outer = 0, inner = 0;  // for an empty input: every item is empty, no rows to walk
    if (source.numel() > 0) {
        outer = inner = 1;
        for (int64_t i = 0; i < int64_t(d.size()); ++i) {
            if (i < axis) outer *= d[size_t(i)];
            if (i > axis) inner *= d[size_t(i)];
        }
    }
    const int64_t dim = d[size_t(axis)];
    const UniqueItems u = uniqueOf(source, outer, dim, inner, ctx.attributes().getInt("sorted", 1) != 0);
    std::vector<int64_t> dims = d;
    dims[size_t(axis)] = int64_t(u.first.size());
    Tensor& y = ctx.allocateOutput(0, in.dtype(), dims);
    const ElementMover mover(source, y);
    const int64_t count = int64_t(u.first.size());
    for (int64_t j = 0; j < count; ++j)
        for (int64_t o = 0; o < outer; ++o)
            mover.copyRun((o * count + j) * inner, (o * dim + u.first[size_t(j)]) * inner, inner);
    const std::vector<int64_t>* extra[] = {&u.first, &u.inverse, &u.counts};
    for (size_t k = 1; k < 4 && k < ctx.outputCount(); ++k)
        ctx.setOutput(k, Tensor::int64s({int64_t(extra[k - 1]->size())}, *extra[k - 1]));
}

} // namespace graphlens::shape
