// Reference kernels: the shape family (see families.h). This file holds the family's shared
// helpers, the ops that only change dims (Reshape, Flatten, Squeeze, Unsqueeze, Shape, Size) and
// the registration.
#include "core/runtime/reference/families.h"
#include "core/runtime/reference/shape_internal.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>

namespace graphlens::shape {

size_t elementBytes(DType type) {
    const int bits = dtypeBits(type);
    if (bits <= 0 || bits % 8 != 0)
        throw KernelError("the element type " + std::string(dtypeName(type)) + " is not supported here");
    return size_t(bits / 8);
}

ElementMover::ElementMover(const Tensor& from, const Tensor& to) : from_(from), to_(to) {
    if (from.dtype() != to.dtype()) throw KernelError("the element types do not match");
    strings_ = from.dtype() == DType::String;
    if (!strings_) elementBytes_ = elementBytes(from.dtype());
}

void ElementMover::copy(int64_t toIndex, int64_t fromIndex) const {
    if (strings_) {
        to_.mutableStrings()[size_t(toIndex)] = from_.strings()[size_t(fromIndex)];
        return;
    }
    std::memcpy(to_.mutableData() + size_t(toIndex) * elementBytes_,
                from_.data() + size_t(fromIndex) * elementBytes_, elementBytes_);
}

void ElementMover::copyRun(int64_t toIndex, int64_t fromIndex, int64_t count) const {
    if (count <= 0) return;
    if (strings_) {
        for (int64_t i = 0; i < count; ++i) copy(toIndex + i, fromIndex + i);
        return;
    }
    std::memcpy(to_.mutableData() + size_t(toIndex) * elementBytes_,
                from_.data() + size_t(fromIndex) * elementBytes_, size_t(count) * elementBytes_);
}

Tensor withDims(const Tensor& in, std::vector<int64_t> dims) {
    if (ref::elementCount(dims) != in.numel())
        throw KernelError("cannot give " + std::to_string(in.numel()) + " elements the shape " +
                          ref::dimsText(dims));
    if (in.dtype() == DType::String) return Tensor::fromStrings(std::move(dims), in.strings());
    auto owner = std::make_shared<const Tensor>(in);  // keeps the shared storage alive
    return Tensor::view(in.dtype(), std::move(dims), in.data(), in.byteSize(), owner);
}

int64_t axisIn(int64_t axis, int64_t rank) {
    if (rank == 0) throw KernelError("the input is a scalar and has no axis " + std::to_string(axis));
    return ref::normalizeAxis(axis, rank);
}

int64_t checkedMul(int64_t a, int64_t b) {
    int64_t product = 0;
    if (__builtin_mul_overflow(a, b, &product)) throw KernelError("a dimension of the output is too large");
    return product;
}

int64_t checkedAdd(int64_t a, int64_t b) {
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum)) throw KernelError("a dimension of the output is too large");
    return sum;
}

void outputWithDims(KernelContext& ctx, size_t i, const Tensor& in, std::vector<int64_t> dims) {
    if (ref::elementCount(dims) != in.numel())
        throw KernelError("cannot give " + std::to_string(in.numel()) + " elements the shape " +
                          ref::dimsText(dims));
    Tensor& out = ctx.allocateOutput(i, in.dtype(), std::move(dims));
    ElementMover(in, out).copyRun(0, 0, in.numel());
}

void checkOutputSize(DType dtype, const std::vector<int64_t>& dims) {
    const int64_t count = ref::elementCount(dims);
    const int64_t bytes = dtype == DType::String ? int64_t(sizeof(std::string)) : std::max(dtypeBits(dtype) / 8, 8);
    if (count > INT64_MAX / bytes) throw KernelError("the shape " + ref::dimsText(dims) + " is too large");
    // --max-memory holds the output's own bytes when allocateOutput makes it; this working set
    // counts an index per element besides.
    ref::checkAvailableMemory("the output", dims, uint64_t(bytes));
}

std::vector<int64_t> intsInput(const KernelContext& ctx, size_t i) {
    return ctx.hasInput(i) ? ref::toInt64s(ctx.input(i)) : std::vector<int64_t>{};
}

std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& dims) {
    std::vector<int64_t> position(dims.size(), 0);
    for (size_t d = dims.size(); d-- > 0;) {
        if (dims[d] == 0) continue;
        position[d] = index % dims[d];
        index /= dims[d];
    }
    return position;
}

int64_t wrapIndex(int64_t index, int64_t size, const char* what) {
    const int64_t wrapped = index < 0 ? index + size : index;
    if (wrapped < 0 || wrapped >= size)
        throw KernelError(std::string(what) + " " + std::to_string(index) + " is out of range for a dimension of " +
                          std::to_string(size));
    return wrapped;
}

Tensor filled(DType dtype, const std::vector<int64_t>& dims, double value) {
    if (dtype == DType::Float16 || dtype == DType::BFloat16)
        return ref::fromFloat(filled(DType::Float, dims, value), dtype);
    Tensor out = Tensor::allocate(dtype, dims);
    ref::visitNumeric(dtype, "this op", [&]<typename T>() {
        T* p = ref::mutableDataOf<T>(out);
        std::fill(p, p + out.numel(), static_cast<T>(value));
    });
    return out;
}

namespace {

std::vector<int64_t> reshapeTarget(KernelContext& ctx) {
    if (ctx.opset() < 5) return ctx.attributes().getInts("shape");
    if (ctx.input(1).rank() != 1) throw KernelError("the shape input must be 1-D");
    return ref::toInt64s(ctx.input(1));
}

} // namespace

void reshape(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    std::vector<int64_t> dims = reshapeTarget(ctx);
    const bool allowZero = ctx.attributes().getInt("allowzero", 0) != 0;
    int64_t inferred = -1;
    int64_t known = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0 && !allowZero) {
            if (i >= in.rank()) throw KernelError("a 0 in the shape has no input dimension to copy");
            dims[i] = in.dims()[i];
        }
        if (dims[i] == -1) {
            if (inferred >= 0) throw KernelError("the shape has more than one -1");
            inferred = int64_t(i);
        } else if (dims[i] < 0) {
            throw KernelError("the shape has the negative dimension " + std::to_string(dims[i]));
        } else {
            known = checkedMul(known, dims[i]);
        }
    }
    if (inferred >= 0) {
        if (known == 0 || in.numel() % known != 0)
            throw KernelError("cannot infer the -1 dimension of " + ref::dimsText(dims) + " for " +
                              std::to_string(in.numel()) + " elements");
        dims[size_t(inferred)] = in.numel() / known;
    }
    outputWithDims(ctx, 0, in, dims);
}

void flatten(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const int64_t rank = int64_t(in.rank());
    int64_t axis = ctx.attributes().getInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) throw KernelError("the axis is out of range for rank " + std::to_string(rank));
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in.dims()[size_t(d)];
    outputWithDims(ctx, 0, in, {outer, outer == 0 ? 0 : in.numel() / outer});
}

namespace {

std::vector<int64_t> axesOf(KernelContext& ctx, size_t input) {
    if (ctx.opset() < 13) return ctx.attributes().getInts("axes");
    return intsInput(ctx, input);
}

} // namespace

void squeeze(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const int64_t rank = int64_t(in.rank());
    std::vector<bool> drop(size_t(rank), false);
    const std::vector<int64_t> axes = axesOf(ctx, 1);
    for (int64_t a : axes) {
        const int64_t axis = axisIn(a, rank);
        if (in.dims()[size_t(axis)] != 1)
            throw KernelError("cannot squeeze the axis " + std::to_string(a) + " of size " +
                              std::to_string(in.dims()[size_t(axis)]));
        drop[size_t(axis)] = true;
    }
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d) {
        const bool squeezed = axes.empty() ? in.dims()[size_t(d)] == 1 : drop[size_t(d)];
        if (!squeezed) dims.push_back(in.dims()[size_t(d)]);
    }
    outputWithDims(ctx, 0, in, dims);
}

void unsqueeze(KernelContext& ctx) {
    const Tensor& in = ctx.input(0);
    const std::vector<int64_t> axes = axesOf(ctx, 1);
    const int64_t rank = int64_t(in.rank() + axes.size());
    std::vector<bool> inserted(size_t(rank), false);
    for (int64_t a : axes) {
        const int64_t axis = ref::normalizeAxis(a, rank);
        if (inserted[size_t(axis)]) throw KernelError("the axis " + std::to_string(a) + " is given twice");
        inserted[size_t(axis)] = true;
    }
    std::vector<int64_t> dims;
    size_t next = 0;
    for (int64_t d = 0; d < rank; ++d) dims.push_back(inserted[size_t(d)] ? 1 : in.dims()[next++]);
    outputWithDims(ctx, 0, in, dims);
}

void shapeOp(KernelContext& ctx) {
    const auto& dims = ctx.input(0).dims();
    const int64_t rank = int64_t(dims.size());
    auto clampAxis = [rank](int64_t axis) { return std::clamp(axis < 0 ? axis + rank : axis, int64_t(0), rank); };
    const int64_t start = clampAxis(ctx.attributes().getInt("start", 0));
    const int64_t end = clampAxis(ctx.attributes().getInt("end", rank));
    std::vector<int64_t> values;
    for (int64_t d = start; d < end; ++d) values.push_back(dims[size_t(d)]);
    ctx.setOutput(0, Tensor::int64s({int64_t(values.size())}, values));
}

void sizeOp(KernelContext& ctx) { ctx.setOutput(0, Tensor::int64s({}, {ctx.input(0).numel()})); }

} // namespace graphlens::shape

namespace graphlens {

void registerShapeKernels(KernelRegistry& registry) {
    using namespace shape;
    registry.add("Reshape", reshape);
    registry.add("Flatten", flatten);
    registry.add("Squeeze", squeeze);
    registry.add("Unsqueeze", unsqueeze);
    registry.add("Shape", shapeOp);
    registry.add("Size", sizeOp);
    registry.add("Transpose", transpose);
    registry.add("Expand", expand);
    registry.add("Tile", tile);
    registry.add("DepthToSpace", depthToSpace);
    registry.add("SpaceToDepth", spaceToDepth);
    registry.add("Trilu", trilu);
    registry.add("Concat", concat);
    registry.add("Split", split);
    registry.add("Slice", slice);
    registry.add("Pad", pad);
    registry.add("Compress", compress);
    registry.add("ReverseSequence", reverseSequence);
    registry.add("Gather", gather);
    registry.add("GatherElements", gatherElements);
    registry.add("GatherND", gatherND);
    registry.add("ScatterElements", scatterElements);
    registry.add("Scatter", scatterElements);
    registry.add("ScatterND", scatterND);
    registry.add("NonZero", nonZero);
    registry.add("OneHot", oneHot);
    registry.add("ConstantOfShape", constantOfShape);
    registry.add("Range", range);
    registry.add("EyeLike", eyeLike);
    registry.add("Unique", unique);
}

} // namespace graphlens
