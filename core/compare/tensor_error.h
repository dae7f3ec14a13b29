// How far one tensor is from another: the three numbers a layer-by-layer comparison reports.
#pragma once

#include "core/graph/tensor.h"

#include <string>

namespace graphlens {

struct TensorError {
    double maxAbsError = 0;  ///< max |b - a|
    /// max |b - a| / max(|a|, floor) with floor = 1e-2 * max |a| (and at least 1e-30): relative
    /// to each element, except that elements below a hundredth of the tensor's largest magnitude
    /// are measured against that hundredth instead of blowing up (sums in another order leave
    /// near-zero elements with a large error of their own).
    double maxRelError = 0;
    /// dot(a, b) / (|a| |b|); 1 when both are all zeros, 0 when only one is.
    double cosine = 1;
    /// Empty when the tensors could be compared; else why not ("shape [2,3] against [3,2]",
    /// "element 4 is NaN against 1.5").
    std::string problem;

    bool comparable() const { return problem.empty(); }
};

/// The error of `b` against the reference `a`. NaN matches NaN; a NaN on one side only is a
/// problem. Types may differ (both are read as doubles); element counts must not.
TensorError measureError(const Tensor& a, const Tensor& b);

/// The relative error floor measureError uses for a reference whose largest magnitude is `maxAbs`.
double relativeErrorFloor(double maxAbs);

} // namespace graphlens
