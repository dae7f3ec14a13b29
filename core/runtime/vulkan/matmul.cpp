// MatMul (numpy batching and broadcasting, up to 3 batch dims), Gemm, com.microsoft FusedGemm and
// FusedMatMul on the GPU, with Gemm's alpha, beta * C and a fused activation. GPUs run one tiled
// shader (matmul.comp) that reads A and B through strides, so transposes and broadcast batches cost
// nothing; CPU devices run gemm_texel.comp (texel_gemm.h) on operands packed along k, the packing
// reading the same strides.
#include "core/runtime/vulkan/ops.h"
#include "core/runtime/vulkan/texel_gemm.h"

#include <limits>

namespace graphlens::vk {
namespace {

struct Product {
    int64_t m = 1, n = 1, k = 1;
    int64_t asm_ = 0, ask = 0, bsk = 0, bsn = 0;
    std::array<int64_t, 3> batch{1, 1, 1}, sa{0, 0, 0}, sb{0, 0, 0};
    float alpha = 1, beta = 0;
    bool bias = false;
    int64_t csm = 0, csn = 0;
    ActivationCode act;
};

/// matmul.comp: 64x64 tiles through shared memory.
std::optional<NodeProgram> tiledProduct(const Product& p, bool hasBias, const DeviceTraits& device) {
    Constants c;
    c.i(p.m).i(p.n).i(p.k).i(p.asm_).i(p.ask).i(p.bsk).i(p.bsn);
    for (int64_t v : p.batch) c.i(v);
    for (int64_t v : p.sa) c.i(v);
    for (int64_t v : p.sb) c.i(v);
    c.f(p.alpha).f(p.beta).i(hasBias).i(p.csm).i(p.csn).i(p.act.op).f(p.act.alpha).f(p.act.beta);
    const std::array<uint32_t, 3> tiles{uint32_t((p.n + 63) / 64), uint32_t((p.m + 63) / 64),
                                        uint32_t(p.batch[0] * p.batch[1] * p.batch[2])};
    if (device.maxInvocations < 256 || !fitsGroups(device, tiles)) return std::nullopt;
    Dispatch d{"matmul", c.take(),
               {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1),
                hasBias ? TensorRef::input(2) : TensorRef::none()},
               tiles};
    return NodeProgram{"vulkan:matmul", {d}};
}

/// One operand of a texel product as a MatrixPacking of `rows` x k.
MatrixPacking operandPacking(const Product& p, int64_t rows, int64_t rowStride, int64_t kStride,
                             const std::array<int64_t, 3>& batchStrides, int64_t interleave) {
    MatrixPacking m;
    m.rows = rows, m.k = p.k, m.interleave = interleave, m.rowStride = rowStride, m.kStride = kStride;
    if (batchStrides != std::array<int64_t, 3>{0, 0, 0}) m.batch = p.batch, m.batchStride = batchStrides;
    return m;
}

/// gemm_texel.comp (texel_gemm.h). Positions are the rows of A, channels the columns of B; for a
/// product of few rows (a matrix-vector product) the roles swap, Y^T = B^T A^T, so the lanes have
/// work. A constant operand is packed at plan time, an activation by matrix_pack.comp.
std::optional<NodeProgram> texelProduct(const Product& p, bool hasBias, const NodeShapes& s) {
    const bool swap = p.m < 2 * kTexelChannels && p.n > p.m;
    const int64_t positions = swap ? p.n : p.m, channels = swap ? p.m : p.n;
    // Operand 0 of the packing is the lane side (A unless swapped), operand 1 the channel side.
    const std::array<int, 2> input{swap ? 1 : 0, swap ? 0 : 1};
    const std::array<MatrixPacking, 2> packing{
        swap ? operandPacking(p, p.n, p.bsn, p.bsk, p.sb, 1) : operandPacking(p, p.m, p.asm_, p.ask, p.sa, 1),
        swap ? operandPacking(p, p.m, p.asm_, p.ask, p.sa, kTexelChannels)
             : operandPacking(p, p.n, p.bsn, p.bsk, p.sb, kTexelChannels)};
    TexelGemm g;
    g.k4 = packing[0].k4();
    g.outer = p.batch[0] * p.batch[1] * p.batch[2], g.inner = positions;
    g.aOuter = packing[0].batch == std::array<int64_t, 3>{1, 1, 1} ? 0 : positions * g.k4, g.aRow = g.k4;
    g.m = channels, g.bPerOuter = packing[1].batch != std::array<int64_t, 3>{1, 1, 1};
    g.yOuter = p.m * p.n, g.yInner = swap ? 1 : p.n, g.yChannel = swap ? p.n : 1;
    g.bias = hasBias, g.biasChannel = swap ? p.csm : p.csn, g.biasInner = swap ? p.csn : p.csm;
    g.alpha = p.alpha, g.beta = p.beta, g.act = p.act;
    NodeProgram program{"vulkan:matmul-texel", {}};
    std::array<TensorRef, 2> operand;
    for (size_t side = 0; side < 2; ++side) {
        if (uint64_t(packing[side].texels()) > s.device.maxTexels) return std::nullopt;
        if (const Tensor* constant = s.constants[size_t(input[side])]) {
            operand[side] = TensorRef::packed(int(program.packed.size()));
            program.packed.push_back(packMatrix(packing[side], *constant));
            continue;
        }
        operand[side] = TensorRef::scratch(int(program.scratch.size()));
        auto pack = matrixPackDispatch(packing[side], TensorRef::input(input[side]), operand[side], s.device);
        if (!pack) return std::nullopt;
        program.dispatches.push_back(std::move(*pack));
        program.scratch.push_back(texelBytes(packing[side].texels()));
    }
    auto product = texelGemmDispatch(g, operand[0], operand[1], hasBias ? TensorRef::input(2) : TensorRef::none(),
                                     TensorRef::none(), s.device);
    if (!product) return std::nullopt;
    product->waits = !program.dispatches.empty();
    program.dispatches.push_back(std::move(*product));
    return program;
}

std::optional<NodeProgram> programOf(const Product& p, bool hasBias, const NodeShapes& s) {
    if (s.device.products == ProductKernels::TexelTiles)
        if (auto program = texelProduct(p, hasBias, s)) return program;
    return tiledProduct(p, hasBias, s.device);
}

std::optional<NodeProgram> matmul(const NodeShapes& s) {
    if (!s.floatInput(0) || !s.floatInput(1) || s.outputTypes.at(0) != DType::Float || s.inputDims.size() != 2)
        return std::nullopt;
    const Attributes& attrs = s.attributes();
    const bool fused = s.node.opType == "FusedMatMul";
    if (fused && (attrs.getInt("transBatchA", 0) || attrs.getInt("transBatchB", 0))) return std::nullopt;
    const bool transA = fused && attrs.getInt("transA", 0), transB = fused && attrs.getInt("transB", 0);
    std::vector<int64_t> a = s.inputDims[0], b = s.inputDims[1];
    if (a.empty() || b.empty()) return std::nullopt;
    if (a.size() == 1) a.insert(transA ? a.end() : a.begin(), 1);
    if (b.size() == 1) b.insert(transB ? b.begin() : b.end(), 1);
    Product p;
    p.m = transA ? a[a.size() - 1] : a[a.size() - 2];
    p.k = transA ? a[a.size() - 2] : a[a.size() - 1];
    p.n = transB ? b[b.size() - 2] : b[b.size() - 1];
    if ((transB ? b[b.size() - 1] : b[b.size() - 2]) != p.k) return std::nullopt;
    p.asm_ = transA ? 1 : p.k;
    p.ask = transA ? p.m : 1;
    p.bsk = transB ? 1 : p.n;
    p.bsn = transB ? p.k : 1;
    p.alpha = fused ? attrs.getFloat("alpha", 1.0f) : 1.0f;
    const size_t batchRank = std::max(a.size(), b.size()) - 2;
    if (batchRank > 3) return std::nullopt;
    auto batchStrides = [&](const std::vector<int64_t>& d, std::array<int64_t, 3>& strides) {
        int64_t stride = d[d.size() - 1] * d[d.size() - 2];
        for (size_t i = d.size() - 2, slot = 3; i-- > 0;) {
            --slot;
            strides[slot] = d[i] == 1 ? 0 : stride;
            p.batch[slot] = std::max(p.batch[slot], d[i]);
            stride *= d[i];
        }
    };
    batchStrides(a, p.sa);
    batchStrides(b, p.sb);
    if (p.batch[0] * p.batch[1] * p.batch[2] * p.m * p.n != numel(s.outputDims[0])) return std::nullopt;
    return programOf(p, false, s);
}

std::optional<NodeProgram> gemm(const NodeShapes& s) {
    if (!s.floatInput(0) || !s.floatInput(1) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    const auto& a = s.inputDims[0];
    const auto& b = s.inputDims[1];
    if (a.size() != 2 || b.size() != 2) return std::nullopt;
    const Attributes& attrs = s.attributes();
    const bool transA = attrs.getInt("transA", 0), transB = attrs.getInt("transB", 0);
    Product p;
    p.m = transA ? a[1] : a[0];
    p.k = transA ? a[0] : a[1];
    p.n = transB ? b[0] : b[1];
    if ((transB ? b[1] : b[0]) != p.k) return std::nullopt;
    p.asm_ = transA ? 1 : p.k;
    p.ask = transA ? p.m : 1;
    p.bsk = transB ? 1 : p.n;
    p.bsn = transB ? p.k : 1;
    p.alpha = attrs.getFloat("alpha", 1.0f);
    p.beta = attrs.getFloat("beta", 1.0f);
    const bool hasBias = s.hasInput(2);
    if (hasBias) {
        const auto& c = s.inputDims[2];
        if (!s.floatInput(2) || c.size() > 2) return std::nullopt;
        const int64_t cm = c.size() == 2 ? c[0] : 1, cn = c.empty() ? 1 : c.back();
        if ((cm != 1 && cm != p.m) || (cn != 1 && cn != p.n)) return std::nullopt;
        p.csm = cm == 1 ? 0 : cn;
        p.csn = cn == 1 ? 0 : 1;
    }
    if (s.node.opType == "FusedGemm") {
        const float missing = std::numeric_limits<float>::quiet_NaN();
        const auto act = activationCode(attrs.getString("activation"),
                                        {attrs.getFloat("activation_alpha", missing), attrs.getFloat("activation_beta", missing)});
        if (!act) return std::nullopt;
        p.act = *act;
    }
    if (p.m * p.n != numel(s.outputDims[0])) return std::nullopt;
    return programOf(p, hasBias, s);
}

} // namespace

void registerMatMulOps(VulkanOpRegistry& registry) {
    registry.add("MatMul", matmul);
    registry.add("FusedMatMul", matmul, "com.microsoft");
    registry.add("Gemm", gemm);
    registry.add("FusedGemm", gemm, "com.microsoft");
}

} // namespace graphlens::vk
