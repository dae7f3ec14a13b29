// Optimized CPU kernels for element-wise work: activations, binary arithmetic on equal shapes,
// scalars and per-channel operands, and inference BatchNormalization as one scale-and-shift.
// Loops are split across OpenMP threads and compiled for AVX-512, AVX2 and a portable baseline.
#include "core/runtime/cpu/cpu_kernel.h"

#include "core/graph/activation_kinds.h"
#include "core/onnx/schema_defaults.h"
#include "core/runtime/reference/ref_util.h"
#include "core/runtime/cpu/vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace graphlens {
namespace {

constexpr int64_t kParallelThreshold = 1 << 15;  // elements; smaller loops stay on one thread

// ---- activations ------------------------------------------------------------------------------

/// The activation kinds (core/graph/activations.def) these loops compute.
constexpr ActivationId kCpuActivations[] = {
    ActivationId::Relu, ActivationId::LeakyRelu, ActivationId::Sigmoid, ActivationId::Tanh, ActivationId::Clip,
    ActivationId::HardSigmoid, ActivationId::HardSwish, ActivationId::Erf, ActivationId::Sqrt, ActivationId::Neg,
    ActivationId::Abs, ActivationId::Reciprocal,
};

/// One activation with its numbers (Clip: alpha = min, beta = max), or x^2 (Pow by 2).
struct UnaryLoop {
    ActivationId kind = ActivationId::Identity;
    float alpha = 0, beta = 0;
    bool square = false;
};

GRAPHLENS_VECTOR_CLONES
void applyActivation(const float* in, float* out, int64_t n, UnaryLoop p) {
    if (p.square) {
        for (int64_t i = 0; i < n; ++i) out[i] = in[i] * in[i];
        return;
    }
    switch (p.kind) {
    case ActivationId::Relu: for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0; break;
    case ActivationId::LeakyRelu: for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : in[i] * p.alpha; break;
    case ActivationId::Sigmoid: for (int64_t i = 0; i < n; ++i) out[i] = 1.f / (1.f + vectorExp(-in[i])); break;
    case ActivationId::Tanh: for (int64_t i = 0; i < n; ++i) out[i] = std::tanh(in[i]); break;
    case ActivationId::Erf: for (int64_t i = 0; i < n; ++i) out[i] = vectorErf(in[i]); break;
    case ActivationId::Sqrt: for (int64_t i = 0; i < n; ++i) out[i] = std::sqrt(in[i]); break;
    case ActivationId::Neg: for (int64_t i = 0; i < n; ++i) out[i] = -in[i]; break;
    case ActivationId::Abs: for (int64_t i = 0; i < n; ++i) out[i] = std::fabs(in[i]); break;
    case ActivationId::Reciprocal: for (int64_t i = 0; i < n; ++i) out[i] = 1.f / in[i]; break;
    case ActivationId::Clip: for (int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], p.alpha), p.beta); break;
    case ActivationId::HardSigmoid:
        for (int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(p.alpha * in[i] + p.beta, 0.f), 1.f);
        break;
    case ActivationId::HardSwish:
        for (int64_t i = 0; i < n; ++i) out[i] = in[i] * std::min(std::max(in[i] / 6.f + 0.5f, 0.f), 1.f);
        break;
    default: if (out != in) std::memcpy(out, in, size_t(n) * sizeof(float)); break;  // Identity
    }
}

/// Runs `body(begin, end)` over [0, n) in chunks, on all OpenMP threads when n is large.
template <typename Body>
void parallelChunks(int64_t n, Body&& body) {
    if (n < kParallelThreshold) return body(int64_t(0), n);
    const int64_t chunk = 1 << 14;
    const int64_t chunks = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(c * chunk, std::min(n, (c + 1) * chunk));
}

class ActivationKernel final : public PreparedKernel {
public:
    explicit ActivationKernel(UnaryLoop p) : p_(p) {}
    std::string name() const override { return "cpu:activation"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        parallelChunks(in[0]->numel(), [&](int64_t b, int64_t e) { applyActivation(x + b, y + b, e - b, p_); });
    }

private:
    UnaryLoop p_;
};

/// Inputs 0..count-1 are all given (none omitted or absent): these kernels read each of them, and a
/// mutated model can drop one (the reference kernel then refuses the node in a sentence).
bool hasInputs(const NodeDescriptor& info, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (!info.hasInput(i)) return false;
    return true;
}

bool allFloat(const NodeDescriptor& info) {
    for (size_t i = 0; i < info.inputTypes.size(); ++i)
        if (info.hasInput(i) && info.inputTypes[i] != DType::Float) return false;
    for (DType t : info.outputTypes)
        if (t != DType::Float) return false;
    return true;
}

std::unique_ptr<PreparedKernel> prepareActivation(const NodeDescriptor& info) {
    if (!hasInputs(info, 1) || !allFloat(info) || info.outputDims.size() != 1) return nullptr;
    // The loop writes as many values as the input has: a shape the file declares otherwise (an
    // opset-1 Sigmoid, whose schema infers no shape, with a [3,4,5] output of a [16,4,5] input)
    // goes to the reference kernel, which sizes its output itself.
    if (info.inputDims[0] != info.outputDims[0]) return nullptr;
    if (info.node.opType == "Pow") {  // x^2, as decomposed LayerNorm and variance computations write it
        if (!info.constants.at(1) || info.constants[1]->numel() != 1 || info.constants[1]->toDoubles().at(0) != 2.0)
            return nullptr;
        return std::make_unique<ActivationKernel>(UnaryLoop{ActivationId::Identity, 0, 0, true});
    }
    const ActivationKind* kind = activationKindOfOp(info.node.domain, info.node.opType);
    if (!kind || std::find(std::begin(kCpuActivations), std::end(kCpuActivations), kind->id) == std::end(kCpuActivations))
        return nullptr;
    const ActivationParams p = activationParams(*kind, info.attributes());  // Clip: min/max before opset 11
    UnaryLoop loop{kind->id, p[0], p[1]};
    if (kind->id == ActivationId::Clip && info.opset >= 11) {
        for (size_t i : {size_t(1), size_t(2)}) {
            if (!info.hasInput(i)) continue;
            if (!info.constants[i] || info.constants[i]->numel() != 1) return nullptr;  // bounds vary per run
            (i == 1 ? loop.alpha : loop.beta) = info.constants[i]->span<float>()[0];
        }
    }
    return std::make_unique<ActivationKernel>(loop);
}

// ---- binary arithmetic ------------------------------------------------------------------------

enum class BinaryOp { Add, Sub, Mul, Div };

/// How the second operand lines up with the first: same shape, one scalar, or one value per
/// "channel" of an [outer, channels, inner] view of the output.
struct BinaryLayout {
    enum Kind { Same, Scalar, PerChannel } kind = Same;
    bool swapped = false;  ///< the broadcast operand is input 0
    int64_t outer = 1, channels = 1, inner = 1;
};

std::optional<BinaryLayout> matchLayout(const std::vector<int64_t>& full, const std::vector<int64_t>& other) {
    BinaryLayout l;
    if (other == full) return l;
    if (ref::elementCount(other) == 1) {
        l.kind = BinaryLayout::Scalar;
        return l;
    }
    // other, right-aligned against full, must equal it on one run of axes [first, last] and be
    // 1 elsewhere: then it holds one value per "channel" of an [outer, channels, inner] view.
    if (other.size() > full.size()) return std::nullopt;
    const size_t offset = full.size() - other.size();
    int first = -1, last = -1;
    for (size_t i = 0; i < other.size(); ++i) {
        if (other[i] == 1) continue;
        if (other[i] != full[i + offset]) return std::nullopt;
        if (first < 0) first = int(i + offset);
        last = int(i + offset);
    }
    if (first < 0) return std::nullopt;
    for (int axis = first; axis <= last; ++axis)
        if (other[size_t(axis) - offset] != full[size_t(axis)]) return std::nullopt;
    l.kind = BinaryLayout::PerChannel;
    for (int i = 0; i < first; ++i) l.outer *= full[size_t(i)];
    for (int i = first; i <= last; ++i) l.channels *= full[size_t(i)];
    for (size_t i = size_t(last) + 1; i < full.size(); ++i) l.inner *= full[i];
    return l;
}

GRAPHLENS_VECTOR_CLONES
void binaryLoop(const float* a, const float* b, float* y, int64_t n, BinaryOp op, bool scalarB) {
    const float s = scalarB ? b[0] : 0.f;
    switch (op) {
    case BinaryOp::Add: for (int64_t i = 0; i < n; ++i) y[i] = a[i] + (scalarB ? s : b[i]); break;
    case BinaryOp::Sub: for (int64_t i = 0; i < n; ++i) y[i] = a[i] - (scalarB ? s : b[i]); break;
    case BinaryOp::Mul: for (int64_t i = 0; i < n; ++i) y[i] = a[i] * (scalarB ? s : b[i]); break;
    case BinaryOp::Div: for (int64_t i = 0; i < n; ++i) y[i] = a[i] / (scalarB ? s : b[i]); break;
    }
}

/// `b op a` for the swapped scalar / per-channel case where the order matters.
GRAPHLENS_VECTOR_CLONES
void reversedScalarLoop(float s, const float* a, float* y, int64_t n, BinaryOp op) {
    if (op == BinaryOp::Sub) for (int64_t i = 0; i < n; ++i) y[i] = s - a[i];
    else for (int64_t i = 0; i < n; ++i) y[i] = s / a[i];
}

class BinaryKernel final : public PreparedKernel {
public:
    BinaryKernel(BinaryOp op, BinaryLayout layout) : op_(op), layout_(layout) {}
    std::string name() const override { return "cpu:binary"; }
    bool writesInPlace() const override { return !layout_.swapped; }
    /// The full operand, input 1 when swapped (Mul(scale, x)): each element is read before it is
    /// written.
    int inPlaceInput() const override { return layout_.swapped ? 1 : 0; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const Tensor& full = *in[layout_.swapped ? 1 : 0];
        const Tensor& other = *in[layout_.swapped ? 0 : 1];
        const float* a = full.span<float>().data();
        const float* b = other.span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const int64_t n = full.numel();
        if (layout_.kind == BinaryLayout::Same)
            return parallelChunks(n, [&](int64_t s, int64_t e) { binaryLoop(a + s, b + s, y + s, e - s, op_, false); });
        if (layout_.kind == BinaryLayout::Scalar)
            return parallelChunks(n, [&](int64_t s, int64_t e) { apply(a + s, b, y + s, e - s); });
        if (layout_.inner == 1) {  // a vector along the last axis (a bias): one loop per row
            const int64_t width = layout_.channels;
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
            for (int64_t r = 0; r < layout_.outer; ++r) binaryLoop(a + r * width, b, y + r * width, width, op_, false);
            return;
        }
        const int64_t rows = layout_.outer * layout_.channels;
#pragma omp parallel for schedule(static) if (n >= kParallelThreshold)
        for (int64_t r = 0; r < rows; ++r)
            apply(a + r * layout_.inner, b + r % layout_.channels, y + r * layout_.inner, layout_.inner);
    }

private:
    void apply(const float* a, const float* scalar, float* y, int64_t n) const {
        const bool ordered = !layout_.swapped || op_ == BinaryOp::Add || op_ == BinaryOp::Mul;
        if (ordered) binaryLoop(a, scalar, y, n, op_, true);
        else reversedScalarLoop(*scalar, a, y, n, op_);
    }
    BinaryOp op_;
    BinaryLayout layout_;
};

std::unique_ptr<PreparedKernel> prepareBinary(const NodeDescriptor& info) {
    if (!hasInputs(info, 2) || !allFloat(info) || info.inputDims.size() != 2) return nullptr;
    const std::string& op = info.node.opType;
    const BinaryOp kind = op == "Add" ? BinaryOp::Add : op == "Sub" ? BinaryOp::Sub
                        : op == "Mul" ? BinaryOp::Mul : BinaryOp::Div;
    const auto& out = info.outputDims[0];
    if (info.inputDims[0] == out) {
        if (auto l = matchLayout(out, info.inputDims[1])) return std::make_unique<BinaryKernel>(kind, *l);
    } else if (info.inputDims[1] == out) {
        if (auto l = matchLayout(out, info.inputDims[0]); l && l->kind != BinaryLayout::Same) {
            const bool commutative = kind == BinaryOp::Add || kind == BinaryOp::Mul;
            if (l->kind == BinaryLayout::PerChannel && l->inner == 1 && !commutative) return nullptr;
            l->swapped = true;
            return std::make_unique<BinaryKernel>(kind, *l);
        }
    }
    return nullptr;  // general broadcasting: the reference kernel
}

// ---- BatchNormalization (inference) -----------------------------------------------------------

GRAPHLENS_VECTOR_CLONES
void scaleShift(const float* x, float* y, int64_t n, float scale, float shift) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale + shift;
}

class BatchNormKernel final : public PreparedKernel {
public:
    BatchNormKernel(std::vector<float> scale, std::vector<float> shift, int64_t batch, int64_t inner)
        : scale_(std::move(scale)), shift_(std::move(shift)), batch_(batch), inner_(inner) {}
    std::string name() const override { return "cpu:batchnorm"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const int64_t channels = int64_t(scale_.size());
        const int64_t rows = batch_ * channels;
#pragma omp parallel for schedule(static) if (rows * inner_ >= kParallelThreshold)
        for (int64_t r = 0; r < rows; ++r)
            scaleShift(x + r * inner_, y + r * inner_, inner_, scale_[size_t(r % channels)], shift_[size_t(r % channels)]);
    }

private:
    std::vector<float> scale_, shift_;
    int64_t batch_, inner_;
};

std::unique_ptr<PreparedKernel> prepareBatchNorm(const NodeDescriptor& info) {
    std::optional<ChannelAffine> affine = batchNormAffine(info);
    if (!affine) return nullptr;
    const auto& x = info.inputDims[0];
    const int64_t inner = ref::elementCount(x) / (x[0] * x[1]);
    return std::make_unique<BatchNormKernel>(std::move(affine->scale), std::move(affine->shift), x[0], inner);
}

// ---- GlobalAveragePool --------------------------------------------------------------------------

GRAPHLENS_VECTOR_CLONES
float rowMean(const float* x, int64_t n) { return laneSum(x, n) / float(n); }

/// One mean per (batch, channel) row of an [N, C, spatial...] tensor.
class GlobalAveragePoolKernel final : public PreparedKernel {
public:
    GlobalAveragePoolKernel(int64_t rows, int64_t inner) : rows_(rows), inner_(inner) {}
    std::string name() const override { return "cpu:global-average-pool"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
#pragma omp parallel for schedule(static) if (rows_ * inner_ >= kParallelThreshold)
        for (int64_t r = 0; r < rows_; ++r) y[r] = rowMean(x + r * inner_, inner_);
    }

private:
    int64_t rows_, inner_;
};

std::unique_ptr<PreparedKernel> prepareGlobalAveragePool(const NodeDescriptor& info) {
    if (!hasInputs(info, 1) || !allFloat(info) || info.inputDims.size() != 1 || info.inputDims[0].size() < 3) return nullptr;
    const auto& x = info.inputDims[0];
    const int64_t rows = x[0] * x[1];
    if (rows == 0 || ref::elementCount(x) == 0) return nullptr;
    return std::make_unique<GlobalAveragePoolKernel>(rows, ref::elementCount(x) / rows);
}

} // namespace

std::optional<ChannelAffine> batchNormAffine(const NodeDescriptor& info) {
    if (!hasInputs(info, 5) || !allFloat(info) || info.outputDims.size() != 1 || info.inputDims.size() != 5) return std::nullopt;
    if (info.attributes().getInt("training_mode", 0) != 0) return std::nullopt;
    for (size_t i = 1; i < 5; ++i)
        if (!info.constants[i]) return std::nullopt;
    const auto& x = info.inputDims[0];
    if (x.size() < 2) return std::nullopt;
    const int64_t channels = x[1];
    const float eps = floatAttributeOrDefault(info.attributes(), OpKey::of(info.node), info.opset, "epsilon");
    const auto gamma = info.constants[1]->span<float>(), beta = info.constants[2]->span<float>();
    const auto mean = info.constants[3]->span<float>(), var = info.constants[4]->span<float>();
    if (int64_t(gamma.size()) != channels || int64_t(beta.size()) != channels || int64_t(mean.size()) != channels ||
        int64_t(var.size()) != channels)
        return std::nullopt;
    ChannelAffine a{std::vector<float>(size_t(channels)), std::vector<float>(size_t(channels))};
    for (size_t c = 0; c < size_t(channels); ++c) {
        a.scale[c] = gamma[c] / std::sqrt(var[c] + eps);  // k = gamma / sqrt(var + eps)
        a.shift[c] = beta[c] - mean[c] * a.scale[c];      // b = beta - mean * k
    }
    return a;
}

std::unique_ptr<PreparedKernel> prepareCpuActivation(const NodeDescriptor& info) { return prepareActivation(info); }

void registerCpuElementwiseKernels(CpuKernelRegistry& registry) {
    registry.add("GlobalAveragePool", prepareGlobalAveragePool);
    for (ActivationId id : kCpuActivations)
        registry.add(std::string(activationKind(id).name), prepareActivation, std::string(activationKind(id).domain));
    registry.add("Pow", prepareActivation);
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) registry.add(op, prepareBinary);
    registry.add("BatchNormalization", prepareBatchNorm);
}

} // namespace graphlens
