// What the convolution programs share: a Conv or FusedConv node's static shape (conv.cpp reads it
// from the node) and the Winograd variant of the texel path (conv_winograd.cpp).
#pragma once

#include "core/runtime/vulkan/ops.h"

namespace graphlens::vk {

/// A convolution with its static shape, 1-D as H = 1; pads are those before each dim.
struct ConvShape {
    int64_t n = 1, c = 1, h = 1, w = 1, oc = 1, oh = 1, ow = 1, kh = 1, kw = 1;
    int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, groups = 1;
    bool bias = false, residual = false;
    ActivationCode act;

    int64_t perGroup() const { return oc / groups; }   ///< output channels of a group
    int64_t inPerGroup() const { return c / groups; }  ///< input channels of a group
};

/// True when the input fits one texel view (conv_pack.comp reads it as texels).
bool fitsTexels(const ConvShape& c, const DeviceTraits& device);

/// The conv_pack.comp dispatch: the input (input 0, read as texels) as padded texels of 4 channels,
/// [N][G][C4][hp][wp], into scratch `target`; packed position (y, x) is input position
/// (y * step - pad) for each dim.
Dispatch convPackDispatch(const ConvShape& c, int64_t hp, int64_t wp, TensorRef target, int64_t stepH = 1, int64_t stepW = 1);

/// Winograd F(4x4, 3x3) on texel tiles for 3x3, stride 1, undilated, ungrouped convolutions:
/// 4 times fewer multiply-adds than the implicit GEMM. Nullopt for other shapes.
std::optional<NodeProgram> winogradConv(const ConvShape& c, const Tensor& weights, const DeviceTraits& device);

} // namespace graphlens::vk
