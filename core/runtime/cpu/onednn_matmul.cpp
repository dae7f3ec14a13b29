// oneDNN matrix products: Gemm and FusedGemm (transA/transB, alpha, C broadcast with beta, an
// activation post-op), MatMul (N-d with batch broadcasting, 1-D operands) and FusedMatMul (MatMul
// with operands transposed through their strides and an output scale). Constant B is
// reordered once into the layout the primitive prefers; a B of rank 2 folds A's batch axes into
// its rows (one large product).
#include "core/runtime/cpu/onednn_internal.h"

#include <cstring>
#include <limits>

namespace graphlens::onednn {
namespace {

using memory = dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

/// How C (Gemm) reaches the output before the product is added by a sum post-op.
struct Prefill {
    enum class Kind { None, Constant, Runtime } kind = Kind::None;
    std::vector<float> values;       ///< Constant: beta * C broadcast to (M, N)
    int64_t rows = 0, cols = 0;      ///< the output
    int64_t cRows = 1, cCols = 1;    ///< Runtime: C as a (cRows, cCols) matrix broadcasting to it
    float beta = 1.f;
};

void fill(const Prefill& p, const float* c, float* out) {
    if (p.kind == Prefill::Kind::Constant) {
        std::memcpy(out, p.values.data(), p.values.size() * sizeof(float));
        return;
    }
    for (int64_t i = 0; i < p.rows; ++i) {
        const float* row = c + (p.cRows == 1 ? 0 : i * p.cCols);
        float* o = out + i * p.cols;
        if (p.cCols == 1)
            for (int64_t j = 0; j < p.cols; ++j) o[j] = p.beta * row[0];
        else
            for (int64_t j = 0; j < p.cols; ++j) o[j] = p.beta * row[j];
    }
}

/// How a constant B is stored for the primitive: oneDNN's choice, except for a 2-D B whose rows
/// are a multiple of 256 floats, which gets 16 floats of padding per row. oneDNN 2.6's gemm
/// reading B with a leading dimension of a multiple of 1 KiB thrashes the cache (the classic
/// power-of-two stride conflict): at 2 threads 128x256x1024 (a transformer's FFN) took 1.0 ms
/// against 0.34-0.67 ms padded, 197x768x3072 10.6 against 5.2 ms; other shapes within noise.
memory::desc constantWeightsDesc(const memory::desc& b) {
    const Dims dims = b.dims();
    if (dims.size() != 2 || paddedRowLength(dims[1]) == dims[1]) return memory::desc(dims, dt::f32, tag::any);
    return memory::desc(dims, dt::f32, Dims{paddedRowLength(dims[1]), 1});
}

class MatMulKernel final : public PreparedKernel {
public:
    /// `a`, `b`, `dst`: the descs of the tensors as stored; `b` is packed now when constant.
    MatMulKernel(std::string name, const NodeDescriptor& info, const memory::desc& a, const memory::desc& b,
                 const memory::desc& dst, const memory::desc& bias, const dnnl::primitive_attr& attr,
                 Prefill prefill)
        : name_(std::move(name)), threads_(info.threads), prefill_(std::move(prefill)) {
        const dnnl::engine& eng = engine();
        const Tensor* constantB = info.constants[1];
        const memory::desc weights = constantB ? constantWeightsDesc(b) : b;
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, weights, bias, dst), attr, eng);
        primitive_ = dnnl::matmul(pd);
        a_ = memory(a, eng, DNNL_MEMORY_NONE);
        dst_ = memory(dst, eng, DNNL_MEMORY_NONE);
        if (constantB) {
            b_ = packedCopy(b, handleOf(*constantB), pd.weights_desc());
        } else {
            b_ = memory(b, eng, DNNL_MEMORY_NONE);
            runtimeB_ = true;
        }
        args_ = {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, dst_}};
        if (!bias.is_zero()) {
            if (const Tensor* c = info.constants[2]) {
                bias_ = memory(bias, eng);
                std::memcpy(bias_.get_data_handle(), c->data(), bias.get_size());
            } else {
                bias_ = memory(bias, eng, DNNL_MEMORY_NONE);
                runtimeBias_ = true;
            }
            args_[DNNL_ARG_BIAS] = bias_;
        }
    }

    std::string name() const override { return name_; }

    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) override {
        ThreadScope threads(threads_);
        a_.set_data_handle(handleOf(*inputs[0]));
        if (runtimeB_) b_.set_data_handle(handleOf(*inputs[1]));
        if (runtimeBias_) bias_.set_data_handle(handleOf(*inputs[2]));
        dst_.set_data_handle(outputs[0].mutableData());
        if (prefill_.kind != Prefill::Kind::None)
            fill(prefill_, prefill_.kind == Prefill::Kind::Runtime ? reinterpret_cast<const float*>(inputs[2]->data())
                                                                   : nullptr,
                 reinterpret_cast<float*>(outputs[0].mutableData()));
        dnnl::stream& s = stream();
        primitive_.execute(s, args_);
        s.wait();
    }

private:
    std::string name_;
    int threads_;
    Prefill prefill_;
    dnnl::matmul primitive_;
    memory a_, b_, bias_, dst_;
    std::unordered_map<int, memory> args_;
    bool runtimeB_ = false, runtimeBias_ = false;
};

/// FusedGemm's activation as an eltwise post-op: its numbers are activation_alpha and
/// activation_beta, which appendActivation reads as FusedConv's activation_params.
bool appendGemmActivation(const Attributes& attributes, dnnl::post_ops& ops) {
    const Attribute* name = attributes.find("activation");
    if (!name) return true;
    const float missing = std::numeric_limits<float>::quiet_NaN();  // the table's default stands in
    Attributes asConv{{"activation", *name},
                      {"activation_params", std::vector<float>{attributes.getFloat("activation_alpha", missing),
                                                               attributes.getFloat("activation_beta", missing)}}};
    return appendActivation(asConv, ops);
}

bool nonEmpty(const NodeDescriptor& info) {
    for (size_t i = 0; i < info.inputDims.size(); ++i)
        if (info.hasInput(i) && elementCount(info.inputDims[i]) <= 0) return false;
    for (const auto& d : info.outputDims)
        if (elementCount(d) <= 0) return false;
    return true;
}

/// An operand of logical shape `dims` (..., rows, cols), stored row-major, or with its last two
/// axes swapped when `transposed` (FusedMatMul's transA / transB): the same desc with swapped strides.
memory::desc operandDesc(const std::vector<int64_t>& dims, bool transposed) {
    if (!transposed) return plainDesc(dims);
    std::vector<int64_t> stored = dims;
    std::swap(stored[stored.size() - 2], stored.back());
    Dims strides = plainStrides(toDims(stored));
    std::swap(strides[strides.size() - 2], strides.back());
    return memory::desc(toDims(dims), dt::f32, strides);
}

/// MatMul, and com.microsoft FusedMatMul = alpha * op(A) x op(B) with op swapping the last two
/// axes of a transposed operand (read in place through its strides) and alpha an output scale.
std::unique_ptr<PreparedKernel> makeMatMul(const NodeDescriptor& info) {
    if (info.inputDims.size() != 2 || !info.hasInput(0) || !info.hasInput(1) || info.outputDims.size() != 1) return nullptr;
    if (!allFloat(info) || !nonEmpty(info)) return nullptr;
    const Attributes& attrs = info.attributes();
    const bool fused = info.node.opType == "FusedMatMul";
    if (fused && (attrs.getInt("transBatchA", 0) != 0 || attrs.getInt("transBatchB", 0) != 0)) return nullptr;
    std::vector<int64_t> a = info.inputDims[0], b = info.inputDims[1];
    if (a.empty() || b.empty()) return nullptr;
    // A 1-D operand is not transposed (as in ONNX Runtime).
    const bool transA = fused && attrs.getInt("transA", 0) != 0 && a.size() >= 2;
    const bool transB = fused && attrs.getInt("transB", 0) != 0 && b.size() >= 2;
    if (transA) std::swap(a[a.size() - 2], a.back());
    if (transB) std::swap(b[b.size() - 2], b.back());
    const bool vectorA = a.size() == 1, vectorB = b.size() == 1;
    if (vectorA) a.insert(a.begin(), 1);
    if (vectorB) b.push_back(1);
    const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
    if (b[b.size() - 2] != k) return nullptr;
    const size_t rank = std::max(a.size(), b.size());
    if (rank > size_t(DNNL_MAX_NDIMS)) return nullptr;
    // The output (batch..., M, N) as oneDNN sees it, before 1-D operands drop an axis.
    std::vector<int64_t> out(rank);
    out[rank - 2] = m;
    out[rank - 1] = n;
    std::vector<int64_t> aFull(rank - a.size(), 1), bFull(rank - b.size(), 1);
    aFull.insert(aFull.end(), a.begin(), a.end());
    bFull.insert(bFull.end(), b.begin(), b.end());
    for (size_t i = 0; i + 2 < rank; ++i) {
        if (aFull[i] != bFull[i] && aFull[i] != 1 && bFull[i] != 1) return nullptr;
        out[i] = std::max(aFull[i], bFull[i]);
    }
    if (elementCount(out) != elementCount(info.outputDims[0])) return nullptr;
    {
        std::vector<int64_t> expected(out.begin(), out.end() - 2);
        if (!vectorA) expected.push_back(m);
        if (!vectorB) expected.push_back(n);
        if (expected != info.outputDims[0]) return nullptr;
    }
    dnnl::primitive_attr attr;
    if (const float alpha = fused ? attrs.getFloat("alpha", 1.f) : 1.f; alpha != 1.f) attr.set_output_scales(0, {alpha});
    const std::string name = fused ? "onednn:fused-matmul" : "onednn:matmul";
    try {
        ThreadScope threads(info.threads);
        if (b.size() == 2 && !transA) {  // fold A's batch into rows: one (rows x K) x (K x N) product
            const int64_t rows = elementCount(a) / k;
            return std::make_unique<MatMulKernel>(name, info, plainDesc({rows, k}), operandDesc({k, n}, transB),
                                                  plainDesc({rows, n}), memory::desc(), attr, Prefill());
        }
        return std::make_unique<MatMulKernel>(name, info, operandDesc(aFull, transA), operandDesc(bFull, transB),
                                              plainDesc(out), memory::desc(), attr, Prefill());
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

std::unique_ptr<PreparedKernel> makeGemm(const NodeDescriptor& info) {
    if (info.inputDims.size() < 2 || info.inputDims.size() > 3 || info.outputDims.size() != 1) return nullptr;
    if (!info.hasInput(0) || !info.hasInput(1) || !allFloat(info) || !nonEmpty(info)) return nullptr;
    const auto& ad = info.inputDims[0];
    const auto& bd = info.inputDims[1];
    if (ad.size() != 2 || bd.size() != 2) return nullptr;
    const Attributes& attrs = info.attributes();
    const bool transA = attrs.getInt("transA", 0) != 0, transB = attrs.getInt("transB", 0) != 0;
    const int64_t m = transA ? ad[1] : ad[0], k = transA ? ad[0] : ad[1];
    const int64_t kb = transB ? bd[1] : bd[0], n = transB ? bd[0] : bd[1];
    if (k != kb || info.outputDims[0] != std::vector<int64_t>{m, n}) return nullptr;
    const float alpha = attrs.getFloat("alpha", 1.f), beta = attrs.getFloat("beta", 1.f);

    const memory::desc a = transA ? memory::desc({m, k}, dt::f32, Dims{1, m}) : plainDesc({m, k});
    const memory::desc b = transB ? memory::desc({k, n}, dt::f32, Dims{1, k}) : plainDesc({k, n});
    const memory::desc dst = plainDesc({m, n});
    memory::desc bias;
    dnnl::primitive_attr attr;
    dnnl::post_ops ops;
    Prefill prefill;
    if (alpha != 1.f) attr.set_output_scales(0, {alpha});
    if (info.hasInput(2) && beta != 0.f) {
        std::vector<int64_t> c = info.inputDims[2];
        if (c.size() > 2) return nullptr;
        while (c.size() < 2) c.insert(c.begin(), 1);
        if ((c[0] != 1 && c[0] != m) || (c[1] != 1 && c[1] != n)) return nullptr;
        if (alpha == 1.f && beta == 1.f && c[0] == 1 && c[1] == n) {
            bias = plainDesc({1, n});
        } else {
            prefill = {Prefill::Kind::Runtime, {}, m, n, c[0], c[1], beta};
            if (const Tensor* constant = info.constants[2]) {
                prefill.values.resize(size_t(m * n));
                fill(prefill, reinterpret_cast<const float*>(constant->data()), prefill.values.data());
                prefill.kind = Prefill::Kind::Constant;
            }
            ops.append_sum(1.f);
        }
    }
    if (info.node.opType == "FusedGemm" && !appendGemmActivation(attrs, ops)) return nullptr;
    attr.set_post_ops(ops);
    try {
        ThreadScope threads(info.threads);
        return std::make_unique<MatMulKernel>("onednn:gemm", info, a, b, dst, bias, attr, std::move(prefill));
    } catch (const dnnl::error&) {
        return nullptr;
    }
}

} // namespace

void registerMatMulKernels(CpuKernelRegistry& registry) {
    registry.add("Gemm", makeGemm);
    registry.add("FusedGemm", makeGemm, "com.microsoft");  // Gemm with an activation post-op
    registry.add("MatMul", makeMatMul);
    registry.add("FusedMatMul", makeMatMul, "com.microsoft");  // MatMul of transposed operands, scaled
}

} // namespace graphlens::onednn
