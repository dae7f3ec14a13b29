// Comparing tensors the way ONNX's backend tests do: same type and shape, and every element
// within atol + rtol * |expected| (NaN matches NaN); the first mismatch is described.
#pragma once

#include "core/graph/tensor.h"

#include <string>

namespace graphlens {

struct TensorComparison {
    bool matches = false;
    double maxAbsError = 0;
    double maxRelError = 0;  ///< over elements whose expected magnitude exceeds atol
    std::string mismatch;  ///< one phrase: "shape [2,3] instead of [3,2]", "element 4 is 1.5, expected 1.25"
};

TensorComparison compareTensors(const Tensor& got, const Tensor& expected, double rtol = 1e-3,
                                double atol = 1e-7);

} // namespace graphlens
