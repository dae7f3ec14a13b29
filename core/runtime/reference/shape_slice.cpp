// Reference kernels of the shape family that cut tensors apart or join them along axes: Concat,
// Split, Slice, Pad, Compress and ReverseSequence.
#include "core/runtime/reference/shape_internal.h"

#include <algorithm>

namespace graphlens::shape {
namespace {

/// Element counts around `axis`: outer (before it) and inner (after it).
struct AxisSplit {
    int64_t outer = 1;
    int64_t inner = 1;
};

/// Both 0 for a tensor of no elements: no row has anything to move, and a [2^62, 2, 0] tensor
/// must not cost 2^62 empty rows.
AxisSplit aroundAxis(const std::vector<int64_t>& dims, int64_t axis) {
    AxisSplit s;
    if (checkedElementCount(dims).value_or(0) == 0) return {0, 0};
    for (int64_t d = 0; d < int64_t(dims.size()); ++d) {
        if (d < axis) s.outer *= dims[size_t(d)];
        if (d > axis) s.inner *= dims[size_t(d)];
    }
    return s;
}

} // namespace

void concat(KernelContext& ctx) {
    const Tensor& first = ctx.input(0);
    const int64_t rank = int64_t(first.rank());
    const int64_t axis = axisIn(ctx.attributes().getInt("axis", 0), rank);
    std::vector<int64_t> dims = first.dims();
    dims[size_t(axis)] = 0;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        const Tensor& t = ctx.input(i);
        if (t.dtype() != first.dtype()) throw KernelError("the inputs have different element types");
        bool matches = t.rank() == first.rank();
        for (int64_t d = 0; matches && d < rank; ++d)
            matches = d == axis || t.dims()[size_t(d)] == first.dims()[size_t(d)];
        if (!matches)
            throw KernelError("the input shapes " + ref::dimsText(first.dims()) + " and " + ref::dimsText(t.dims()) +
                              " differ outside the axis");
        dims[size_t(axis)] += t.dims()[size_t(axis)];
    }
    std::vector<const Tensor*> parts;
    for (size_t i = 0; i < ctx.inputCount(); ++i) parts.push_back(&ctx.input(i));
    concatenateInto(parts, axis, ctx.allocateOutput(0, first.dtype(), dims));
}

void concatenateInto(const std::vector<const Tensor*>& parts, int64_t axis, Tensor& out) {
    const std::vector<int64_t>& dims = out.dims();
    const AxisSplit s = aroundAxis(dims, axis);
    int64_t offset = 0;  // along the axis, in elements of one outer row
    for (const Tensor* t : parts) {
        const ElementMover mover(*t, out);
        const int64_t run = t->dims()[size_t(axis)] * s.inner;
        for (int64_t o = 0; o < s.outer; ++o)
            mover.copyRun(o * dims[size_t(axis)] * s.inner + offset, o * run, run);
        offset += run;
    }
}

namespace {

std::vector<int64_t> splitSizes(KernelContext& ctx, int64_t dim) {
    std::vector<int64_t> sizes = ctx.opset() < 13 ? ctx.attributes().getInts("split") : intsInput(ctx, 1);
    const int64_t parts = int64_t(ctx.outputCount());
    if (sizes.empty()) {
        if (parts == 0) throw KernelError("Split has no outputs");
        const int64_t chunk = (dim + parts - 1) / parts;  // the last part may be smaller (opset 18)
        sizes.assign(size_t(parts), chunk);
        sizes.back() = dim - chunk * (parts - 1);
    }
    if (int64_t(sizes.size()) != parts) throw KernelError("split must have one entry per output");
    int64_t total = 0;
    for (int64_t s : sizes) {
        if (s < 0 || s > dim) throw KernelError("the axis of size " + std::to_string(dim) + " cannot be split into " +
                                     std::to_string(parts) + " parts");
        total += s;
    }
    if (total != dim) throw KernelError("the split sizes do not add up to the axis size " + std::to_string(dim));
    return sizes;
}

} // namespace

void split(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const int64_t axis = axisIn(ctx.attributes().getInt("axis", 0), int64_t(in.rank()));
    const int64_t dim = in.dims()[size_t(axis)];
    splitInto(in, axis, splitSizes(ctx, dim),
              [&](size_t k, std::vector<int64_t> dims) -> Tensor& { return ctx.allocateOutput(k, in.dtype(), std::move(dims)); });
}

void splitInto(const Tensor& in, int64_t axis, const std::vector<int64_t>& sizes,
               const std::function<Tensor&(size_t, std::vector<int64_t>)>& allocate) {
    const int64_t dim = in.dims()[size_t(axis)];
    const AxisSplit s = aroundAxis(in.dims(), axis);
    int64_t offset = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
        std::vector<int64_t> dims = in.dims();
        dims[size_t(axis)] = sizes[k];
        Tensor& out = allocate(k, std::move(dims));
        const ElementMover mover(in, out);
        const int64_t run = sizes[k] * s.inner;
        for (int64_t o = 0; o < s.outer; ++o) mover.copyRun(o * run, o * dim * s.inner + offset, run);
        offset += run;
    }
}

namespace {

struct SliceAxes {
    std::vector<int64_t> starts, ends, axes, steps;
};

SliceAxes sliceArguments(KernelContext& ctx) {
    SliceAxes a;
    if (ctx.opset() < 10) {
        a.starts = ctx.attributes().getInts("starts");
        a.ends = ctx.attributes().getInts("ends");
        a.axes = ctx.attributes().getInts("axes");
    } else {
        a.starts = intsInput(ctx, 1);
        a.ends = intsInput(ctx, 2);
        a.axes = intsInput(ctx, 3);
        a.steps = intsInput(ctx, 4);
    }
    if (a.axes.empty())
        for (size_t i = 0; i < a.starts.size(); ++i) a.axes.push_back(int64_t(i));
    if (a.steps.empty()) a.steps.assign(a.starts.size(), 1);
    if (a.ends.size() != a.starts.size() || a.axes.size() != a.starts.size() || a.steps.size() != a.starts.size())
        throw KernelError("starts, ends, axes and steps must have the same length");
    return a;
}

} // namespace

void slice(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const int64_t rank = int64_t(in.rank());
    const SliceAxes a = sliceArguments(ctx);
    std::vector<int64_t> first(size_t(rank), 0), step(size_t(rank), 1), dims = in.dims();
    std::vector<bool> seen(size_t(rank), false);
    for (size_t i = 0; i < a.starts.size(); ++i) {
        const auto axis = size_t(axisIn(a.axes[i], rank));
        if (seen[axis]) throw KernelError("the axis " + std::to_string(a.axes[i]) + " is sliced twice");
        seen[axis] = true;
        const int64_t dim = in.dims()[axis], s = a.steps[i];
        if (s == 0) throw KernelError("a slice step must not be 0");
        first[axis] = 0;
        step[axis] = s;
        if (dim == 0) {
            dims[axis] = 0;
            continue;
        }
        int64_t start = a.starts[i] < 0 ? a.starts[i] + dim : a.starts[i];
        int64_t end = a.ends[i] < 0 ? a.ends[i] + dim : a.ends[i];
        start = s > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1);
        end = s > 0 ? std::clamp<int64_t>(end, 0, dim) : std::clamp<int64_t>(end, -1, dim - 1);
        const int64_t span = s > 0 ? end - start : start - end;
        const int64_t stepSize = s > 0 ? s : (s == INT64_MIN ? INT64_MAX : -s);
        dims[axis] = span <= 0 ? 0 : (span - 1) / stepSize + 1;
        first[axis] = start;
    }
    Tensor& out = ctx.allocateOutput(0, in.dtype(), dims);
    const ElementMover mover(in, out);
    const std::vector<int64_t> strides = ref::stridesOf(in.dims());
    forEachIndex(dims, [&](const std::vector<int64_t>& position, int64_t linear) {
        int64_t source = 0;
        for (size_t d = 0; d < position.size(); ++d) source += (first[d] + position[d] * step[d]) * strides[d];
        mover.copy(linear, source);
    });
}

namespace {

/// Maps an output coordinate shifted by the begin pad back into [0, dim) for the pad mode;
/// -1 when it falls in a constant area.
int64_t padSource(int64_t i, int64_t dim, const std::string& mode) {
    if (i >= 0 && i < dim) return i;
    if (mode == "constant" || dim == 0) return -1;
    if (mode == "edge") return std::clamp<int64_t>(i, 0, dim - 1);
    if (mode == "wrap") return ((i % dim) + dim) % dim;
    if (dim == 1) return 0;  // reflect
    const int64_t period = 2 * (dim - 1);
    i = ((i % period) + period) % period;
    return i >= dim ? period - i : i;
}

std::vector<int64_t> padsFor(KernelContext& ctx, int64_t rank) {
    std::vector<int64_t> pads = ctx.opset() < 11 ? ctx.attributes().getInts("pads") : ref::toInt64s(ctx.input(1));
    std::vector<int64_t> axes = ctx.opset() >= 18 ? intsInput(ctx, 3) : std::vector<int64_t>{};
    if (axes.empty()) {
        if (int64_t(pads.size()) != 2 * rank) throw KernelError("pads must have two entries per axis");
        return pads;
    }
    if (pads.size() != 2 * axes.size()) throw KernelError("pads must have two entries per listed axis");
    std::vector<int64_t> full(size_t(2 * rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
        const int64_t axis = axisIn(axes[i], rank);
        full[size_t(axis)] = pads[i];
        full[size_t(axis + rank)] = pads[i + axes.size()];
    }
    return full;
}

/// The element the constant areas hold: a one-element tensor of the input's type.
Tensor padValue(KernelContext& ctx, DType dtype) {
    if (ctx.opset() >= 11) {
        if (ctx.hasInput(2) && ctx.input(2).numel() >= 1) {
            if (ctx.input(2).dtype() != dtype) throw KernelError("constant_value must have the input's type");
            return ctx.input(2);
        }
        return Tensor::allocate(dtype, {1});
    }
    const float value = ctx.attributes().getFloat("value", 0.0f);
    return value == 0.0f ? Tensor::allocate(dtype, {1}) : filled(dtype, {1}, value);
}

} // namespace

void pad(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const int64_t rank = int64_t(in.rank());
    const std::vector<int64_t> pads = padsFor(ctx, rank);
    const std::string mode = ctx.attributes().getString("mode", "constant");
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
        throw KernelError("the pad mode '" + mode + "' is unknown");
    std::vector<int64_t> dims = in.dims();
    for (int64_t d = 0; d < rank; ++d) {
        dims[size_t(d)] = checkedAdd(dims[size_t(d)], checkedAdd(pads[size_t(d)], pads[size_t(d + rank)]));
        if (dims[size_t(d)] < 0) throw KernelError("the pads crop more than the axis holds");
        if (mode != "constant" && in.dims()[size_t(d)] == 0 && dims[size_t(d)] > 0)
            throw KernelError("an empty axis can only be padded with a constant");
    }
    checkOutputSize(in.dtype(), dims);
    Tensor& out = ctx.allocateOutput(0, in.dtype(), dims);
    const Tensor value = padValue(ctx, in.dtype());
    const ElementMover mover(in, out), constant(value, out);
    const std::vector<int64_t> strides = ref::stridesOf(in.dims());
    forEachIndex(dims, [&](const std::vector<int64_t>& position, int64_t linear) {
        int64_t source = 0;
        for (int64_t d = 0; d < rank; ++d) {
            const int64_t i = padSource(position[size_t(d)] - pads[size_t(d)], in.dims()[size_t(d)], mode);
            if (i < 0) return constant.copy(linear, 0);
            source += i * strides[size_t(d)];
        }
        mover.copy(linear, source);
    });
}

void compress(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const std::vector<int64_t> condition = ref::toInt64s(ctx.input(1));
    const bool flat = !ctx.attributes().has("axis");
    const Tensor source = flat ? withDims(in, {in.numel()}) : in;
    const int64_t axis = flat ? 0 : axisIn(ctx.attributes().getInt("axis", 0), int64_t(in.rank()));
    const int64_t dim = source.dims()[size_t(axis)];
    std::vector<int64_t> kept;
    for (size_t i = 0; i < condition.size(); ++i) {
        if (!condition[i]) continue;
        if (int64_t(i) >= dim) throw KernelError("the condition selects past the end of the axis");
        kept.push_back(int64_t(i));
    }
    std::vector<int64_t> dims = source.dims();
    dims[size_t(axis)] = int64_t(kept.size());
    Tensor& out = ctx.allocateOutput(0, in.dtype(), dims);
    const ElementMover mover(source, out);
    const AxisSplit s = aroundAxis(source.dims(), axis);
    int64_t next = 0;
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t k : kept) {
            mover.copyRun(next, (o * dim + k) * s.inner, s.inner);
            next += s.inner;
        }
}

void reverseSequence(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const std::vector<int64_t> lengths = ref::toInt64s(ctx.input(1));
    const int64_t batchAxis = ctx.attributes().getInt("batch_axis", 1);
    const int64_t timeAxis = ctx.attributes().getInt("time_axis", 0);
    if (in.rank() < 2 || batchAxis == timeAxis || batchAxis < 0 || batchAxis > 1 || timeAxis < 0 || timeAxis > 1)
        throw KernelError("batch_axis and time_axis must be 0 and 1 of an input of rank 2 or more");
    const int64_t batch = in.dims()[size_t(batchAxis)], time = in.dims()[size_t(timeAxis)];
    if (int64_t(lengths.size()) != batch) throw KernelError("sequence_lens must have one entry per batch");
    for (int64_t len : lengths)
        if (len < 0 || len > time) throw KernelError("a sequence length is out of range");
    Tensor& out = ctx.allocateOutput(0, in.dtype(), in.dims());
    const ElementMover mover(in, out);
    const std::vector<int64_t> strides = ref::stridesOf(in.dims());
    forEachIndex(in.dims(), [&](const std::vector<int64_t>& position, int64_t linear) {
        const int64_t len = lengths[size_t(position[size_t(batchAxis)])];
        const int64_t t = position[size_t(timeAxis)];
        const int64_t reversed = t < len ? len - 1 - t : t;
        mover.copy(linear, linear + (reversed - t) * strides[size_t(timeAxis)]);
    });
}

} // namespace graphlens::shape
