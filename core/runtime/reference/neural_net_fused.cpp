// Reference kernels for ONNX Runtime's fused operators (domain com.microsoft), the oracle for
// what the fusion passes make: FusedConv = activation(Conv(X, W, B) + Z) with the activation's
// numbers in activation_params, and FusedGemm = activation(alpha * A * B + beta * C) with them in
// activation_alpha / activation_beta. Built on the Conv and Gemm reference code.
#include "core/runtime/reference/neural_net_internal.h"

#include "core/graph/activation_kinds.h"
#include "core/runtime/reference/elementwise_internal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace graphlens::nn {
namespace {

using Activation = std::function<double(double)>;

/// The activation named `name` (core/graph/activations.def) with its numbers (NaN or missing: the
/// table's default); the identity for an empty name.
Activation activationNamed(const std::string& name, const std::vector<float>& p) {
    if (name.empty()) return [](double x) { return x; };
    const ActivationKind* kind = activationKindNamed(name);
    if (!kind || !ref::hasActivationValue(kind->id))
        throw KernelError("the fused activation '" + name + "' is not supported");
    return [id = kind->id, params = activationParams(*kind, p)](double x) { return ref::activationValue(id, x, params); };
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
