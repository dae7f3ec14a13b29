// Winograd F(2x2, 3x3) on nChw8c/nChw16c (see winograd_conv.h): the transforms are loops over
// one channel block, which the compiler turns into one vector operation per line.
#include "core/runtime/cpu/winograd_conv.h"

#include "core/graph/activation_kinds.h"
#include "core/runtime/cpu/vector_math.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

constexpr int64_t kPoints = 16;  ///< a 4x4 tile: the number of products

ConvAlgorithm initialAlgorithm() {
    const char* v = std::getenv("GRAPHLENS_CONV_ALGORITHM");
    const std::string name = v ? v : "";
    if (name == "direct") return ConvAlgorithm::Direct;
    if (name == "winograd") return ConvAlgorithm::Winograd;
    return ConvAlgorithm::Auto;
}

std::atomic<ConvAlgorithm>& algorithmPolicy() {
    static std::atomic<ConvAlgorithm> policy{initialAlgorithm()};
    return policy;
}

/// Where the products beat oneDNN's direct kernel, measured with 2 threads (tst_cpu_onednn
/// winogradSpeed). AVX2 (8-channel blocks): 1.1-2.2x from 32 channels on 56x56 to 512 on 7x7.
/// AVX-512 (16-channel blocks, AMD EPYC with VNNI): 1.4x (32 on 56x56) to 2.1x (256 on 14x14),
/// 1.1-1.3x for DenseNet's 128 -> 32 on 56x56 to 14x14. Slower on both with 16 channels (0.7-0.8x,
/// the transforms dominate), and on small planes unless the products are wide: 7x7 with 32
/// output channels (DenseNet) 0.7-0.9x, 4x4 with 1024 0.6-0.9x on AVX2, 1.1x on AVX-512 (products
/// of 4 rows that read 16/9 the direct kernel's weight bytes).
bool winogradPays(const WinogradShape& s) {
    const int64_t plane = s.outHeight * s.outWidth;
    if (s.inChannels < 32 || s.outChannels < 32) return false;
    return plane >= 196 || (plane >= 49 && s.outChannels >= 256);
}

/// U = G g G^T for every (output, input) channel pair, stored as 16 matrices [C_in][C_out].
std::vector<float> transformWeights(const float* w, int64_t outChannels, int64_t inChannels) {
    std::vector<float> u(size_t(kPoints * inChannels * outChannels));
    for (int64_t o = 0; o < outChannels; ++o) {
        for (int64_t i = 0; i < inChannels; ++i) {
            const float* g = w + (o * inChannels + i) * 9;
            double gg[4][3];  // G g
            for (int k = 0; k < 3; ++k) {
                gg[0][k] = g[k];
                gg[1][k] = 0.5 * (double(g[k]) + g[3 + k] + g[6 + k]);
                gg[2][k] = 0.5 * (double(g[k]) - g[3 + k] + g[6 + k]);
                gg[3][k] = g[6 + k];
            }
            for (int r = 0; r < 4; ++r) {
                const double row[4] = {gg[r][0], 0.5 * (gg[r][0] + gg[r][1] + gg[r][2]),
                                       0.5 * (gg[r][0] - gg[r][1] + gg[r][2]), gg[r][2]};
                for (int c = 0; c < 4; ++c)
                    u[size_t(((r * 4 + c) * inChannels + i) * outChannels + o)] = float(row[c]);
            }
        }
    }
    return u;
}

/// V = B^T d B for one row of tiles of one channel block: `plane` is the block's H x W x kBlock
/// input, `y0` the row of the tiles' first input line (may be negative: padding), tile `t`
/// goes to out + t * tileStride + point * pointStride.
template <int64_t kBlock>
[[gnu::always_inline]] inline void inputTiles(const float* __restrict plane, int64_t height, int64_t width, int64_t y0,
                                              int64_t padLeft, int64_t tilesWide, float* __restrict out,
                                              int64_t tileStride, int64_t pointStride) {
    for (int64_t tx = 0; tx < tilesWide; ++tx) {
        const int64_t x0 = 2 * tx - padLeft;
        float d[4][4][kBlock];
        for (int64_t i = 0; i < 4; ++i) {
            const int64_t y = y0 + i;
            for (int64_t j = 0; j < 4; ++j) {
                const int64_t x = x0 + j;
                if (y >= 0 && y < height && x >= 0 && x < width)
                    std::memcpy(d[i][j], plane + (y * width + x) * kBlock, sizeof d[i][j]);
                else
                    std::memset(d[i][j], 0, sizeof d[i][j]);
            }
        }
        float t[4][4][kBlock];  // B^T d
        for (int64_t j = 0; j < 4; ++j) {
            for (int64_t c = 0; c < kBlock; ++c) {
                t[0][j][c] = d[0][j][c] - d[2][j][c];
                t[1][j][c] = d[1][j][c] + d[2][j][c];
                t[2][j][c] = d[2][j][c] - d[1][j][c];
                t[3][j][c] = d[1][j][c] - d[3][j][c];
            }
        }
        float* o = out + tx * tileStride;
        for (int64_t i = 0; i < 4; ++i) {  // (B^T d) B
            float* p = o + i * 4 * pointStride;
            for (int64_t c = 0; c < kBlock; ++c) {
                p[c] = t[i][0][c] - t[i][2][c];
                p[pointStride + c] = t[i][1][c] + t[i][2][c];
                p[2 * pointStride + c] = t[i][2][c] - t[i][1][c];
                p[3 * pointStride + c] = t[i][1][c] - t[i][3][c];
            }
        }
    }
}

/// Y = A^T m A for one row of tiles of one output channel block, plus bias, plus what `plane`
/// holds (with `residual`), through the activation, written where inside the output.
template <int64_t kBlock>
[[gnu::always_inline]] inline void outputTiles(const float* __restrict products, int64_t tileStride,
                                               int64_t pointStride, const float* __restrict bias, bool residual,
                                               float slope, float low, float high, float* __restrict plane,
                                               int64_t height, int64_t width, int64_t y0, int64_t tilesWide) {
    for (int64_t tx = 0; tx < tilesWide; ++tx) {
        const float* m = products + tx * tileStride;
        float s[2][4][kBlock];  // A^T m
        for (int64_t j = 0; j < 4; ++j) {
            for (int64_t c = 0; c < kBlock; ++c) {
                const float m0 = m[j * pointStride + c], m1 = m[(4 + j) * pointStride + c];
                const float m2 = m[(8 + j) * pointStride + c], m3 = m[(12 + j) * pointStride + c];
                s[0][j][c] = m0 + m1 + m2;
                s[1][j][c] = m1 - m2 - m3;
            }
        }
        const int64_t x0 = 2 * tx;
        for (int64_t r = 0; r < 2; ++r) {
            const int64_t y = y0 + r;
            if (y >= height) break;
            for (int64_t k = 0; k < 2; ++k) {
                const int64_t x = x0 + k;
                if (x >= width) break;
                float* at = plane + (y * width + x) * kBlock;
                for (int64_t c = 0; c < kBlock; ++c) {
                    float v = k == 0 ? s[r][0][c] + s[r][1][c] + s[r][2][c] : s[r][1][c] - s[r][2][c] - s[r][3][c];
                    v += bias[c] + (residual ? at[c] : 0.f);
                    v = std::max(v, 0.f) + slope * std::min(v, 0.f);
                    at[c] = std::min(std::max(v, low), high);
                }
            }
        }
    }
}

// The transforms compiled for each vector width (see GRAPHLENS_VECTOR_CLONES), for 8- or 16-channel
// blocks.
GRAPHLENS_VECTOR_CLONES void inputTileRow(int64_t block, const float* plane, int64_t height, int64_t width, int64_t y0,
                                          int64_t padLeft, int64_t tilesWide, float* out, int64_t tileStride,
                                          int64_t pointStride) {
    if (block == 8) inputTiles<8>(plane, height, width, y0, padLeft, tilesWide, out, tileStride, pointStride);
    else inputTiles<16>(plane, height, width, y0, padLeft, tilesWide, out, tileStride, pointStride);
}
GRAPHLENS_VECTOR_CLONES void outputTileRow(int64_t block, const float* products, int64_t tileStride,
                                           int64_t pointStride, const float* bias, bool residual, float slope,
                                           float low, float high, float* plane, int64_t height, int64_t width,
                                           int64_t y0, int64_t tilesWide) {
    if (block == 8)
        outputTiles<8>(products, tileStride, pointStride, bias, residual, slope, low, high, plane, height, width, y0,
                       tilesWide);
    else
        outputTiles<16>(products, tileStride, pointStride, bias, residual, slope, low, high, plane, height, width, y0,
                        tilesWide);
}

} // namespace

void setConvAlgorithm(ConvAlgorithm algorithm) { algorithmPolicy() = algorithm; }
ConvAlgorithm convAlgorithm() { return algorithmPolicy(); }

namespace {

/// The activation Winograd's output transform applies: max(v,0) + slope*min(v,0) clamped to [low, high].
struct WinogradActivation {
    float slope = 1.f, low = -std::numeric_limits<float>::infinity(), high = std::numeric_limits<float>::infinity();
};

/// The node's activation in Winograd's terms; nullopt for one it does not apply.
std::optional<WinogradActivation> winogradActivation(const NodeDescriptor& info) {
    WinogradActivation act;
    const Attribute* a = info.attributes().find("activation");
    if (!a) return act;
    if (!a->holds<std::string>()) return std::nullopt;
    const ActivationKind* kind = activationKindNamed(a->get<std::string>());
    const std::vector<float> given = floatsAttribute(info.attributes(), "activation_params");
    const ActivationParams p = kind ? activationParams(*kind, given) : ActivationParams{};
    if (kind && kind->id == ActivationId::Relu) act.slope = 0.f;
    else if (kind && kind->id == ActivationId::LeakyRelu) act.slope = p[0];
    else if (kind && kind->id == ActivationId::Clip && given.size() == 2 && p[0] <= p[1]) act.low = p[0], act.high = p[1];
    else return std::nullopt;
    return act;
}

} // namespace

bool WinogradConv::canCompute(const WinogradShape& shape, const NodeDescriptor& info) {
    if (shape.block != 8 && shape.block != 16) return false;
    if (shape.inChannels % shape.block != 0 || shape.outChannels % shape.block != 0) return false;
    if (info.constants.size() < 2 || !info.constants[1]) return false;
    return winogradActivation(info).has_value();
}

std::unique_ptr<WinogradConv> WinogradConv::make(const WinogradShape& shape, const NodeDescriptor& info, bool anyShape) {
    const ConvAlgorithm policy = convAlgorithm();
    if (policy == ConvAlgorithm::Direct) return nullptr;
    if (policy == ConvAlgorithm::Auto && !anyShape && !winogradPays(shape)) return nullptr;
    if (!canCompute(shape, info)) return nullptr;
    const WinogradActivation act = *winogradActivation(info);
    try {
        return std::unique_ptr<WinogradConv>(
            new WinogradConv(shape, info.constants[1]->span<float>().data(), act.slope, act.low, act.high));
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

WinogradConv::WinogradConv(const WinogradShape& shape, const float* weights, float slope, float low, float high)
    : shape_(shape),
      tilesHigh_((shape.outHeight + 1) / 2),
      tilesWide_((shape.outWidth + 1) / 2),
      tiles_(shape.batch * tilesHigh_ * tilesWide_),
      inRow_(paddedRowLength(shape.inChannels)),
      outRow_(paddedRowLength(shape.outChannels)),
      slope_(slope),
      low_(low),
      high_(high) {
    const dnnl::engine& eng = engine();
    // Rows padded as paddedRowLength says: 512 -> 512 channels on 7x7 took 1.44 ms unpadded, 0.91 padded.
    const int64_t weightRow = paddedRowLength(shape.outChannels);
    const memory::desc tilesDesc({kPoints, tiles_, shape.inChannels}, dt::f32, Dims{tiles_ * inRow_, inRow_, 1});
    const memory::desc productsDesc({kPoints, tiles_, shape.outChannels}, dt::f32, Dims{tiles_ * outRow_, outRow_, 1});
    const memory::desc userWeights({kPoints, shape.inChannels, shape.outChannels}, dt::f32, tag::abc);
    const memory::desc packed(userWeights.dims(), dt::f32, Dims{shape.inChannels * weightRow, weightRow, 1});
    const dnnl::matmul::desc desc(tilesDesc, packed, productsDesc);
    const dnnl::matmul::primitive_desc pd(desc, eng);
    product_ = dnnl::matmul(pd);
    std::vector<float> u = transformWeights(weights, shape.outChannels, shape.inChannels);
    memory user(userWeights, eng, u.data());
    weightsMem_ = memory(pd.weights_desc(), eng);
    dnnl::stream& s = stream();
    dnnl::reorder(user, weightsMem_).execute(s, user, weightsMem_);
    s.wait();
    tilesMem_ = memory(tilesDesc, eng, DNNL_MEMORY_NONE);
    productsMem_ = memory(productsDesc, eng, DNNL_MEMORY_NONE);
}

void WinogradConv::transformInput(const float* src, float* tiles) const {
    const WinogradShape& s = shape_;
    const int64_t blocks = s.inChannels / s.block, rows = s.batch * tilesHigh_;
    const int64_t plane = s.inHeight * s.inWidth * s.block, pointStride = tiles_ * inRow_;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t row = 0; row < rows; ++row) {
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t n = row / tilesHigh_, ty = row % tilesHigh_;
            inputTileRow(s.block, src + (n * blocks + b) * plane, s.inHeight, s.inWidth, 2 * ty - s.padTop, s.padLeft,
                         tilesWide_, tiles + row * tilesWide_ * inRow_ + b * s.block, inRow_, pointStride);
        }
    }
}

void WinogradConv::transformOutput(const float* products, float* dst, const float* bias, bool residual) const {
    const WinogradShape& s = shape_;
    const int64_t blocks = s.outChannels / s.block, rows = s.batch * tilesHigh_;
    const int64_t plane = s.outHeight * s.outWidth * s.block, pointStride = tiles_ * outRow_;
    static const float zeros[16] = {};
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t row = 0; row < rows; ++row) {
        for (int64_t b = 0; b < blocks; ++b) {
            const int64_t n = row / tilesHigh_, ty = row % tilesHigh_;
            outputTileRow(s.block, products + row * tilesWide_ * outRow_ + b * s.block, outRow_, pointStride,
                          bias ? bias + b * s.block : zeros, residual, slope_, low_, high_,
                          dst + (n * blocks + b) * plane, s.outHeight, s.outWidth, 2 * ty, tilesWide_);
        }
    }
}

void WinogradConv::run(const float* src, float* dst, const float* bias, bool residual) {
    const size_t tileBytes = size_t(kPoints * tiles_ * inRow_) * sizeof(float);
    const size_t productBytes = size_t(kPoints * tiles_ * outRow_) * sizeof(float);
    float* tiles = static_cast<float*>(scratchBuffer(2, tileBytes));
    float* products = static_cast<float*>(scratchBuffer(3, productBytes));
    transformInput(src, tiles);
    tilesMem_.set_data_handle(tiles);
    productsMem_.set_data_handle(products);
    dnnl::stream& s = stream();
    product_.execute(s, {{DNNL_ARG_SRC, tilesMem_}, {DNNL_ARG_WEIGHTS, weightsMem_}, {DNNL_ARG_DST, productsMem_}});
    s.wait();
    transformOutput(products, dst, bias, residual);
}

} // namespace graphlens::onednn
