// Reference kernels for ONNX Runtime's fused operators (domain com.microsoft), the oracle for
// what the fusion passes make: FusedConv = activation(Conv(X, W, B) + Z) with the activation's
// numbers in activation_params, and FusedGemm = activation(alpha * A * B + beta * C) with them in
// activation_alpha / activation_beta. Built on the Conv and Gemm reference code.
#include "core/runtime/reference/neural_net_internal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace graphlens::nn {
namespace {

using Activation = std::function<double(double)>;

/// Parameter `i` of `p`, or `fallback` when it is missing (or NaN: not given).
double param(const std::vector<float>& p, size_t i, double fallback) {
    return i < p.size() && !std::isnan(p[i]) ? double(p[i]) : fallback;
}

double hardSigmoidOf(double x, double alpha, double beta) { return std::max(0.0, std::min(1.0, alpha * x + beta)); }

/// The activation named `name` with its numbers (LeakyRelu: alpha; HardSigmoid: alpha, beta;
/// Clip: min, max; Elu: alpha); the identity for an empty name.
Activation activationNamed(const std::string& name, const std::vector<float>& p) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (name.empty()) return [](double x) { return x; };
    if (name == "Relu") return [](double x) { return x < 0 ? 0.0 : x; };
    if (name == "Sigmoid") return [](double x) { return 1 / (1 + std::exp(-x)); };
    if (name == "Tanh") return [](double x) { return std::tanh(x); };
    if (name == "HardSwish") return [](double x) { return x * hardSigmoidOf(x, 1.0 / 6, 0.5); };
    if (name == "QuickGelu") {  // x * sigmoid(alpha * x)
        const double alpha = p.empty() ? 1.702 : p[0];
        return [alpha](double x) { return x / (1 + std::exp(-alpha * x)); };
    }
    if (name == "LeakyRelu") return [a = param(p, 0, 0.01)](double x) { return x < 0 ? a * x : x; };
    if (name == "Elu") return [a = param(p, 0, 1.0)](double x) { return x < 0 ? a * (std::exp(x) - 1) : x; };
    if (name == "HardSigmoid")
        return [a = param(p, 0, 0.2), b = param(p, 1, 0.5)](double x) { return hardSigmoidOf(x, a, b); };
    if (name == "Clip")
        return [lo = param(p, 0, -inf), hi = param(p, 1, inf)](double x) {
            return std::isnan(x) ? x : std::min(std::max(x, lo), hi);
        };
    throw KernelError("the fused activation '" + name + "' is not supported");
}

std::vector<float> floatsNamed(const Attributes& a, const char* name) {
    const Attribute* found = a.find(name);
    if (found && found->holds<std::vector<float>>()) return found->get<std::vector<float>>();
    if (found && found->holds<float>()) return {found->get<float>()};
    return {};
}

} // namespace

void fusedConv(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    ConvShapes s;
    std::vector<double> y = convValues(ctx, s);
    const std::vector<int64_t> dims = convOutputDims(s);
    if (ctx.hasInput(3)) {
        const Tensor& z = ctx.input(3);
        if (z.dims() != dims)
            throw KernelError("Z " + ref::dimsText(z.dims()) + " must have the output's shape " + ref::dimsText(dims));
        const std::vector<double> zs = doublesOf(z);
        for (size_t i = 0; i < y.size(); ++i) y[i] += zs[i];
    }
    const Activation f = activationNamed(a.getString("activation"), floatsNamed(a, "activation_params"));
    for (double& v : y) v = f(v);
    ctx.setOutput(0, tensorOfDoubles(ctx.input(0).dtype(), dims, y));
}

void fusedGemm(KernelContext& ctx) {
    const Attributes& a = ctx.attributes();
    int64_t m = 0, n = 0;
    std::vector<double> y = gemmValues(ctx, m, n);
    const float missing = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> params{a.getFloat("activation_alpha", missing), a.getFloat("activation_beta", missing)};
    const Activation f = activationNamed(a.getString("activation"), params);
    for (double& v : y) v = f(v);
    ctx.setOutput(0, tensorOfDoubles(ctx.input(0).dtype(), {m, n}, y));
}

} // namespace graphlens::nn
