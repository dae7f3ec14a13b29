// The texel products' dispatches and packings; see texel_gemm.h.
#include "core/runtime/vulkan/texel_gemm.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

/// Workgroup width for `lanes` invocations: wide groups for big grids, narrow ones where most of a
/// wide group would be idle (each 8 lanes are one SIMD pass on lavapipe).
uint32_t localSizeFor(int64_t lanes) {
    if (lanes >= 512) return 64;
    if (lanes >= 128) return 32;
    if (lanes >= 32) return 16;
    return 8;
}

} // namespace

std::optional<Dispatch> texelGemmDispatch(const TexelGemm& g, TensorRef a, TensorRef b, TensorRef bias, TensorRef residual,
                                          const DeviceTraits& device) {
    const int64_t lanes = g.outer * ((g.inner + kTexelPositions - 1) / kTexelPositions);
    const uint32_t local = std::min(localSizeFor(lanes), device.maxInvocations);
    Constants c;
    c.i(local).i(g.k4).i(g.kh).i(g.kw).i(g.aK).i(g.aH).i(g.aW);
    c.i(g.outer).i(g.inner).i(g.row).i(g.aOuter).i(g.aRow).i(g.aCol).i(g.aGroup);
    c.i(g.m).i(g.channelBlocks()).i(g.bPerOuter);
    c.i(g.yOuter).i(g.yInner).i(g.yChannel);
    c.i(g.bias).i(g.biasChannel).i(g.biasInner).i(g.residual);
    c.f(g.alpha).f(g.beta).i(g.act.op).f(g.act.alpha).f(g.act.beta);
    const std::array<uint32_t, 3> groups{uint32_t((lanes + local - 1) / local), uint32_t(g.channelBlocks()),
                                         uint32_t(g.bPerOuter ? 1 : g.groups)};
    if (!fitsGroups(device, groups) || (lanes + local - 1) / local > device.maxGroups[0]) return std::nullopt;
    Dispatch d{"gemm_texel", c.take(), {TensorRef::output(0), bias, residual}, groups, {a, b}};
    return d;
}

Tensor packMatrix(const MatrixPacking& p, const Tensor& source) {
    Tensor packed = Tensor::allocate(DType::Float, {p.texels() * 4});
    float* out = packed.mutableSpan<float>().data();
    const float* in = source.span<float>().data();
    const int64_t k4 = p.k4(), blocks = p.blocks();
    for (int64_t z0 = 0; z0 < p.batch[0]; ++z0)
        for (int64_t z1 = 0; z1 < p.batch[1]; ++z1)
            for (int64_t z2 = 0; z2 < p.batch[2]; ++z2) {
                const int64_t z = (z0 * p.batch[1] + z1) * p.batch[2] + z2;
                const int64_t base = z0 * p.batchStride[0] + z1 * p.batchStride[1] + z2 * p.batchStride[2];
                for (int64_t blk = 0; blk < blocks; ++blk)
                    for (int64_t c = 0; c < k4; ++c)
                        for (int64_t r = 0; r < p.interleave; ++r) {
                            float* texel = out + 4 * (((z * blocks + blk) * k4 + c) * p.interleave + r);
                            const int64_t row = blk * p.interleave + r;
                            for (int64_t j = 0; j < 4; ++j) {
                                const int64_t k = 4 * c + j;
                                texel[j] = row < p.rows && k < p.k ? in[base + row * p.rowStride + k * p.kStride] : 0.0f;
                            }
                        }
            }
    return packed;
}

std::optional<Dispatch> matrixPackDispatch(const MatrixPacking& p, TensorRef source, TensorRef target, const DeviceTraits& device) {
    Constants c;
    c.i(p.rows).i(p.k).i(p.interleave).i(p.rowStride).i(p.kStride);
    for (int64_t v : p.batch) c.i(v);
    for (int64_t v : p.batchStride) c.i(v);
    const auto groups = flatGroups(uint64_t(p.texels()), 64);
    if (!fitsGroups(device, groups)) return std::nullopt;
    return Dispatch{"matrix_pack", c.take(), {target, source}, groups};
}

} // namespace graphlens::vk
