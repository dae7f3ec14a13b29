// Lowering fused operators back to standard ONNX: for `--portable` exports every com.microsoft
// op, and for ONNX Runtime exports the fused forms it cannot run (e.g. FusedConv with a HardSwish
// activation, which GraphLens runs natively but ONNX Runtime's FusedConv does not accept).
#pragma once

#include "core/graph/model.h"

#include <cstddef>

namespace graphlens {

enum class Lowering {
    ForOnnxRuntime,  ///< only what ONNX Runtime cannot run
    StandardOnly,    ///< every operator outside the default ONNX domain that GraphLens made
};

/// Rewrites fused nodes into standard ONNX nodes computing the same thing and drops opset
/// imports nothing uses any more. Returns how many nodes were lowered.
size_t lowerFusedOps(Model& model, Lowering what);

} // namespace graphlens
