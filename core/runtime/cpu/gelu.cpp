// Optimized CPU kernels for the GELU family as one pass over the tensor: ONNX Runtime's
// com.microsoft Gelu, BiasGelu, FastGelu and QuickGelu, and ONNX's Gelu (opset 20). A bias
// along the last axis is added in the same loop. Rows are split across OpenMP threads, and the
// loops are compiled for AVX-512, AVX2 and a portable baseline.
#include "core/runtime/cpu/cpu_kernel.h"

#include "core/graph/activation_kinds.h"
#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/ref_util.h"

#include <cmath>
#include <numbers>

namespace graphlens {
namespace {

constexpr int64_t kParallelThreshold = 1 << 15;  // elements; smaller tensors stay on one thread

enum class GeluKind {
    Erf,    ///< x * (1 + erf(x / sqrt(2))) / 2
    Tanh,   ///< x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) / 2 = x * sigmoid(2u)
    Quick,  ///< x * sigmoid(alpha * x)
};

/// y[i] = gelu(x[i]) over n values (y may be x).
GRAPHLENS_VECTOR_CLONES
void geluLoop(const float* x, float* y, int64_t n, GeluKind kind, float alpha) {
    const float invSqrt2 = float(1 / std::numbers::sqrt2), twoK = float(2 * std::sqrt(2 / std::numbers::pi));
    switch (kind) {
    case GeluKind::Erf:
        for (int64_t i = 0; i < n; ++i) y[i] = 0.5f * x[i] * (1.f + vectorErf(x[i] * invSqrt2));
        break;
    case GeluKind::Tanh:  // 0.5 * (1 + tanh(u)) = 1 / (1 + e^(-2u))
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.f + vectorExp(-twoK * (x[i] + 0.044715f * x[i] * x[i] * x[i])));
        break;
    case GeluKind::Quick:
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.f + vectorExp(-alpha * x[i]));
        break;
    }
}

GRAPHLENS_VECTOR_CLONES
void addRow(const float* x, const float* bias, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] + bias[i];
}

class GeluKernel final : public PreparedKernel {
public:
    GeluKernel(GeluKind kind, float alpha, int64_t biasWidth) : kind_(kind), alpha_(alpha), biasWidth_(biasWidth) {}
    std::string name() const override { return "cpu:gelu"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const int64_t n = in[0]->numel();
        if (biasWidth_ == 0) {  // chunks of the flat tensor
            const int64_t chunk = 1 << 14, chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
            for (int64_t c = 0; c < chunks; ++c)
                geluLoop(x + c * chunk, y + c * chunk, std::min(chunk, n - c * chunk), kind_, alpha_);
            return;
        }
        const float* b = in[1]->span<float>().data();
        const int64_t rows = n / biasWidth_;
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
        for (int64_t r = 0; r < rows; ++r) {  // x + bias, then the GELU over the row while it is in cache
            addRow(x + r * biasWidth_, b, y + r * biasWidth_, biasWidth_);
            geluLoop(y + r * biasWidth_, y + r * biasWidth_, biasWidth_, kind_, alpha_);
        }
    }

private:
    GeluKind kind_;
    float alpha_;
    int64_t biasWidth_;  ///< 0: no bias; else the bias's length, the input's last axis
};

/// Which GELU `node` computes; nullopt for a node this file does not know.
std::optional<GeluKind> kindOf(const NodeDescriptor& info) {
    const std::string& op = info.node.opType;
    const bool microsoft = info.node.domain == "com.microsoft";
    if (op == "QuickGelu" && microsoft) return GeluKind::Quick;
    if (op == "FastGelu" && microsoft) return GeluKind::Tanh;
    if (op == "BiasGelu" && microsoft) return GeluKind::Erf;
    if (op != "Gelu") return std::nullopt;
    // Not from the schema: Debian's libonnx (1.12) predates Gelu (opset 20).
    const std::string approximate = microsoft ? "none" : info.attributes().getString("approximate", "none");
    if (approximate == "none") return GeluKind::Erf;
    if (approximate == "tanh") return GeluKind::Tanh;
    return std::nullopt;
}

std::unique_ptr<PreparedKernel> prepareGelu(const NodeDescriptor& info) {
    auto kind = kindOf(info);
    if (!kind || info.outputDims.size() != 1 || info.outputTypes[0] != DType::Float) return nullptr;
    if (info.inputTypes.empty() || info.inputTypes[0] != DType::Float || info.inputDims[0] != info.outputDims[0])
        return nullptr;
    const auto& dims = info.inputDims[0];
    int64_t biasWidth = 0;
    if (info.hasInput(1)) {  // BiasGelu's and FastGelu's bias: one value per position of the last axis
        const auto& b = info.inputDims[1];
        if (info.inputTypes[1] != DType::Float || dims.empty() || ref::elementCount(b) != dims.back() || b.empty() ||
            b.back() != dims.back() || dims.back() == 0)
            return nullptr;  // another broadcast: the reference kernel
        biasWidth = dims.back();
    } else if (info.node.opType == "BiasGelu") {
        return nullptr;
    }
    const float alpha = activationParams(activationKind(ActivationId::QuickGelu), info.attributes())[0];
    return std::make_unique<GeluKernel>(*kind, alpha, biasWidth);
}

} // namespace

void registerCpuGeluKernels(CpuKernelRegistry& registry) {
    registry.add("Gelu", prepareGelu);  // ONNX's, opset 20
    for (const char* op : {"Gelu", "BiasGelu", "FastGelu", "QuickGelu"}) registry.add(op, prepareGelu, "com.microsoft");
}

} // namespace graphlens
