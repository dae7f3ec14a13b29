// ONNX Runtime's com.microsoft operators that GraphLens writes (FusedConv, FusedGemm, the Gelu
// family), made known to libonnx with the shape inference of the standard operator each extends,
// and LayerNormalization before opset 17 as ONNX Runtime runs it, so a model holding them gets
// every intermediate shape when it is loaded or its input shapes change.
#pragma once

namespace graphlens {

/// Registers the schemas into libonnx's registry once; later calls do nothing. An operator
/// already registered (by libonnx itself or elsewhere) is left as it is.
void registerContribSchemas();

} // namespace graphlens
