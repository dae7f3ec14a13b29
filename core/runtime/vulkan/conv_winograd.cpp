// Winograd F(4x4, 3x3) convolution for CPU devices (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): Y = A^T [(G g G^T) . (B^T d B)] A per 4x4 output tile.
// The weights U = G g G^T are transformed and packed at plan time; a run packs the input into padded
// 4-channel texels (conv_pack.comp), transforms each tile's 6x6 patch (winograd_input.comp), runs
// the 36 products M[xi] = U[xi] V[xi] as one batched gemm_texel.comp dispatch, and transforms the
// products back with bias, residual and activation (winograd_output.comp): 36 multiply-adds per 16
// outputs instead of 144. In fp32 its error stays near 1e-5 of the output's magnitude.
#include "core/runtime/vulkan/conv.h"
#include "core/runtime/vulkan/texel_gemm.h"

namespace graphlens::vk {
namespace {

constexpr int64_t kTile = 4;         // outputs per tile side
constexpr int64_t kComponents = 36;  // of a 6x6 transformed tile

/// U = G g G^T for every output and input channel, packed as the B side of the 36 products:
/// product xi has its own blocks of 8 output channels, texels of 4 input channels.
Tensor transformWeights(const ConvShape& c, const Tensor& weights, const TexelGemm& g) {
    constexpr double G[6][3] = {{1.0 / 4, 0, 0},           {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
    Tensor packed = Tensor::allocate(DType::Float, {g.bTexels() * 4});
    float* out = packed.mutableSpan<float>().data();
    const float* in = weights.span<float>().data();
    const int64_t blocks = g.channelBlocks();
    for (int64_t oc = 0; oc < c.oc; ++oc)
        for (int64_t ic = 0; ic < c.c; ++ic) {
            const float* k = in + (oc * c.c + ic) * 9;
            double gk[6][3];  // G g
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 3; ++j) gk[i][j] = G[i][0] * k[j] + G[i][1] * k[3 + j] + G[i][2] * k[6 + j];
            for (int i = 0; i < 6; ++i)
                for (int j = 0; j < 6; ++j) {
                    const int64_t xi = 6 * i + j, mb = oc / kTexelChannels, r = oc % kTexelChannels;
                    const int64_t texel = ((xi * blocks + mb) * g.k4 + ic / 4) * kTexelChannels + r;
                    out[4 * texel + ic % 4] = float(gk[i][0] * G[j][0] + gk[i][1] * G[j][1] + gk[i][2] * G[j][2]);
                }
        }
    return packed;
}

} // namespace

std::optional<NodeProgram> winogradConv(const ConvShape& c, const Tensor& weights, const DeviceTraits& device) {
    if (c.kh != 3 || c.kw != 3 || c.sh != 1 || c.sw != 1 || c.dh != 1 || c.dw != 1 || c.groups != 1 || c.h == 1)
        return std::nullopt;
    const int64_t th = (c.oh + kTile - 1) / kTile, tw = (c.ow + kTile - 1) / kTile, tiles = c.n * th * tw;
    const int64_t hp = kTile * th + 2, wp = kTile * tw + 2, c4 = (c.c + 3) / 4;
    TexelGemm g;
    g.k4 = c4, g.aK = tiles;
    g.outer = kComponents, g.inner = tiles, g.aOuter = c4 * tiles, g.aRow = 1;
    g.m = c.oc, g.bPerOuter = true;
    g.yOuter = 1, g.yInner = c.oc * kComponents, g.yChannel = kComponents;
    const int64_t packedTexels = c.n * c4 * hp * wp, transformedTexels = kComponents * c4 * tiles;
    const int64_t productTexels = tiles * c.oc * kComponents / 4;
    for (int64_t texels : {packedTexels, transformedTexels, productTexels, g.bTexels()})
        if (uint64_t(texels) > device.maxTexels) return std::nullopt;
    // The input (conv_pack.comp) and the residual (winograd_output.comp) are read as texels.
    if (!fitsTexels(c, device) || uint64_t((c.n * c.oc * c.oh * c.ow + 3) / 4) > device.maxTexels) return std::nullopt;
    auto product =
        texelGemmDispatch(g, TensorRef::scratch(1), TensorRef::packed(0), TensorRef::none(), TensorRef::none(), device);
    if (!product) return std::nullopt;
    product->bindings[0] = TensorRef::scratch(2);
    product->waits = true;

    Constants in;
    in.i(c.n).i(c4).i(th).i(tw).i(hp).i(wp);
    Dispatch input{"winograd_input", in.take(), {TensorRef::scratch(1)}, flatGroups(uint64_t(c4 * tiles), 64),
                   {TensorRef::scratch(0)}, true};
    Constants out;
    out.i(c.n).i(c.oc).i(c.oh).i(c.ow).i(th).i(tw).i(c.bias).i(c.residual).i(c.act.op).f(c.act.alpha).f(c.act.beta);
    Dispatch output{"winograd_output", out.take(), {TensorRef::output(0)}, flatGroups(uint64_t(c.n * c.oc * th * tw), 64),
                    {TensorRef::scratch(2), c.bias ? TensorRef::input(2) : TensorRef::none(),
                     c.residual ? TensorRef::input(3) : TensorRef::none()},
                    true};
    NodeProgram program{"vulkan:conv-winograd", {convPackDispatch(c, hp, wp, TensorRef::scratch(0)), std::move(input),
                                                  std::move(*product), std::move(output)}};
    for (const Dispatch& d : program.dispatches)
        if (!fitsGroups(device, d.groups)) return std::nullopt;
    program.packed.push_back(transformWeights(c, weights, g));
    program.scratch = {texelBytes(packedTexels), texelBytes(transformedTexels), texelBytes(productTexels)};
    return program;
}

} // namespace graphlens::vk
