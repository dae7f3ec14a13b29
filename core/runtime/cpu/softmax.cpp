// Optimized CPU kernels over the last axis (attention scores, transformer activations): Softmax,
// LayerNormalization and com.microsoft SkipLayerNormalization, ReduceMean/ReduceSum; one row per task, in vectorizable loops.
#include "core/runtime/cpu/cpu_kernel.h"

#include "core/onnx/schema_defaults.h"
#include "core/runtime/cpu/vector_math.h"

#include <cmath>

namespace graphlens {
namespace {

/// softmax(x) = exp(x - max) / sum(exp(x - max)) over one row; log form when `logSoftmax`.
GRAPHLENS_VECTOR_CLONES
void softmaxRow(const float* x, float* y, int64_t n, bool logSoftmax) {
    float max = x[0];
    for (int64_t i = 1; i < n; ++i) max = std::max(max, x[i]);
    for (int64_t i = 0; i < n; ++i) y[i] = vectorExp(x[i] - max);
    const float sum = laneSum(y, n);
    if (logSoftmax) {
        const float logSum = std::log(sum);
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] - max - logSum;
    } else {
        const float inverse = 1.f / sum;
        for (int64_t i = 0; i < n; ++i) y[i] *= inverse;
    }
}

class SoftmaxKernel final : public PreparedKernel {
public:
    SoftmaxKernel(int64_t rows, int64_t width, bool logSoftmax) : rows_(rows), width_(width), log_(logSoftmax) {}
    std::string name() const override { return log_ ? "cpu:log-softmax" : "cpu:softmax"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
#pragma omp parallel for schedule(static) if (rows_ * width_ >= (1 << 15))
        for (int64_t r = 0; r < rows_; ++r) softmaxRow(x + r * width_, y + r * width_, width_, log_);
    }

private:
    int64_t rows_, width_;
    bool log_;
};

std::unique_ptr<PreparedKernel> prepareSoftmax(const NodeDescriptor& info) {
    if (info.inputTypes.size() != 1 || info.inputTypes[0] != DType::Float) return nullptr;
    const auto& dims = info.inputDims[0];
    const auto rank = int64_t(dims.size());
    if (rank == 0) return nullptr;
    // From opset 13 the axis is one axis (default -1); before, everything from `axis` (default
    // 1) on is one row: the same thing when the axis is the last one.
    int64_t axis = intAttributeOrDefault(info.attributes(), OpKey::of(info.node), info.opset, "axis");
    if (axis < 0) axis += rank;
    if (axis != rank - 1) return nullptr;
    const int64_t width = dims.back();
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < rank; ++i) rows *= dims[size_t(i)];
    if (width == 0) return nullptr;
    return std::make_unique<SoftmaxKernel>(rows, width, info.node.opType == "LogSoftmax");
}

/// LayerNormalization over the last axis with constant scale (and bias).
class LayerNormKernel final : public PreparedKernel {
public:
    LayerNormKernel(int64_t rows, int64_t width, float epsilon, const Tensor* scale, const Tensor* bias)
        : rows_(rows), width_(width), epsilon_(epsilon), scale_(*scale), bias_(bias ? *bias : Tensor()) {}
    std::string name() const override { return "cpu:layer-norm"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const float* gamma = scale_.span<float>().data();
        const float* beta = bias_.empty() ? nullptr : bias_.span<float>().data();
#pragma omp parallel for schedule(static) if (rows_ * width_ >= (1 << 15))
        for (int64_t r = 0; r < rows_; ++r) normalizeRow(x + r * width_, y + r * width_, gamma, beta);
    }

private:
    void normalizeRow(const float* x, float* y, const float* gamma, const float* beta) const {
        const float mean = laneSum(x, width_) / float(width_);
        for (int64_t i = 0; i < width_; ++i) y[i] = (x[i] - mean) * (x[i] - mean);
        const float inverse = 1.f / std::sqrt(laneSum(y, width_) / float(width_) + epsilon_);
        for (int64_t i = 0; i < width_; ++i) y[i] = (x[i] - mean) * inverse * gamma[i] + (beta ? beta[i] : 0.f);
    }
    int64_t rows_, width_;
    float epsilon_;
    Tensor scale_, bias_;
};

std::unique_ptr<PreparedKernel> prepareLayerNorm(const NodeDescriptor& info) {
    if (info.outputDims.size() != 1 || info.inputTypes.empty() || info.inputTypes[0] != DType::Float) return nullptr;
    const auto& dims = info.inputDims[0];
    const auto rank = int64_t(dims.size());
    int64_t axis = intAttributeOrDefault(info.attributes(), OpKey::of(info.node), info.opset, "axis");
    if (axis < 0) axis += rank;
    if (rank == 0 || axis != rank - 1) return nullptr;
    const int64_t width = dims.back();
    const Tensor* scale = info.constants.size() > 1 ? info.constants[1] : nullptr;
    const Tensor* bias = info.constants.size() > 2 ? info.constants[2] : nullptr;
    if (!scale || scale->dtype() != DType::Float || scale->numel() != width) return nullptr;
    if (info.hasInput(2) && (!bias || bias->dtype() != DType::Float || bias->numel() != width)) return nullptr;
    if (width == 0) return nullptr;
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < rank; ++i) rows *= dims[size_t(i)];
    const float epsilon = floatAttributeOrDefault(info.attributes(), OpKey::of(info.node), info.opset, "epsilon");
    return std::make_unique<LayerNormKernel>(rows, width, epsilon, scale,
                                             info.hasInput(2) ? bias : nullptr);
}

/// One row of SkipLayerNormalization: y = x + skip (+ bias), then normalized in place.
GRAPHLENS_VECTOR_CLONES
void skipNormalizeRow(const float* x, const float* skip, const float* bias, float* y, const float* gamma,
                      const float* beta, int64_t width, float epsilon) {
    for (int64_t i = 0; i < width; ++i) y[i] = x[i] + skip[i] + (bias ? bias[i] : 0.f);
    const float mean = laneSum(y, width) / float(width);
    float lanes[16] = {};  // the squared deviations in 16 lanes, as laneSum adds
    int64_t i = 0;
    for (; i + 16 <= width; i += 16)
        for (int k = 0; k < 16; ++k) lanes[k] += (y[i + k] - mean) * (y[i + k] - mean);
    float squares = 0.f;
    for (; i < width; ++i) squares += (y[i] - mean) * (y[i] - mean);
    for (float lane : lanes) squares += lane;
    const float inverse = 1.f / std::sqrt(squares / float(width) + epsilon);
    for (int64_t k = 0; k < width; ++k) y[k] = (y[k] - mean) * inverse * gamma[k] + (beta ? beta[k] : 0.f);
}

/// com.microsoft SkipLayerNormalization(x, skip, gamma[, beta, bias]): each row of x + skip
/// (+ bias) is formed in the output and normalized there, with constant gamma, beta and bias.
class SkipLayerNormKernel final : public PreparedKernel {
public:
    SkipLayerNormKernel(int64_t rows, int64_t width, float epsilon, const Tensor* gamma, const Tensor* beta,
                        const Tensor* bias)
        : rows_(rows), width_(width), epsilon_(epsilon), gamma_(*gamma), beta_(beta ? *beta : Tensor()),
          bias_(bias ? *bias : Tensor()) {}
    std::string name() const override { return "cpu:skip-layer-norm"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        const float* skip = in[1]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const float* gamma = gamma_.span<float>().data();
        const float* beta = beta_.empty() ? nullptr : beta_.span<float>().data();
        const float* bias = bias_.empty() ? nullptr : bias_.span<float>().data();
#pragma omp parallel for schedule(static) if (rows_ * width_ >= (1 << 15))
        for (int64_t r = 0; r < rows_; ++r) {
            const int64_t at = r * width_;
            skipNormalizeRow(x + at, skip + at, bias, y + at, gamma, beta, width_, epsilon_);
        }
    }

private:
    int64_t rows_, width_;
    float epsilon_;
    Tensor gamma_, beta_, bias_;
};

std::unique_ptr<PreparedKernel> prepareSkipLayerNorm(const NodeDescriptor& info) {
    if (info.outputDims.size() != 1 || info.inputTypes.size() < 3 || !info.hasInput(0) || !info.hasInput(1)) return nullptr;
    for (size_t i = 0; i < info.inputTypes.size(); ++i)
        if (info.hasInput(i) && info.inputTypes[i] != DType::Float) return nullptr;
    const auto& dims = info.inputDims[0];
    if (dims.empty() || info.inputDims[1] != dims || dims.back() == 0) return nullptr;
    const int64_t width = dims.back();
    const auto vector = [&](size_t i) -> const Tensor* {
        const Tensor* t = info.hasInput(i) ? info.constants[i] : nullptr;
        return t && t->numel() == width ? t : nullptr;
    };
    const Tensor* gamma = vector(2);
    if (!gamma || (info.hasInput(3) && !vector(3)) || (info.hasInput(4) && !vector(4))) return nullptr;
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];
    return std::make_unique<SkipLayerNormKernel>(rows, width,
                                                 info.attributes().getFloat("epsilon", 1e-12f), gamma, vector(3),
                                                 vector(4));
}

/// ReduceMean / ReduceSum over the last axis only: one lane sum per row.
class RowReduceKernel final : public PreparedKernel {
public:
    RowReduceKernel(int64_t rows, int64_t width, bool mean) : rows_(rows), width_(width), mean_(mean) {}
    std::string name() const override { return mean_ ? "cpu:reduce-mean" : "cpu:reduce-sum"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const float* x = in[0]->span<float>().data();
        float* y = out[0].mutableSpan<float>().data();
        const float scale = mean_ ? 1.f / float(width_) : 1.f;
#pragma omp parallel for schedule(static) if (rows_ * width_ >= (1 << 15))
        for (int64_t r = 0; r < rows_; ++r) y[r] = laneSum(x + r * width_, width_) * scale;
    }

private:
    int64_t rows_, width_;
    bool mean_;
};

std::unique_ptr<PreparedKernel> prepareRowReduce(const NodeDescriptor& info) {
    if (info.inputTypes.empty() || info.inputTypes[0] != DType::Float || info.outputDims.size() != 1) return nullptr;
    const auto& dims = info.inputDims[0];
    const auto rank = int64_t(dims.size());
    std::vector<int64_t> axes;
    const bool axesAreInput = info.node.opType == "ReduceSum" ? info.opset >= 13 : info.opset >= 18;
    if (axesAreInput) {
        if (!info.hasInput(1) || !info.constants[1]) return nullptr;  // none: reduce all, or a runtime list
        for (double d : info.constants[1]->toDoubles()) axes.push_back(int64_t(d));
    } else {
        axes = info.attributes().getInts("axes");
    }
    if (rank == 0 || axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1) || dims.back() == 0) return nullptr;
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < rank; ++i) rows *= dims[size_t(i)];
    return std::make_unique<RowReduceKernel>(rows, dims.back(), info.node.opType == "ReduceMean");
}

} // namespace

void registerCpuSoftmaxKernels(CpuKernelRegistry& registry) {
    registry.add("ReduceMean", prepareRowReduce);
    registry.add("ReduceSum", prepareRowReduce);
    registry.add("Softmax", prepareSoftmax);
    registry.add("LogSoftmax", prepareSoftmax);
    registry.add("LayerNormalization", prepareLayerNorm);
    registry.add("SkipLayerNormalization", prepareSkipLayerNorm, "com.microsoft");
}

} // namespace graphlens
