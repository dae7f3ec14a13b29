// Reference kernels: activation functions of the elementwise family (Relu and its variants,
// Sigmoid, Tanh, Softplus, Gelu and ONNX Runtime's Gelu forms, ...) and Clip.
#include "core/runtime/reference/elementwise_internal.h"

#include "core/graph/activation_kinds.h"

#include <cmath>
#include <numbers>

namespace graphlens {
namespace {

using namespace ref;

float floatAttr(const KernelContext& ctx, const char* name, float fallback) {
    return ctx.attributes().getFloat(name, fallback);
}

/// The node's numbers for activation `id` (activations.def), the table's defaults where absent.
ActivationParams paramsOf(const KernelContext& ctx, ActivationId id) {
    return activationParams(activationKind(id), ctx.attributes());
}

void relu(KernelContext& ctx) {
    ctx.setOutput(0, mapNumeric(ctx.input(0), "Relu", [](auto x) {
        using T = decltype(x);
        return x < T(0) ? T(0) : x;
    }));
}

void leakyRelu(KernelContext& ctx) {
    const double alpha = paramsOf(ctx, ActivationId::LeakyRelu)[0];
    ctx.setOutput(0, mapFloating(ctx.input(0), "LeakyRelu", [&](auto x) { return x < 0 ? alpha * x : x; }));
}

void elu(KernelContext& ctx) {
    const double alpha = paramsOf(ctx, ActivationId::Elu)[0];
    ctx.setOutput(0, mapFloating(ctx.input(0), "Elu", [&](auto x) {
        return x < 0 ? alpha * (std::exp(double(x)) - 1) : double(x);
    }));
}

void selu(KernelContext& ctx) {
    const auto params = paramsOf(ctx, ActivationId::Selu);
    const double alpha = params[0], gamma = params[1];
    ctx.setOutput(0, mapFloating(ctx.input(0), "Selu", [&](auto x) {
        return x <= 0 ? gamma * (alpha * std::exp(double(x)) - alpha) : gamma * x;
    }));
}

void celu(KernelContext& ctx) {
    const double alpha = paramsOf(ctx, ActivationId::Celu)[0];
    if (alpha == 0) throw KernelError("Celu needs a nonzero alpha");
    ctx.setOutput(0, mapFloating(ctx.input(0), "Celu", [&](auto x) {
        return std::max(0.0, double(x)) + std::min(0.0, alpha * (std::exp(x / alpha) - 1));
    }));
}

void sigmoid(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "Sigmoid", [](auto x) { return 1 / (1 + std::exp(-double(x))); }));
}

double hardSigmoidOf(double x, double alpha, double beta) {
    return std::max(0.0, std::min(1.0, alpha * x + beta));
}

void hardSigmoid(KernelContext& ctx) {
    const auto params = paramsOf(ctx, ActivationId::HardSigmoid);
    const double alpha = params[0], beta = params[1];
    ctx.setOutput(0, mapFloating(ctx.input(0), "HardSigmoid",
                                 [&](auto x) { return hardSigmoidOf(x, alpha, beta); }));
}

void hardSwish(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "HardSwish",
                                 [](auto x) { return x * hardSigmoidOf(x, 1.0 / 6, 0.5); }));
}

/// log(1 + e^x) without overflow.
double softplusOf(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }

void softplus(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "Softplus", [](auto x) { return softplusOf(x); }));
}

void softsign(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "Softsign", [](auto x) { return x / (1 + std::fabs(x)); }));
}

void tanhOp(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "Tanh", [](auto x) { return std::tanh(x); }));
}

void thresholdedRelu(KernelContext& ctx) {
    const double alpha = paramsOf(ctx, ActivationId::ThresholdedRelu)[0];
    ctx.setOutput(0, mapFloating(ctx.input(0), "ThresholdedRelu",
                                 [&](auto x) { return x > alpha ? double(x) : 0.0; }));
}

void mish(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(ctx.input(0), "Mish", [](auto x) { return x * std::tanh(softplusOf(x)); }));
}

void shrink(KernelContext& ctx) {
    const double lambd = floatAttr(ctx, "lambd", 0.5f);
    const double bias = floatAttr(ctx, "bias", 0.0f);
    ctx.setOutput(0, mapNumeric(ctx.input(0), "Shrink", [&](auto x) {
        const double v = double(x);
        return convertValue<decltype(x)>(v < -lambd ? v + bias : (v > lambd ? v - bias : 0.0));
    }));
}

double geluErf(double x) { return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2)); }

double geluTanh(double x) {
    const double k = std::sqrt(2 / std::numbers::pi);
    return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

void gelu(KernelContext& ctx) {
    // Not from the schema: Debian's libonnx (1.12) predates Gelu (opset 20).
    const std::string approximate = ctx.attributes().getString("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
        throw KernelError("Gelu's approximate must be 'none' or 'tanh', not '" + approximate + "'");
    const bool useTanh = approximate == "tanh";
    ctx.setOutput(0, mapFloating(ctx.input(0), "Gelu",
                                 [&](auto x) { return useTanh ? geluTanh(x) : geluErf(x); }));
}

/// x + bias (broadcast) when the bias input `i` is present, else x.
Tensor withBias(const KernelContext& ctx, size_t i, const std::string& op) {
    if (!ctx.hasInput(i)) return ctx.input(0);
    return binaryNumeric(ctx.input(0), ctx.input(i), op, [](auto x, auto b) { return x + b; });
}

void fastGelu(KernelContext& ctx) {
    ctx.setOutput(0, mapFloating(withBias(ctx, 1, "FastGelu"), "FastGelu", [](auto x) { return geluTanh(x); }));
}

void biasGelu(KernelContext& ctx) {
    ctx.input(1);  // required
    ctx.setOutput(0, mapFloating(withBias(ctx, 1, "BiasGelu"), "BiasGelu", [](auto x) { return geluErf(x); }));
}

/// com.microsoft QuickGelu: x * sigmoid(alpha * x), alpha as ONNX Runtime's schema defaults it.
void quickGelu(KernelContext& ctx) {
    const double alpha = paramsOf(ctx, ActivationId::QuickGelu)[0];
    ctx.setOutput(0, mapFloating(ctx.input(0), "QuickGelu", [&](auto x) { return x / (1 + std::exp(-alpha * x)); }));
}

/// A Clip bound: an attribute before opset 11, else the optional scalar input `i`.
template <typename T>
T clipBound(const KernelContext& ctx, size_t i, const char* attr, T fallback) {
    if (ctx.opset() < 11) {
        const Attribute* a = ctx.attributes().find(attr);
        return a && a->holds<float>() ? convertValue<T>(a->get<float>()) : fallback;
    }
    if (!ctx.hasInput(i)) return fallback;
    const Tensor& b = ctx.input(i);
    if (b.numel() != 1) throw KernelError("the Clip bounds must hold exactly one element");
    if (b.dtype() == dtypeOf<T>()) return dataOf<T>(b)[0];
    const std::vector<double> v = b.toDoubles();
    if (v.size() != 1) throw KernelError("the Clip bounds must be numbers");
    return convertValue<T>(v[0]);
}

Tensor clipTensor(const KernelContext& ctx, const Tensor& x) {
    if (isHalfType(x.dtype())) return fromFloat(clipTensor(ctx, toFloat(x)), x.dtype());
    Tensor out;
    visitNumeric(x.dtype(), "Clip", [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>) {
            throw KernelError("Clip does not support the element type bool");
        } else {
            using Limits = std::numeric_limits<T>;
            const T lo = clipBound<T>(ctx, 1, "min", Limits::has_infinity ? -Limits::infinity() : Limits::lowest());
            const T hi = clipBound<T>(ctx, 2, "max", Limits::has_infinity ? Limits::infinity() : Limits::max());
            out = mapElements<T, T>(x, x.dtype(), [&](T v) {
                if constexpr (std::is_floating_point_v<T>)
                    if (std::isnan(v)) return v;
                return std::min(std::max(v, lo), hi);
            });
        }
    });
    return out;
}

void clip(KernelContext& ctx) { ctx.setOutput(0, clipTensor(ctx, ctx.input(0))); }

} // namespace

namespace ref {

bool hasActivationValue(ActivationId id) {
    switch (id) {
    case ActivationId::Identity: case ActivationId::Relu: case ActivationId::Sigmoid: case ActivationId::Tanh:
    case ActivationId::LeakyRelu: case ActivationId::Clip: case ActivationId::HardSigmoid:
    case ActivationId::HardSwish: case ActivationId::Elu: case ActivationId::QuickGelu: case ActivationId::Selu:
    case ActivationId::Celu: case ActivationId::ThresholdedRelu: case ActivationId::Softplus:
    case ActivationId::Softsign: case ActivationId::Mish: case ActivationId::Gelu: case ActivationId::FastGelu:
        return true;
    default:
        return false;
    }
}

double activationValue(ActivationId id, double x, const ActivationParams& p) {
    const double a = p[0], b = p[1];
    switch (id) {
    case ActivationId::Relu: return x < 0 ? 0.0 : x;
    case ActivationId::Sigmoid: return 1 / (1 + std::exp(-x));
    case ActivationId::Tanh: return std::tanh(x);
    case ActivationId::LeakyRelu: return x < 0 ? a * x : x;
    case ActivationId::Clip: return std::isnan(x) ? x : std::min(std::max(x, a), b);
    case ActivationId::HardSigmoid: return hardSigmoidOf(x, a, b);
    case ActivationId::HardSwish: return x * hardSigmoidOf(x, 1.0 / 6, 0.5);
    case ActivationId::Elu: return x < 0 ? a * (std::exp(x) - 1) : x;
    case ActivationId::QuickGelu: return x / (1 + std::exp(-a * x));
    case ActivationId::Selu: return x <= 0 ? b * (a * std::exp(x) - a) : b * x;
    case ActivationId::Celu: return std::max(0.0, x) + std::min(0.0, a * (std::exp(x / a) - 1));
    case ActivationId::ThresholdedRelu: return x > a ? x : 0.0;
    case ActivationId::Softplus: return softplusOf(x);
    case ActivationId::Softsign: return x / (1 + std::fabs(x));
    case ActivationId::Mish: return x * std::tanh(softplusOf(x));
    case ActivationId::Gelu: return geluErf(x);
    case ActivationId::FastGelu: return geluTanh(x);
    default: return x;  // Identity
    }
}

void registerActivationKernels(KernelRegistry& registry) {
    registry.add("Relu", relu);
    registry.add("LeakyRelu", leakyRelu);
    registry.add("Elu", elu);
    registry.add("Selu", selu);
    registry.add("Celu", celu);
    registry.add("Sigmoid", sigmoid);
    registry.add("HardSigmoid", hardSigmoid);
    registry.add("HardSwish", hardSwish);
    registry.add("Softplus", softplus);
    registry.add("Softsign", softsign);
    registry.add("Tanh", tanhOp);
    registry.add("ThresholdedRelu", thresholdedRelu);
    registry.add("Mish", mish);
    registry.add("Shrink", shrink);
    registry.add("Gelu", gelu);
    registry.add("Gelu", gelu, "com.microsoft");
    registry.add("FastGelu", fastGelu, "com.microsoft");
    registry.add("BiasGelu", biasGelu, "com.microsoft");
    registry.add("QuickGelu", quickGelu, "com.microsoft");
    registry.add("Clip", clip);
}

} // namespace ref
} // namespace graphlens
