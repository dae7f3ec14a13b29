// Reference kernels: the reduction family (see families.h). This file holds the Reduce* ops,
// ArgMax/ArgMin, the family's shared helpers and the registration of every op of the family.
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/reduction_internal.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace graphlens {
namespace reduction {

namespace {

/// a * b for the dims of `dims`; KernelError when it overflows (fuzzing: partial products of an
/// empty tensor with a dim of 2^63 - 1 beside a dim of 2).
int64_t productOf(int64_t a, int64_t b, const std::vector<int64_t>& dims) {
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) throw KernelError("the shape " + ref::dimsText(dims) + " is too large");
    return product;
}

} // namespace

AxisSplit splitAt(const std::vector<int64_t>& dims, int64_t axis) {
    AxisSplit s;
    for (int64_t i = 0; i < int64_t(dims.size()); ++i) {
        if (i < axis) s.outer = productOf(s.outer, dims[size_t(i)], dims);
        else if (i == axis) s.length = dims[size_t(i)];
        else s.inner = productOf(s.inner, dims[size_t(i)], dims);
    }
    // Nothing lies after the axis, so no loop over the dims before it has anything to do: an
    // input of [2^63 - 1, 2, 0] must not cost 2^63 empty iterations.
    if (s.inner == 0) s.outer = 0;
    return s;
}

AxisSplit flattenAt(const std::vector<int64_t>& dims, int64_t axis) {
    AxisSplit s;
    for (int64_t i = 0; i < int64_t(dims.size()); ++i) {
        int64_t& part = i < axis ? s.outer : s.length;
        part = productOf(part, dims[size_t(i)], dims);
    }
    return s;
}

std::vector<double> doublesOf(const Tensor& t, const char* op) {
    if (t.dtype() == DType::String || t.dtype() == DType::Undefined || dtypeBits(t.dtype()) < 8)
        throw KernelError(std::string(op) + " does not support the element type " +
                          std::string(dtypeName(t.dtype())));
    std::vector<double> values = t.toDoubles();
    if (int64_t(values.size()) != std::max<int64_t>(t.numel(), 0))
        throw KernelError(std::string(op) + " cannot read a tensor of " + std::string(dtypeName(t.dtype())));
    return values;
}

namespace {

/// `v` converted to T: floats round, integers truncate (NaN becomes 0, out-of-range values clamp).
template <typename T>
T castTo(double v) {
    if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        return v != 0.0;
    } else {
        if (std::isnan(v)) return T(0);
        if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    }
}

} // namespace

Tensor tensorOf(DType type, std::vector<int64_t> dims, const std::vector<double>& values) {
    if (type == DType::Float16 || type == DType::BFloat16)
        return ref::fromFloat(tensorOf(DType::Float, std::move(dims), values), type);
    Tensor out = Tensor::allocate(type, std::move(dims));
    ref::visitNumeric(type, "this op", [&]<typename T>() {
        T* p = ref::mutableDataOf<T>(out);
        for (size_t i = 0; i < values.size(); ++i) p[i] = castTo<T>(values[i]);
    });
    return out;
}

void requireFloating(DType type, const char* op) {
    if (type != DType::Float && type != DType::Double && type != DType::Float16 && type != DType::BFloat16)
        throw KernelError(std::string(op) + " does not support the element type " + std::string(dtypeName(type)));
}

namespace {

enum class ReduceKind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

/// Where each input element goes: `target[i]` is the output element input element i folds into.
struct ReducePlan {
    std::vector<int64_t> outDims;
    std::vector<int64_t> target;
    int64_t outCount = 0;
    int64_t groupSize = 1;  ///< input elements per output element
};

/// The axes to reduce: the `axes` input (ReduceSum from opset 13, the others from 18) or attribute.
std::vector<int64_t> requestedAxes(const KernelContext& ctx) {
    if (ctx.hasInput(1)) return ref::toInt64s(ctx.input(1));
    return ctx.attributes().getInts("axes");
}

} // namespace

std::vector<bool> reducedMask(const std::vector<int64_t>& axes, int64_t rank) {
    std::vector<bool> mask(size_t(rank), axes.empty());
    for (int64_t a : axes) {
        const int64_t n = ref::normalizeAxis(a, rank);
        if (n >= rank) throw KernelError("a scalar has no axis " + std::to_string(a) + " to reduce");
        if (mask[size_t(n)]) throw KernelError("the axis " + std::to_string(a) + " is listed twice");
        mask[size_t(n)] = true;
    }
    return mask;
}

namespace {

ReducePlan planReduction(const std::vector<int64_t>& dims, const std::vector<bool>& mask, bool keepDims) {
    ReducePlan p;
    std::vector<int64_t> kept(dims);
    for (size_t d = 0; d < dims.size(); ++d) {
        if (mask[d]) {
            kept[d] = 1;
            p.groupSize = productOf(p.groupSize, dims[d], dims);
        }
        if (!mask[d] || keepDims) p.outDims.push_back(kept[d]);
    }
    p.outCount = ref::elementCount(kept);
    const std::vector<int64_t> outStrides = ref::stridesOf(kept);
    std::vector<int64_t> step(dims.size(), 0);
    for (size_t d = 0; d < dims.size(); ++d) step[d] = mask[d] ? 0 : outStrides[d];
    const int64_t count = ref::elementCount(dims);
    p.target.resize(size_t(count));
    std::vector<int64_t> counter(dims.size(), 0);
    int64_t current = 0;
    for (int64_t n = 0; n < count; ++n) {
        p.target[size_t(n)] = current;
        for (size_t d = dims.size(); d-- > 0;) {  // odometer increment
            if (++counter[d] < dims[d]) {
                current += step[d];
                break;
            }
            current -= step[d] * (dims[d] - 1);
            counter[d] = 0;
        }
    }
    return p;
}

} // namespace

std::vector<int64_t> reductionTargets(const std::vector<int64_t>& dims, const std::vector<bool>& mask) {
    return planReduction(dims, mask, true).target;
}

namespace {

/// Sum, Prod, Max, Min, L1 and SumSquare, accumulated exactly in Acc (double or 64-bit integer).
template <typename T, typename Acc>
std::vector<Acc> foldExact(const T* in, const ReducePlan& p, ReduceKind kind) {
    Acc lowest = Acc(std::numeric_limits<T>::lowest());  // the empty set's Max, then Min
    Acc highest = Acc(std::numeric_limits<T>::max());
    if constexpr (std::is_floating_point_v<T>) {
        lowest = -std::numeric_limits<double>::infinity();
        highest = std::numeric_limits<double>::infinity();
    }
    const Acc init = kind == ReduceKind::Prod  ? Acc(1)
                     : kind == ReduceKind::Max ? lowest
                     : kind == ReduceKind::Min ? highest
                                               : Acc(0);
    std::vector<Acc> acc(size_t(p.outCount), init);
    for (size_t i = 0; i < p.target.size(); ++i) {
        const Acc v = Acc(in[i]);
        Acc& a = acc[size_t(p.target[i])];
        bool nan = false;  // NaN wins Max and Min
        if constexpr (std::is_floating_point_v<Acc>) nan = std::isnan(v);
        switch (kind) {
        case ReduceKind::Prod: a *= v; break;
        case ReduceKind::Max: if (v > a || nan) a = v; break;
        case ReduceKind::Min: if (v < a || nan) a = v; break;
        case ReduceKind::L1:
            if constexpr (std::is_signed_v<Acc>) a += v < 0 ? -v : v;
            else a += v;
            break;
        case ReduceKind::SumSquare: a += v * v; break;
        default: a += v; break;
        }
    }
    return acc;
}

/// Mean, L2, LogSum and LogSumExp, computed in double.
template <typename T>
std::vector<double> foldReal(const T* in, const ReducePlan& p, ReduceKind kind) {
    std::vector<double> sum(size_t(p.outCount), 0.0);
    std::vector<double> shift(size_t(p.outCount), 0.0);  // LogSumExp: the group's maximum
    if (kind == ReduceKind::LogSumExp) {
        shift.assign(shift.size(), -std::numeric_limits<double>::infinity());
        for (size_t i = 0; i < p.target.size(); ++i)
            shift[size_t(p.target[i])] = std::max(shift[size_t(p.target[i])], double(in[i]));
        for (double& s : shift)
            if (!std::isfinite(s)) s = 0.0;
    }
    for (size_t i = 0; i < p.target.size(); ++i) {
        const double v = double(in[i]);
        const size_t t = size_t(p.target[i]);
        sum[t] += kind == ReduceKind::L2 ? v * v : kind == ReduceKind::LogSumExp ? std::exp(v - shift[t]) : v;
    }
    for (size_t t = 0; t < sum.size(); ++t) {
        switch (kind) {
        case ReduceKind::Mean: sum[t] /= double(p.groupSize); break;
        case ReduceKind::L2: sum[t] = std::sqrt(sum[t]); break;
        case ReduceKind::LogSum: sum[t] = std::log(sum[t]); break;
        default: sum[t] = shift[t] + std::log(sum[t]); break;
        }
    }
    return sum;
}

template <typename T>
Tensor reduceTyped(const Tensor& x, const ReducePlan& p, ReduceKind kind) {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    Tensor out = Tensor::allocate(x.dtype(), p.outDims);
    T* y = ref::mutableDataOf<T>(out);
    const T* in = ref::dataOf<T>(x);
    const bool real = kind == ReduceKind::Mean || kind == ReduceKind::L2 || kind == ReduceKind::LogSum ||
                      kind == ReduceKind::LogSumExp;
    if (real) {
        const std::vector<double> r = foldReal(in, p, kind);
        for (size_t i = 0; i < r.size(); ++i) y[i] = castTo<T>(r[i]);
    } else {
        const std::vector<Acc> r = foldExact<T, Acc>(in, p, kind);
        for (size_t i = 0; i < r.size(); ++i) y[i] = static_cast<T>(r[i]);
    }
    return out;
}

template <ReduceKind Kind>
void reduce(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.node().opType;
    const std::vector<int64_t> axes = requestedAxes(ctx);
    if (axes.empty() && ctx.attributes().getInt("noop_with_empty_axes", 0) != 0) return ctx.setOutput(0, x);
    const bool keepDims = ctx.attributes().getInt("keepdims", 1) != 0;
    const ReducePlan plan = planReduction(x.dims(), reducedMask(axes, int64_t(x.rank())), keepDims);
    const bool half = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
    const Tensor in = half ? ref::toFloat(x) : x;
    if (in.dtype() == DType::Bool && Kind != ReduceKind::Max && Kind != ReduceKind::Min)
        throw KernelError(op + " does not support the element type bool");
    Tensor result;
    ref::visitNumeric(in.dtype(), op, [&]<typename T>() { result = reduceTyped<T>(in, plan, Kind); });
    ctx.setOutput(0, half ? ref::fromFloat(result, x.dtype()) : result);
}

/// ArgMax (Max = true) and ArgMin: the int64 index of the extreme value along `axis`.
template <bool Max>
void argExtreme(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.node().opType;
    if (x.rank() == 0) throw KernelError(op + " needs a tensor of rank 1 or more");
    const int64_t axis = ref::normalizeAxis(ctx.attributes().getInt("axis", 0), int64_t(x.rank()));
    const bool keepDims = ctx.attributes().getInt("keepdims", 1) != 0;
    const bool last = ctx.attributes().getInt("select_last_index", 0) != 0;
    const AxisSplit s = splitAt(x.dims(), axis);
    if (s.length == 0 && s.outer > 0 && s.inner > 0) throw KernelError(op + " cannot pick from an empty axis");
    std::vector<int64_t> outDims = x.dims();
    if (keepDims) outDims[size_t(axis)] = 1;
    else outDims.erase(outDims.begin() + axis);
    Tensor& out = ctx.allocateOutput(0, DType::Int64, outDims);
    int64_t* y = ref::mutableDataOf<int64_t>(out);
    const bool half = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
    const Tensor in = half ? ref::toFloat(x) : x;
    ref::visitNumeric(in.dtype(), op, [&]<typename T>() {
        const T* p = ref::dataOf<T>(in);
        for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t i = 0; i < s.inner; ++i) {
                const T* row = p + o * s.length * s.inner + i;
                int64_t best = 0;
                for (int64_t k = 1; k < s.length; ++k) {
                    const T v = row[k * s.inner], b = row[best * s.inner];
                    if ((Max ? v > b : v < b) || (last && v == b)) best = k;
                }
                y[o * s.inner + i] = best;
            }
    });
}

} // namespace
} // namespace reduction

void registerReductionKernels(KernelRegistry& registry) {
    using namespace reduction;
    registry.add("ReduceSum", reduce<ReduceKind::Sum>);
    registry.add("ReduceMean", reduce<ReduceKind::Mean>);
    registry.add("ReduceMax", reduce<ReduceKind::Max>);
    registry.add("ReduceMin", reduce<ReduceKind::Min>);
    registry.add("ReduceProd", reduce<ReduceKind::Prod>);
    registry.add("ReduceL1", reduce<ReduceKind::L1>);
    registry.add("ReduceL2", reduce<ReduceKind::L2>);
    registry.add("ReduceLogSum", reduce<ReduceKind::LogSum>);
    registry.add("ReduceLogSumExp", reduce<ReduceKind::LogSumExp>);
    registry.add("ReduceSumSquare", reduce<ReduceKind::SumSquare>);
    registry.add("ArgMax", argExtreme<true>);
    registry.add("ArgMin", argExtreme<false>);
    registry.add("Softmax", softmax);
    registry.add("LogSoftmax", logSoftmax);
    registry.add("Hardmax", hardmax);
    registry.add("CumSum", cumSum);
    registry.add("TopK", topK);
    registry.add("BatchNormalization", batchNormalization);
    registry.add("InstanceNormalization", instanceNormalization);
    registry.add("LayerNormalization", layerNormalization);
    registry.add("SkipLayerNormalization", skipLayerNormalization, "com.microsoft");
    registry.add("LpNormalization", lpNormalization);
    registry.add("MeanVarianceNormalization", meanVarianceNormalization);
    registry.add("LRN", lrn);
    registry.add("Einsum", einsum);
    registry.add("Det", det);
    registry.add("NegativeLogLikelihoodLoss", negativeLogLikelihoodLoss);
    registry.add("SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss);
}

} // namespace graphlens
