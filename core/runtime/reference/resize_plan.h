// Where Resize (and the older Upsample) reads: the output dims and, per axis, the input positions
// and weights each output coordinate combines, from the node's attributes and its roi, scales and
// sizes. The reference kernel interpolates with it; the Vulkan backend uploads it as a table, so
// both follow ONNX's numpy reference the same way (every mode, rounding and coordinate
// transformation). KernelError for what the reference does not support (antialias).
#pragma once

#include "core/graph/attribute.h"
#include "core/graph/tensor.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace graphlens::nn {

/// The neighbours each output coordinate reads along one axis, and their weights.
struct ResizeAxis {
    std::vector<std::vector<std::pair<int64_t, double>>> taps;  ///< per output coordinate
    std::vector<bool> outside;  ///< tf_crop_and_resize: the coordinate maps outside the input
};

struct ResizePlan {
    std::vector<int64_t> outDims;
    std::vector<ResizeAxis> axes;  ///< per axis of the input
    double extrapolation = 0.0;    ///< the value of outside outputs
};

/// The plan of a Resize node of `opset` over an input of `inDims`; `inputs[i]` is the node's input
/// i (nullptr where omitted; index 0, the data, is not read).
ResizePlan planResize(const Attributes& attributes, int64_t opset, const std::vector<int64_t>& inDims,
                      const std::vector<const Tensor*>& inputs);

/// The plan of an Upsample node (scales from input 1 or the opset 7 attribute).
ResizePlan planUpsample(const Attributes& attributes, const std::vector<int64_t>& inDims,
                        const std::vector<const Tensor*>& inputs);

} // namespace graphlens::nn
