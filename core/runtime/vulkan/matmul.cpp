// MatMul (numpy batching and broadcasting, up to 3 batch dims), Gemm, com.microsoft FusedGemm and
// FusedMatMul on the GPU: one tiled shader (matmul.comp) that reads A and B through strides, so
// transposes and broadcast batches cost nothing, with Gemm's alpha, beta * C and a fused activation
// (matmul_rows.comp on CPU devices).
#include "core/runtime/vulkan/ops.h"

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

NodeProgram programOf(const Product& p, bool hasBias, bool rows) {
    Constants c;
    c.i(p.m).i(p.n).i(p.k).i(p.asm_).i(p.ask).i(p.bsk).i(p.bsn);
    for (int64_t v : p.batch) c.i(v);
    for (int64_t v : p.sa) c.i(v);
    for (int64_t v : p.sb) c.i(v);
    c.f(p.alpha).f(p.beta).i(hasBias).i(p.csm).i(p.csn).i(p.act.op).f(p.act.alpha).f(p.act.beta);
    const std::array<uint32_t, 3> tiles{uint32_t((p.n + 63) / 64), uint32_t((p.m + (rows ? 15 : 63)) / (rows ? 16 : 64)),
                                        uint32_t(p.batch[0] * p.batch[1] * p.batch[2])};
    Dispatch d{rows ? "matmul_rows" : "matmul", c.take(),
               {TensorRef::output(0), TensorRef::input(0), TensorRef::input(1),
                hasBias ? TensorRef::input(2) : TensorRef::none()},
               tiles};
    return {rows ? "vulkan:matmul-rows" : "vulkan:matmul", {d}};
}

bool fitsDispatch(const Product& p) {
    return (p.n + 63) / 64 <= 65535 && (p.m + 15) / 16 <= 65535 && p.batch[0] * p.batch[1] * p.batch[2] <= 65535;
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
    if (p.batch[0] * p.batch[1] * p.batch[2] * p.m * p.n != numel(s.outputDims[0]) || !fitsDispatch(p)) return std::nullopt;
    return programOf(p, false, s.preferRows);
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
    if (p.m * p.n != numel(s.outputDims[0]) || !fitsDispatch(p)) return std::nullopt;
    return programOf(p, hasBias, s.preferRows);
}

} // namespace

void registerMatMulOps(VulkanOpRegistry& registry) {
    registry.add("MatMul", matmul);
    registry.add("FusedMatMul", matmul, "com.microsoft");
    registry.add("Gemm", gemm);
    registry.add("FusedGemm", gemm, "com.microsoft");
}

} // namespace graphlens::vk
