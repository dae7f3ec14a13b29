// Reference kernels for matrix products: Gemm, MatMul (numpy batching, 1-D operands), ONNX
// Runtime's FusedMatMul (MatMul with transposed operands and a scale), MatMulInteger,
// QLinearMatMul, and ONNX Runtime's QGemm and MatMulIntegerToFloat (what the CPU plan makes of QDQ
// products, core/runtime/cpu/qdq_fusion.h). Float sums are accumulated in double; integer sums are
// exact in double, and they are scaled in float as ONNX's and ONNX Runtime's kernels scale them.
#include "core/runtime/reference/neural_net_internal.h"

#include <type_traits>

namespace graphlens::nn {
namespace {

/// A batched product A (batch..., M, K) x B (batch..., K, N) after numpy broadcasting.
struct MatMulShapes {
    int64_t m = 0, k = 0, n = 0;
    std::vector<int64_t> aBatchIndex, bBatchIndex;  ///< per output batch: which A / B matrix
    std::vector<int64_t> outDims;
};

MatMulShapes matMulShapes(std::vector<int64_t> a, std::vector<int64_t> b) {
    if (a.empty() || b.empty()) throw KernelError("MatMul does not take scalars");
    const bool vectorA = a.size() == 1, vectorB = b.size() == 1;
    if (vectorA) a.insert(a.begin(), 1);
    if (vectorB) b.push_back(1);
    MatMulShapes s{a[a.size() - 2], a.back(), b.back(), {}, {}, {}};
    if (b[b.size() - 2] != s.k)
        throw KernelError("the inner dimensions of " + ref::dimsText(a) + " and " + ref::dimsText(b) + " differ");
    const std::vector<int64_t> aBatch(a.begin(), a.end() - 2), bBatch(b.begin(), b.end() - 2);
    s.outDims = ref::broadcastDims(aBatch, bBatch);
    s.aBatchIndex = ref::broadcastIndices(aBatch, s.outDims);
    s.bBatchIndex = ref::broadcastIndices(bBatch, s.outDims);
    if (!vectorA) s.outDims.push_back(s.m);
    if (!vectorB) s.outDims.push_back(s.n);
    return s;
}

/// out[batch] = A[aBatchIndex] x B[bBatchIndex], accumulating in Acc.
template <typename T, typename Acc>
void batchedProduct(const MatMulShapes& s, const T* a, const T* b, T* out) {
    for (size_t batch = 0; batch < s.aBatchIndex.size(); ++batch) {
        const T* am = a + s.aBatchIndex[batch] * s.m * s.k;
        const T* bm = b + s.bBatchIndex[batch] * s.k * s.n;
        T* om = out + int64_t(batch) * s.m * s.n;
        for (int64_t i = 0; i < s.m; ++i)
            for (int64_t j = 0; j < s.n; ++j) {
                Acc sum = 0;
                for (int64_t p = 0; p < s.k; ++p) sum += Acc(am[i * s.k + p]) * Acc(bm[p * s.n + j]);
                om[i * s.n + j] = T(sum);
            }
    }
}

template <typename T>
using Accumulator = std::conditional_t<std::is_floating_point_v<T>, double,
                                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

/// The values of `t` with its last two axes swapped when `transposed` (a 1-D operand stays as it
/// is, as in ONNX Runtime); `dims` gets the swapped shape.
std::vector<double> operandValues(const Tensor& t, bool transposed, std::vector<int64_t>& dims) {
    dims = t.dims();
    std::vector<double> values = doublesOf(t);
    if (!transposed || dims.size() < 2) return values;
    const int64_t rows = dims[dims.size() - 2], cols = dims.back(), matrix = rows * cols;
    std::vector<double> out(values.size());
    for (size_t base = 0; base < values.size(); base += size_t(matrix))
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) out[base + size_t(c * rows + r)] = values[base + size_t(r * cols + c)];
    std::swap(dims[dims.size() - 2], dims.back());
    return out;
}

/// A (rank 2, possibly transposed) as a row-major M x K matrix of doubles.
std::vector<double> gemmOperand(const Tensor& t, bool transposed, int64_t& rows, int64_t& cols) {
    if (t.rank() != 2) throw KernelError("Gemm operands must be matrices, got " + ref::dimsText(t.dims()));
    std::vector<int64_t> dims;
    std::vector<double> values = operandValues(t, transposed, dims);
    rows = dims[0];
    cols = dims[1];
    return values;
}

/// Zero points (or scales) of a quantized product: one value, or one per row of A / column of B,
/// expanded to one per element of the product's A or B operand.
std::vector<double> perElement(const KernelContext& ctx, size_t index, const std::vector<int64_t>& dims,
                               bool perRow) {
    const size_t count = size_t(ref::elementCount(dims));
    if (!ctx.hasInput(index)) return std::vector<double>(count, 0.0);
    const std::vector<double> z = doublesOf(ctx.input(index));
    if (z.size() == 1) return std::vector<double>(count, z[0]);
    const int64_t axisSize = dims.size() < 2 ? 1 : dims[dims.size() - (perRow ? 2 : 1)];
    if (int64_t(z.size()) != axisSize) throw KernelError("a zero point or scale does not match its operand");
    const int64_t cols = dims.back();
    std::vector<double> out(count);
    for (size_t i = 0; i < count; ++i)
        out[i] = z[size_t(perRow ? (int64_t(i) / cols) % axisSize : int64_t(i) % cols)];
    return out;
}

/// (A - a_zero) x (B - b_zero) in double, with zero points at inputs aZero and bZero.
std::vector<double> integerProduct(const KernelContext& ctx, size_t a, size_t aZero, size_t b, size_t bZero,
                                   MatMulShapes& s) {
    const Tensor& at = ctx.input(a);
    const Tensor& bt = ctx.input(b);
    s = matMulShapes(at.dims(), bt.dims());
    std::vector<double> av = doublesOf(at), bv = doublesOf(bt);
    const auto az = perElement(ctx, aZero, at.dims(), true), bz = perElement(ctx, bZero, bt.dims(), false);
    for (size_t i = 0; i < av.size(); ++i) av[i] -= az[i];
    for (size_t i = 0; i < bv.size(); ++i) bv[i] -= bz[i];
    std::vector<double> out(size_t(ref::elementCount(s.outDims)));
    batchedProduct<double, double>(s, av.data(), bv.data(), out.data());
    return out;
}

} // namespace

void matMul(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) throw KernelError("MatMul operands have different element types");
    const MatMulShapes s = matMulShapes(a.dims(), b.dims());
    if (a.dtype() == DType::Float16 || a.dtype() == DType::BFloat16) {
        const Tensor af = ref::toFloat(a), bf = ref::toFloat(b);
        Tensor out = Tensor::allocate(DType::Float, s.outDims);
        batchedProduct<float, double>(s, ref::dataOf<float>(af), ref::dataOf<float>(bf), ref::mutableDataOf<float>(out));
        return ctx.setOutput(0, ref::fromFloat(out, a.dtype()));
    }
    Tensor& out = ctx.allocateOutput(0, a.dtype(), s.outDims);
    ref::visitNumeric(a.dtype(), "MatMul", [&]<typename T>() {
        if constexpr (std::is_same_v<T, bool>) throw KernelError("MatMul does not support bool");
        else batchedProduct<T, Accumulator<T>>(s, ref::dataOf<T>(a), ref::dataOf<T>(b), ref::mutableDataOf<T>(out));
    });
}

void fusedMatMul(KernelContext& ctx) {
    const Attributes& attrs = ctx.attributes();
    if (attrs.getInt("transBatchA", 0) != 0 || attrs.getInt("transBatchB", 0) != 0)
        throw KernelError("FusedMatMul with transBatchA or transBatchB is not supported");
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) throw KernelError("FusedMatMul operands have different element types");
    if (!isFloatingPoint(a.dtype())) throw KernelError("FusedMatMul takes floating-point operands");
    std::vector<int64_t> aDims, bDims;
    const std::vector<double> av = operandValues(a, attrs.getInt("transA", 0) != 0, aDims);
    const std::vector<double> bv = operandValues(b, attrs.getInt("transB", 0) != 0, bDims);
    const MatMulShapes s = matMulShapes(aDims, bDims);
    std::vector<double> y(size_t(ref::elementCount(s.outDims)));
    batchedProduct<double, double>(s, av.data(), bv.data(), y.data());
    const double alpha = attrs.getFloat("alpha", 1.f);
    for (double& v : y) v *= alpha;
    ctx.setOutput(0, tensorOfDoubles(a.dtype(), s.outDims, y));
}

std::vector<double> gemmValues(const KernelContext& ctx, int64_t& m, int64_t& n) {
    const Attributes& attrs = ctx.attributes();
    int64_t k = 0, kb = 0;
    const auto a = gemmOperand(ctx.input(0), attrs.getInt("transA", 0) != 0, m, k);
    const auto b = gemmOperand(ctx.input(1), attrs.getInt("transB", 0) != 0, kb, n);
    if (k != kb) throw KernelError("the inner dimensions of the Gemm operands differ");
    const double alpha = attrs.getFloat("alpha", 1.0f), beta = attrs.getFloat("beta", 1.0f);
    std::vector<double> y(size_t(m * n), 0.0);
    if (ctx.hasInput(2)) {
        const Tensor& c = ctx.input(2);
        const auto index = ref::broadcastIndices(c.dims(), ref::broadcastDims(c.dims(), {m, n}));
        if (index.size() != y.size()) throw KernelError("C " + ref::dimsText(c.dims()) + " does not broadcast to the output");
        const auto cv = doublesOf(c);
        for (size_t i = 0; i < y.size(); ++i) y[i] = beta * cv[size_t(index[i])];
    }
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int64_t p = 0; p < k; ++p) sum += a[size_t(i * k + p)] * b[size_t(p * n + j)];
            y[size_t(i * n + j)] += alpha * sum;
        }
    return y;
}

void gemm(KernelContext& ctx) {
    int64_t m = 0, n = 0;
    const auto y = gemmValues(ctx, m, n);
    ctx.setOutput(0, tensorOfDoubles(ctx.input(0).dtype(), {m, n}, y));
}

void matMulInteger(KernelContext& ctx) {
    MatMulShapes s;
    const auto y = integerProduct(ctx, 0, 2, 1, 3, s);
    ctx.setOutput(0, tensorOfDoubles(DType::Int32, s.outDims, y));
}

/// One scale per output column (`n` of them) from a scale input of one value or `n` values.
std::vector<float> columnScales(const Tensor& t, int64_t n, const char* what) {
    const std::vector<double> v = doublesOf(t);
    if (v.size() == 1) return std::vector<float>(size_t(n), float(v[0]));
    if (int64_t(v.size()) != n) throw KernelError(std::string(what) + " has neither one value nor one per column");
    return std::vector<float>(v.begin(), v.end());
}

void qlinearMatMul(KernelContext& ctx) {
    MatMulShapes s;
    std::vector<double> y = integerProduct(ctx, 0, 2, 3, 5, s);
    const float aScale = float(scalarOf(ctx.input(1), "a_scale")), yScale = float(scalarOf(ctx.input(6), "y_scale"));
    const std::vector<float> bScale = columnScales(ctx.input(4), s.n, "b_scale");
    const DType yType = ctx.hasInput(7) ? ctx.input(7).dtype() : ctx.input(0).dtype();
    const double yZero = ctx.hasInput(7) ? scalarOf(ctx.input(7), "y_zero_point") : 0.0;
    for (size_t i = 0; i < y.size(); ++i)
        y[i] = saturateRound(double(float(y[i]) * (aScale * bScale[i % size_t(s.n)] / yScale)) + yZero, yType);
    ctx.setOutput(0, tensorOfDoubles(yType, s.outDims, y));
}

void qgemm(KernelContext& ctx) {
    // A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (int32, in units of a_scale * b_scale),
    // y_scale, y_zero_point: y = alpha * a_scale * b_scale * ((A - a_zero) x (B - b_zero) + C),
    // requantized with y_scale and y_zero_point, or float without y_scale.
    const Attributes& attrs = ctx.attributes();
    int64_t m = 0, k = 0, kb = 0, n = 0;
    std::vector<double> a = gemmOperand(ctx.input(0), attrs.getInt("transA", 0) != 0, m, k);
    std::vector<double> b = gemmOperand(ctx.input(3), attrs.getInt("transB", 0) != 0, kb, n);
    if (k != kb) throw KernelError("the inner dimensions of the QGemm operands differ");
    const double aZero = ctx.hasInput(2) ? scalarOf(ctx.input(2), "a_zero_point") : 0.0;
    for (double& v : a) v -= aZero;
    if (ctx.hasInput(5)) {
        const std::vector<double> z = doublesOf(ctx.input(5));
        if (z.size() != 1 && int64_t(z.size()) != n) throw KernelError("b_zero_point has neither one value nor one per column");
        for (size_t i = 0; i < b.size(); ++i) b[i] -= z[z.size() == 1 ? 0 : i % size_t(n)];
    }
    std::vector<double> y(size_t(m * n), 0.0);
    if (ctx.hasInput(6)) {
        const Tensor& c = ctx.input(6);
        const auto index = ref::broadcastIndices(c.dims(), ref::broadcastDims(c.dims(), {m, n}));
        if (index.size() != y.size()) throw KernelError("C " + ref::dimsText(c.dims()) + " does not broadcast to the output");
        const auto cv = doublesOf(c);
        for (size_t i = 0; i < y.size(); ++i) y[i] = cv[size_t(index[i])];
    }
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int64_t p = 0; p < k; ++p) sum += a[size_t(i * k + p)] * b[size_t(p * n + j)];
            y[size_t(i * n + j)] += sum;
        }
    const float alpha = attrs.getFloat("alpha", 1.f), aScale = float(scalarOf(ctx.input(1), "a_scale"));
    const std::vector<float> bScale = columnScales(ctx.input(4), n, "b_scale");
    if (!ctx.hasInput(7)) {
        for (size_t i = 0; i < y.size(); ++i) y[i] = double(float(y[i]) * (alpha * aScale * bScale[i % size_t(n)]));
        return ctx.setOutput(0, tensorOfDoubles(DType::Float, {m, n}, y));
    }
    const float yScale = float(scalarOf(ctx.input(7), "y_scale"));
    const DType yType = ctx.hasInput(8) ? ctx.input(8).dtype() : ctx.input(0).dtype();
    const double yZero = ctx.hasInput(8) ? scalarOf(ctx.input(8), "y_zero_point") : 0.0;
    for (size_t i = 0; i < y.size(); ++i)
        y[i] = saturateRound(double(float(y[i]) * (alpha * aScale * bScale[i % size_t(n)] / yScale)) + yZero, yType);
    ctx.setOutput(0, tensorOfDoubles(yType, {m, n}, y));
}

void matMulIntegerToFloat(KernelContext& ctx) {
    // A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias (float, one per column):
    // y = a_scale * b_scale * ((A - a_zero) x (B - b_zero)) + bias.
    MatMulShapes s;
    std::vector<double> y = integerProduct(ctx, 0, 4, 1, 5, s);
    const float aScale = float(scalarOf(ctx.input(2), "a_scale"));
    const std::vector<float> bScale = columnScales(ctx.input(3), s.n, "b_scale");
    std::vector<double> bias;
    if (ctx.hasInput(6)) {
        bias = doublesOf(ctx.input(6));
        if (int64_t(bias.size()) != s.n) throw KernelError("the bias has not one value per column");
    }
    for (size_t i = 0; i < y.size(); ++i) {
        const size_t j = i % size_t(s.n);
        float v = float(y[i]) * (aScale * bScale[j]);
        if (!bias.empty()) v += float(bias[j]);
        y[i] = double(v);
    }
    ctx.setOutput(0, tensorOfDoubles(DType::Float, s.outDims, y));
}

} // namespace graphlens::nn
