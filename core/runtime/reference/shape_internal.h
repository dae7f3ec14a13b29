// Internal helpers of the shape family: moving elements of any type by bytes (or strings), and
// reading int lists from inputs or attributes. Also declares the family's kernels by file.
#pragma once

#include "core/runtime/reference/ref_util.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace graphlens::shape {

/// Copies elements between two tensors of one element type, whatever the type: raw bytes for
/// fixed-size types (element size from dtypeBits), std::string values for string tensors.
class ElementMover {
public:
    ElementMover(const Tensor& from, const Tensor& to);
    /// to[toIndex] = from[fromIndex]
    void copy(int64_t toIndex, int64_t fromIndex) const;
    /// `count` consecutive elements.
    void copyRun(int64_t toIndex, int64_t fromIndex, int64_t count) const;

private:
    const Tensor& from_;
    const Tensor& to_;
    size_t elementBytes_ = 0;
    bool strings_ = false;
};

/// The bytes of one element; KernelError for sub-byte types the shape kernels cannot move.
size_t elementBytes(DType type);
/// The same elements with new dims, sharing the input's storage (strings are copied). For
/// temporaries and fresh tensors only: the view has its own owner, so an executor cannot tell
/// that it aliases an arena slot; outputs made from inputs go through outputWithDims.
Tensor withDims(const Tensor& in, std::vector<int64_t> dims);
/// Sets output `i` to a copy of `in` with new dims (Reshape, Flatten, Squeeze, Unsqueeze).
void outputWithDims(KernelContext& ctx, size_t i, const Tensor& in, std::vector<int64_t> dims);
/// An axis of a tensor of rank >= 1 mapped into [0, rank); KernelError for a scalar or a bad axis.
int64_t axisIn(int64_t axis, int64_t rank);
/// a * b for sizes (both >= 0); KernelError when the product overflows.
int64_t checkedMul(int64_t a, int64_t b);
/// a + b; KernelError when the sum overflows.
int64_t checkedAdd(int64_t a, int64_t b);
/// KernelError when a `dtype` tensor of `dims` (or an index per element) could not be stored
/// because a byte count overflows; call before allocating outputs whose dims come from input values.
void checkOutputSize(DType dtype, const std::vector<int64_t>& dims);
/// Values of input `i` as int64 (empty when it is omitted).
std::vector<int64_t> intsInput(const KernelContext& ctx, size_t i);
/// Multi-index of linear element `index` in a tensor of `dims`.
std::vector<int64_t> unravel(int64_t index, const std::vector<int64_t>& dims);
/// An index that may be negative, mapped into [0, size); KernelError when out of range.
int64_t wrapIndex(int64_t index, int64_t size, const char* what);
/// Calls f(position, linear) for every element of a tensor of `dims`, in row-major order.
template <typename F>
void forEachIndex(const std::vector<int64_t>& dims, F&& f) {
    const int64_t count = ref::elementCount(dims);
    std::vector<int64_t> position(dims.size(), 0);
    for (int64_t linear = 0; linear < count; ++linear) {
        f(static_cast<const std::vector<int64_t>&>(position), linear);
        for (size_t d = dims.size(); d-- > 0;) {  // odometer increment
            if (++position[d] < dims[d]) break;
            position[d] = 0;
        }
    }
}
/// `in` with its axes permuted: output axis i is input axis perm[i].
Tensor transposed(const Tensor& in, const std::vector<int64_t>& perm);
/// A tensor of `dtype` (numeric or bool) and `dims`, every element set to `value`.
Tensor filled(DType dtype, const std::vector<int64_t>& dims, double value);

// Kernels, by file.
void reshape(KernelContext& ctx);      // shape.cpp
void flatten(KernelContext& ctx);
void squeeze(KernelContext& ctx);
void unsqueeze(KernelContext& ctx);
void shapeOp(KernelContext& ctx);
void sizeOp(KernelContext& ctx);
void transpose(KernelContext& ctx);    // shape_layout.cpp
void expand(KernelContext& ctx);
void tile(KernelContext& ctx);
void depthToSpace(KernelContext& ctx);
void spaceToDepth(KernelContext& ctx);
void trilu(KernelContext& ctx);
void concat(KernelContext& ctx);       // shape_slice.cpp
/// `parts` side by side along `axis` into `out`, whose dims are theirs summed along it (Concat,
/// ConcatFromSequence; the caller checks that the parts fit).
void concatenateInto(const std::vector<const Tensor*>& parts, int64_t axis, Tensor& out);
/// `in` cut along `axis` into slabs of `sizes` (which add up to its length there), slab k into
/// allocate(k, its dims) (Split, SplitToSequence).
void splitInto(const Tensor& in, int64_t axis, const std::vector<int64_t>& sizes,
               const std::function<Tensor&(size_t, std::vector<int64_t>)>& allocate);
void split(KernelContext& ctx);
void slice(KernelContext& ctx);
void pad(KernelContext& ctx);
void compress(KernelContext& ctx);
void reverseSequence(KernelContext& ctx);
void gather(KernelContext& ctx);       // shape_gather.cpp
void gatherElements(KernelContext& ctx);
void gatherND(KernelContext& ctx);
void scatterElements(KernelContext& ctx);
void scatterND(KernelContext& ctx);
void nonZero(KernelContext& ctx);
void oneHot(KernelContext& ctx);
void constantOfShape(KernelContext& ctx);  // shape_create.cpp
void range(KernelContext& ctx);
void eyeLike(KernelContext& ctx);
void unique(KernelContext& ctx);

} // namespace graphlens::shape
