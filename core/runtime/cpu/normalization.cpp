// An optimized CPU kernel for InstanceNormalization on float [N, C, spatial...] tensors: every
// (n, c) plane is normalized by its own mean and variance (accumulated in double, two passes, as
// the reference does), then scaled and shifted per channel. One plane per task.
#include "core/runtime/cpu/cpu_kernel.h"

#include "core/onnx/schema_defaults.h"
#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/ref_util.h"

#include <cmath>

namespace graphlens {
namespace {

/// Sum of the n distances x[i] - center (or of their squares), in 8 double lanes.
template <bool Squared>
GRAPHLENS_VECTOR_CLONES double laneSumDouble(const float* x, int64_t n, double center) {
    double lanes[8] = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) {
            const double d = double(x[i + k]) - center;
            lanes[k] += Squared ? d * d : d;
        }
    double sum = 0;
    for (; i < n; ++i) {
        const double d = double(x[i]) - center;
        sum += Squared ? d * d : d;
    }
    for (double lane : lanes) sum += lane;
    return sum;
}

/// y = (x - mean) * k + bias over one plane.
GRAPHLENS_VECTOR_CLONES
void normalizePlane(const float* x, float* y, int64_t n, float mean, float k, float bias) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * k + bias;
}

class InstanceNormKernel final : public PreparedKernel {
public:
    InstanceNormKernel(int64_t batch, int64_t channels, int64_t inner, float epsilon)
        : batch_(batch), channels_(channels), inner_(inner), epsilon_(epsilon) {}
    std::string name() const override { return "cpu:instance-norm"; }
    bool writesInPlace() const override { return true; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        const float* scale = in[1]->span<float>().data();
        const float* bias = in[2]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const int64_t planes = batch_ * channels_;
#pragma omp parallel for schedule(static) if (planes * inner_ >= (1 << 15) && planes > 1)
        for (int64_t p = 0; p < planes; ++p) {
            const float* src = x + p * inner_;
            const double mean = laneSumDouble<false>(src, inner_, 0.0) / double(inner_);
            const double variance = laneSumDouble<true>(src, inner_, mean) / double(inner_);
            const double invStd = 1.0 / std::sqrt(variance + double(epsilon_));
            const int64_t c = p % channels_;
            normalizePlane(src, y + p * inner_, inner_, float(mean), float(double(scale[c]) * invStd), bias[c]);
        }
    }

private:
    int64_t batch_, channels_, inner_;
    float epsilon_;
};

std::unique_ptr<PreparedKernel> prepareInstanceNorm(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 3 || info.outputTypes.size() != 1) return nullptr;
    for (DType t : info.inputTypes)
        if (t != DType::Float) return nullptr;
    const auto& x = info.inputDims[0];
    if (x.size() < 2 || info.outputDims[0] != x) return nullptr;
    const int64_t channels = x[1];
    if (ref::elementCount(info.inputDims[1]) != channels || ref::elementCount(info.inputDims[2]) != channels)
        return nullptr;
    const int64_t count = ref::elementCount(x);
    if (count == 0) return nullptr;
    const int64_t inner = count / (x[0] * channels);
    return std::make_unique<InstanceNormKernel>(x[0], channels, inner, floatAttributeOrDefault(info.attributes(), OpKey::of(info.node), info.opset, "epsilon"));
}

} // namespace

void registerCpuNormalizationKernels(CpuKernelRegistry& registry) {
    registry.add("InstanceNormalization", prepareInstanceNorm);
}

} // namespace graphlens
