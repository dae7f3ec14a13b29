// Reference kernels of the reduction family that work along one axis: Softmax, LogSoftmax,
// Hardmax, CumSum and TopK.
#include "core/runtime/reference/reduction_internal.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

namespace graphlens::reduction {
namespace {

enum class SoftmaxMode { Softmax, LogSoftmax, Hardmax };

/// Before opset 13 these ops flatten the input to 2-D at `axis` (default 1); from 13 they work
/// along the one axis `axis` (default -1).
AxisSplit softmaxSplit(const KernelContext& ctx, const Tensor& x) {
    const int64_t rank = int64_t(x.rank());
    if (rank == 0) throw KernelError(ctx.node().opType + " needs a tensor of rank 1 or more");
    // An empty input has an empty output: no rows to walk, however many its leading dims count
    // ([2^40, 4, 0] along its last axis once took 2^42 of them).
    if (x.numel() == 0) return {0, 0, 0};
    if (ctx.opset() < 13) {
        const int64_t axis = ctx.attributes().getInt("axis", 1);
        const int64_t at = axis < 0 ? axis + rank : axis;
        if (at < 0 || at > rank)
            throw KernelError("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
        return flattenAt(x.dims(), at);
    }
    return splitAt(x.dims(), ref::normalizeAxis(ctx.attributes().getInt("axis", -1), rank));
}

/// One row (`count` values, `stride` apart) of the softmax family, written to `out`.
void softmaxRow(const double* in, double* out, int64_t count, int64_t stride, SoftmaxMode mode) {
    int64_t best = 0;
    for (int64_t k = 1; k < count; ++k)
        if (in[k * stride] > in[best * stride]) best = k;
    if (mode == SoftmaxMode::Hardmax) {
        for (int64_t k = 0; k < count; ++k) out[k * stride] = k == best ? 1.0 : 0.0;
        return;
    }
    const double max = count ? in[best * stride] : 0.0;
    double sum = 0.0;
    for (int64_t k = 0; k < count; ++k) sum += std::exp(in[k * stride] - max);
    for (int64_t k = 0; k < count; ++k) {
        const double shifted = in[k * stride] - max;
        out[k * stride] = mode == SoftmaxMode::Softmax ? std::exp(shifted) / sum : shifted - std::log(sum);
    }
}

void softmaxFamily(KernelContext& ctx, SoftmaxMode mode) {
    const Tensor& x = ctx.input(0);
    const char* op = ctx.node().opType.c_str();
    requireFloating(x.dtype(), op);
    const AxisSplit s = softmaxSplit(ctx, x);
    const std::vector<double> in = doublesOf(x, op);
    std::vector<double> out(in.size());
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
            const int64_t base = o * s.length * s.inner + i;
            softmaxRow(in.data() + base, out.data() + base, s.length, s.inner, mode);
        }
    ctx.setOutput(0, tensorOf(x.dtype(), x.dims(), out));
}

/// A single integer from a one-element tensor (CumSum's axis, TopK's k).
int64_t singleInt(const Tensor& t, const char* what) {
    const std::vector<int64_t> values = ref::toInt64s(t);
    if (values.size() != 1) throw KernelError(std::string(what) + " must hold exactly one element");
    return values[0];
}

bool isHalf(DType type) { return type == DType::Float16 || type == DType::BFloat16; }

/// Orders values ascending with NaN above everything (a strict weak order even with NaN).
template <typename T>
bool lessWithNan(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a)) return false;
        if (std::isnan(b)) return true;
    }
    return a < b;
}

} // namespace

void softmax(KernelContext& ctx) { softmaxFamily(ctx, SoftmaxMode::Softmax); }
void logSoftmax(KernelContext& ctx) { softmaxFamily(ctx, SoftmaxMode::LogSoftmax); }
void hardmax(KernelContext& ctx) { softmaxFamily(ctx, SoftmaxMode::Hardmax); }

void cumSum(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) throw KernelError("CumSum needs a tensor of rank 1 or more");
    const int64_t axis = ref::normalizeAxis(singleInt(ctx.input(1), "the CumSum axis"), int64_t(x.rank()));
    const bool exclusive = ctx.attributes().getInt("exclusive", 0) != 0;
    const bool reverse = ctx.attributes().getInt("reverse", 0) != 0;
    if (x.dtype() == DType::Bool) throw KernelError("CumSum does not support the element type bool");
    const AxisSplit s = x.numel() == 0 ? AxisSplit{0, 0, 0} : splitAt(x.dims(), axis);  // empty in, empty out
    const Tensor in = isHalf(x.dtype()) ? ref::toFloat(x) : x;
    Tensor out = Tensor::allocate(in.dtype(), in.dims());
    ref::visitNumeric(in.dtype(), "CumSum", [&]<typename T>() {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
        const T* p = ref::dataOf<T>(in);
        T* y = ref::mutableDataOf<T>(out);
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t i = 0; i < s.inner; ++i) {
                Acc running = 0;
                for (int64_t step = 0; step < s.length; ++step) {
                    const int64_t k = reverse ? s.length - 1 - step : step;
                    const int64_t at = (o * s.length + k) * s.inner + i;
                    if (exclusive) y[at] = static_cast<T>(running);
                    running = static_cast<Acc>(running + p[at]);
                    if (!exclusive) y[at] = static_cast<T>(running);
                }
            }
    });
    ctx.setOutput(0, isHalf(x.dtype()) ? ref::fromFloat(out, x.dtype()) : out);
}

void topK(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) throw KernelError("TopK needs a tensor of rank 1 or more");
    const Attributes& a = ctx.attributes();
    const int64_t k = ctx.opset() >= 10 ? singleInt(ctx.input(1), "TopK's k") : a.getInt("k", -1);
    const int64_t axis = ref::normalizeAxis(a.getInt("axis", -1), int64_t(x.rank()));
    const bool largest = a.getInt("largest", 1) != 0;
    const int64_t length = x.dims()[size_t(axis)];
    if (k < 0 || k > length)
        throw KernelError("k = " + std::to_string(k) + " is out of range for an axis of length " + std::to_string(length));
    std::vector<int64_t> outDims = x.dims();
    outDims[size_t(axis)] = k;
    const Tensor in = isHalf(x.dtype()) ? ref::toFloat(x) : x;
    Tensor values = Tensor::allocate(in.dtype(), outDims);
    Tensor& indices = ctx.allocateOutput(1, DType::Int64, outDims);
    // Nothing to pick (k = 0, or an empty input): no rows to sort, however many the dims count.
    const AxisSplit s = values.numel() == 0 ? AxisSplit{0, length, 0} : splitAt(x.dims(), axis);
    ref::visitNumeric(in.dtype(), "TopK", [&]<typename T>() {
        const T* p = ref::dataOf<T>(in);
        T* v = ref::mutableDataOf<T>(values);
        int64_t* idx = ref::mutableDataOf<int64_t>(indices);
        std::vector<int64_t> order(size_t(s.length));
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t i = 0; i < s.inner; ++i) {
                const T* row = p + o * s.length * s.inner + i;
                std::iota(order.begin(), order.end(), int64_t(0));
                std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) {  // ties: lower index first
                    return largest ? lessWithNan(row[r * s.inner], row[l * s.inner])
                                   : lessWithNan(row[l * s.inner], row[r * s.inner]);
                });
                for (int64_t j = 0; j < k; ++j) {
                    const int64_t at = (o * k + j) * s.inner + i;
                    v[at] = row[order[size_t(j)] * s.inner];
                    idx[at] = order[size_t(j)];
                }
            }
    });
    ctx.setOutput(0, isHalf(x.dtype()) ? ref::fromFloat(values, x.dtype()) : values);
}

} // namespace graphlens::reduction
