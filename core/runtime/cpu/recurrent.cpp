// Optimized CPU kernels for LSTM, GRU and RNN on float tensors, every attribute the reference
// kernel takes (rnn_spec.h). One oneDNN sgemm projects the inputs of all timesteps for both
// directions at once (X W^T + the biases that do not depend on the state). Then each direction
// runs its steps on one thread (bidirectional: the two directions side by side, so no thread waits
// for another at each step): the state rows times R^T, packed once at plan time when R is a
// constant ([hidden, gates * hidden], so each multiply-add runs over a contiguous row; sgemm when
// the batch has more than 4 rows), then vectorized gate loops. The gate order stays ONNX's (iofc,
// zrh). Rows past their sequence length keep their state and write zeros to Y, as the reference does.
//
// oneDNN's RNN primitives (lstm / gru / lbr_gru forward inference, one unidirectional primitive per
// direction, weights reordered at plan time) were tried for the nodes they express and measured on
// a bidirectional LSTM and GRU of sequence 64, hidden 256, batch 1 (AVX-512 machine, busy): 10.7 /
// 2.8 ms against this loop's 7.6 / 1.9 ms on one thread, 48 / 58 ms against 4.2 / 7.2 ms on two
// (they synchronize their threads at every step). So this loop runs every recurrent node.
#include "core/runtime/cpu/cpu_kernel.h"

#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/rnn_spec.h"

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace graphlens {
namespace {

using rnn::Activation;
using rnn::ActivationKind;
using rnn::RnnKind;
using rnn::RnnSpec;

/// x[i] = f(x[i]) for n values, one loop per activation kind so each vectorizes.
GRAPHLENS_VECTOR_CLONES
void activateInPlace(ActivationKind kind, float alpha, float beta, float* x, int64_t n) {
    switch (kind) {
    case ActivationKind::Sigmoid:
        for (int64_t i = 0; i < n; ++i) x[i] = 1.f / (1.f + vectorExp(-x[i]));
        break;
    case ActivationKind::Tanh:
        for (int64_t i = 0; i < n; ++i) {
            // tanh(x) = sign(x) (1 - e^{-2|x|}) / (1 + e^{-2|x|}); no cancellation near 0 beyond float's.
            const float e = vectorExp(-2.f * std::fabs(x[i]));
            x[i] = std::copysign((1.f - e) / (1.f + e), x[i]);
        }
        break;
    case ActivationKind::Relu:
        for (int64_t i = 0; i < n; ++i) x[i] = std::max(x[i], 0.f);
        break;
    case ActivationKind::Affine:
        for (int64_t i = 0; i < n; ++i) x[i] = alpha * x[i] + beta;
        break;
    case ActivationKind::LeakyRelu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= 0.f ? x[i] : alpha * x[i];
        break;
    case ActivationKind::ThresholdedRelu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] > alpha ? x[i] : 0.f;
        break;
    case ActivationKind::HardSigmoid:
        for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(alpha * x[i] + beta, 0.f), 1.f);
        break;
    case ActivationKind::Softsign:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (1.f + std::fabs(x[i]));
        break;
    default:  // ScaledTanh, Elu, Softplus: rare, through the reference formula
        for (int64_t i = 0; i < n; ++i) x[i] = float(rnn::apply({kind, alpha, beta}, double(x[i])));
        break;
    }
}

void activateInPlace(const Activation& a, float* x, int64_t n) {
    activateInPlace(a.kind, float(a.alpha), float(a.beta), x, n);
}

/// x = clamp(x, -c, c) when c > 0.
GRAPHLENS_VECTOR_CLONES
void clipInPlace(float c, float* x, int64_t n) {
    if (c <= 0.f) return;
    for (int64_t i = 0; i < n; ++i) x[i] = std::min(std::max(x[i], -c), c);
}

/// y = a + b.
GRAPHLENS_VECTOR_CLONES
void addRows(const float* a, const float* b, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

/// C [m, n] = A [m, k] x B^T (B stored [n, k], row stride ldb) + beta C.
void gemmTransB(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                float* c, int64_t ldc) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        if (beta == 0.f)
            for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.f);
        return;
    }
    dnnl_sgemm('N', 'T', m, n, k, 1.f, a, lda, b, ldb, beta, c, ldc);
}

/// out [n] = sum_k h[k] * rt[k * ld .. + n): a state row times R^T packed [hidden, gates * hidden],
/// each step of k one vectorized multiply-add over a contiguous row of R^T.
GRAPHLENS_VECTOR_CLONES
void packedProduct(const float* h, const float* rt, int64_t k, int64_t n, int64_t ld, float* out) {
    for (int64_t j = 0; j < n; ++j) out[j] = 0.f;
    for (int64_t kk = 0; kk < k; ++kk) {
        const float hv = h[kk];
        const float* row = rt + kk * ld;
        for (int64_t j = 0; j < n; ++j) out[j] += hv * row[j];
    }
}

/// The states of one direction while it runs.
struct DirectionState {
    std::vector<float> hr, h, c, scratch;
};

class RecurrentKernel final : public PreparedKernel {
public:
    RecurrentKernel(RnnSpec spec, const Tensor* constantW, const Tensor* constantR, int threads)
        : s_(std::move(spec)),
          // Two threads only where each direction has work enough (here 2^20 multiply-adds in the
          // recurrence) to pay for starting them; a busy machine delays a parallel region's start.
          parallelDirections_(threads > 1 && s_.dirs == 2 && s_.seqLength * s_.batch * s_.gates * s_.hidden * s_.hidden >= (1 << 20)) {
        if (constantR) {
            pack(constantR->span<float>().data());
            packedConstant_ = true;
        }
        if (constantW && smallProjection()) {
            packW(constantW->span<float>().data());
            packedW_ = true;
        }
    }
    std::string name() const override {
        return s_.kind == RnnKind::Lstm ? "cpu:lstm" : s_.kind == RnnKind::Gru ? "cpu:gru" : "cpu:rnn";
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        const int64_t H = s_.hidden, G = s_.gates, I = s_.inputSize, T = s_.seqLength, N = s_.batch, GH = G * H;
        const int64_t D = s_.dirs;
        const float* x = in[0]->span<float>().data();
        const float* w = in[1]->span<float>().data();
        if (!packedConstant_) pack(in[2]->span<float>().data());
        const float* b = has(in, 3) ? in[3]->span<float>().data() : nullptr;
        lengths_.assign(size_t(N), T);
        if (has(in, 4)) {
            const Tensor& l = *in[4];
            for (int64_t n = 0; n < N; ++n) {
                const int64_t v = l.dtype() == DType::Int64 ? l.span<int64_t>()[size_t(n)] : int64_t(l.span<int32_t>()[size_t(n)]);
                if (v < 0 || v > T)
                    throw KernelError("sequence_lens[" + std::to_string(n) + "] is " + std::to_string(v) + "; it must be in [0, " +
                                      std::to_string(T) + "]");
                lengths_[size_t(n)] = v;
            }
        }
        io_.h0 = has(in, 5) ? in[5]->span<float>().data() : nullptr;
        const bool lstm = s_.kind == RnnKind::Lstm;
        io_.c0 = lstm && has(in, 6) ? in[6]->span<float>().data() : nullptr;
        io_.p = lstm && has(in, 7) ? in[7]->span<float>().data() : nullptr;
        io_.y = out.size() > 0 && !out[0].empty() ? out[0].mutableSpan<float>().data() : nullptr;
        io_.yh = out.size() > 1 && !out[1].empty() ? out[1].mutableSpan<float>().data() : nullptr;
        io_.yc = lstm && out.size() > 2 && !out[2].empty() ? out[2].mutableSpan<float>().data() : nullptr;
        const bool shorter = std::any_of(lengths_.begin(), lengths_.end(), [&](int64_t l) { return l < T; });
        if (io_.y && shorter) std::fill(io_.y, io_.y + T * D * N * H, 0.f);  // steps past a row's length stay zero

        // Biases folded into the projection: Wb + Rb, except GRU's candidate Rb with linear_before_reset.
        const bool lbr = s_.linearBeforeReset;
        bias_.assign(size_t(D * GH), 0.f);
        rbH_.assign(size_t(D * H), 0.f);
        if (b)
            for (int64_t d = 0; d < D; ++d) {
                const float* wb = b + d * 2 * GH;
                const float* rb = wb + GH;
                for (int64_t k = 0; k < GH; ++k) bias_[size_t(d * GH + k)] = wb[k] + (lbr && k >= 2 * H ? 0.f : rb[k]);
                if (lbr) std::copy(rb + 2 * H, rb + 3 * H, rbH_.begin() + d * H);
            }
        // One GEMM projects every timestep for both directions: rows in X's order ((t, n) for layout
        // 0, (n, t) for layout 1), columns [direction][gate][hidden] (W is [dirs * gates * hidden, input]).
        projected_.resize(size_t(T * N * D * GH));
        if (smallProjection()) {
            // Below the size where sgemm starts its threads for little work: W^T rows, one thread.
            if (!packedW_) packW(w);
            for (int64_t row = 0; row < T * N; ++row) {
                float* dst = &projected_[size_t(row * D * GH)];
                packedProduct(x + row * I, wt_.data(), I, D * GH, D * GH, dst);
                addRows(dst, bias_.data(), dst, D * GH);
            }
        } else {
            for (int64_t row = 0; row < T * N; ++row) std::memcpy(&projected_[size_t(row * D * GH)], bias_.data(), size_t(D * GH) * 4);
            gemmTransB(T * N, D * GH, I, x, I, w, I, 1.f, projected_.data(), D * GH);
        }

        states_.resize(size_t(D));
        // The directions are independent: one thread each, and no thread meets another per step.
#pragma omp parallel for num_threads(2) schedule(static) if (parallelDirections_)
        for (int64_t d = 0; d < D; ++d) runDirection(d);
    }

private:
    struct Io {
        const float *h0 = nullptr, *c0 = nullptr, *p = nullptr;
        float *y = nullptr, *yh = nullptr, *yc = nullptr;
    };

    static bool has(const std::vector<const Tensor*>& in, size_t i) { return i < in.size() && in[i] && !in[i]->empty(); }
    int64_t xRow(int64_t t, int64_t n) const { return s_.layout == 0 ? t * s_.batch + n : n * s_.seqLength + t; }
    int64_t yAt(int64_t t, int64_t d, int64_t n) const {
        return s_.layout == 0 ? ((t * s_.dirs + d) * s_.batch + n) * s_.hidden : ((n * s_.seqLength + t) * s_.dirs + d) * s_.hidden;
    }
    int64_t stateAt(int64_t d, int64_t n) const {
        return s_.layout == 0 ? (d * s_.batch + n) * s_.hidden : (n * s_.dirs + d) * s_.hidden;
    }

    /// R [dirs, gates * hidden, hidden] -> R^T per direction [hidden, gates * hidden].
    void pack(const float* r) {
        const int64_t H = s_.hidden, GH = s_.gates * H;
        rt_.resize(size_t(s_.dirs * GH * H));
        for (int64_t d = 0; d < s_.dirs; ++d)
            for (int64_t j = 0; j < GH; ++j)
                for (int64_t k = 0; k < H; ++k) rt_[size_t(d * GH * H + k * GH + j)] = r[d * GH * H + j * H + k];
    }

    bool smallProjection() const {
        return s_.seqLength * s_.batch * s_.dirs * s_.gates * s_.hidden * s_.inputSize < (1 << 20);
    }
    /// W [dirs * gates * hidden, input] -> W^T [input, dirs * gates * hidden].
    void packW(const float* w) {
        const int64_t rows = s_.dirs * s_.gates * s_.hidden, I = s_.inputSize;
        wt_.resize(size_t(rows * I));
        for (int64_t j = 0; j < rows; ++j)
            for (int64_t i = 0; i < I; ++i) wt_[size_t(i * rows + j)] = w[j * I + i];
    }

    /// hr [rows, cols of ld] = h [rows, hidden] x R^T's columns [0, cols).
    void recurrentProduct(int64_t rows, int64_t cols, const float* h, const float* rt, float* hr) const {
        const int64_t H = s_.hidden, GH = s_.gates * H;
        if (rows > 4) return void(dnnl_sgemm('N', 'N', rows, cols, H, 1.f, h, H, rt, GH, 0.f, hr, GH));
        for (int64_t i = 0; i < rows; ++i) packedProduct(h + i * H, rt, H, cols, GH, hr + i * GH);
    }

    void runDirection(int64_t d) {
        const int64_t H = s_.hidden, GH = s_.gates * H, N = s_.batch, D = s_.dirs;
        const bool reverse = s_.direction == "reverse" || (s_.direction == "bidirectional" && d == 1);
        const bool lbr = s_.linearBeforeReset;
        const float* rt = rt_.data() + d * GH * H;
        DirectionState& st = states_[size_t(d)];
        st.hr.resize(size_t(N * GH));
        st.h.resize(size_t(N * H));
        st.c.resize(size_t(N * H));
        st.scratch.resize(size_t(H));
        for (int64_t n = 0; n < N; ++n)
            for (int64_t j = 0; j < H; ++j) {
                st.h[size_t(n * H + j)] = io_.h0 ? io_.h0[stateAt(d, n) + j] : 0.f;
                st.c[size_t(n * H + j)] = io_.c0 ? io_.c0[stateAt(d, n) + j] : 0.f;
            }
        const float* P = io_.p ? io_.p + d * 3 * H : nullptr;
        const auto& act = s_.activations[size_t(d)];
        const int64_t maxLength = *std::max_element(lengths_.begin(), lengths_.end());
        for (int64_t step = 0; step < maxLength; ++step) {
            recurrentProduct(N, s_.kind == RnnKind::Gru && !lbr ? 2 * H : GH, st.h.data(), rt, st.hr.data());
            for (int64_t n = 0; n < N; ++n) {
                const int64_t len = lengths_[size_t(n)];
                if (step >= len) continue;
                const int64_t t = reverse ? len - 1 - step : step;
                const float* xw = &projected_[size_t((xRow(t, n) * D + d) * GH)];
                float* g = &st.hr[size_t(n * GH)];
                float* h = &st.h[size_t(n * H)];
                float* c = &st.c[size_t(n * H)];
                if (s_.kind == RnnKind::Lstm) lstmStep(xw, g, h, c, P, act, st.scratch.data());
                else if (s_.kind == RnnKind::Gru) gruStep(xw, g, h, rt, &rbH_[size_t(d * H)], act, st.scratch.data());
                else {
                    addRows(xw, g, g, H);
                    clipInPlace(float(s_.clip), g, H);
                    activateInPlace(act[0], g, H);
                    std::memcpy(h, g, size_t(H) * 4);
                }
                if (io_.y) std::memcpy(io_.y + yAt(t, d, n), h, size_t(H) * 4);
            }
        }
        for (int64_t n = 0; n < N; ++n) {
            if (io_.yh) std::memcpy(io_.yh + stateAt(d, n), &st.h[size_t(n * H)], size_t(H) * 4);
            if (io_.yc) std::memcpy(io_.yc + stateAt(d, n), &st.c[size_t(n * H)], size_t(H) * 4);
        }
    }

    /// gates g (h R^T on entry; iofc) -> new h and c.
    void lstmStep(const float* xw, float* g, float* h, float* c, const float* P, const std::vector<Activation>& act,
                  float* scratch) const {
        const int64_t H = s_.hidden;
        const float clip = float(s_.clip);
        float* gi = g;
        float* go = g + H;
        float* gf = g + 2 * H;
        float* gc = g + 3 * H;
        addRows(xw, g, g, 4 * H);
        if (P)
            for (int64_t j = 0; j < H; ++j) {
                gi[j] += P[j] * c[j];
                gf[j] += P[2 * H + j] * c[j];
            }
        clipInPlace(clip, gi, H);
        activateInPlace(act[0], gi, H);
        if (s_.inputForget) {
            for (int64_t j = 0; j < H; ++j) gf[j] = 1.f - gi[j];
        } else {
            clipInPlace(clip, gf, H);
            activateInPlace(act[0], gf, H);
        }
        clipInPlace(clip, gc, H);
        activateInPlace(act[1], gc, H);
        for (int64_t j = 0; j < H; ++j) c[j] = gf[j] * c[j] + gi[j] * gc[j];
        if (P)
            for (int64_t j = 0; j < H; ++j) go[j] += P[H + j] * c[j];
        clipInPlace(clip, go, H);
        activateInPlace(act[0], go, H);
        std::memcpy(scratch, c, size_t(H) * 4);
        activateInPlace(act[2], scratch, H);
        for (int64_t j = 0; j < H; ++j) h[j] = go[j] * scratch[j];
    }

    /// gates g (h R^T on entry: z, r, and the candidate's h Rh^T with linear_before_reset) -> new h.
    void gruStep(const float* xw, float* g, float* h, const float* rt, const float* rbH, const std::vector<Activation>& act,
                 float* scratch) const {
        const int64_t H = s_.hidden, GH = s_.gates * H;
        const float clip = float(s_.clip);
        float* z = g;
        float* rg = g + H;
        float* cand = g + 2 * H;
        addRows(xw, g, g, 2 * H);
        clipInPlace(clip, g, 2 * H);
        activateInPlace(act[0], g, 2 * H);
        if (s_.linearBeforeReset) {
            for (int64_t j = 0; j < H; ++j) cand[j] = xw[2 * H + j] + rg[j] * (cand[j] + rbH[j]);
        } else {
            for (int64_t j = 0; j < H; ++j) scratch[j] = rg[j] * h[j];
            packedProduct(scratch, rt + 2 * H, H, H, GH, cand);
            addRows(xw + 2 * H, cand, cand, H);
        }
        clipInPlace(clip, cand, H);
        activateInPlace(act[1], cand, H);
        for (int64_t j = 0; j < H; ++j) h[j] = (1.f - z[j]) * cand[j] + z[j] * h[j];
    }

    RnnSpec s_;
    bool parallelDirections_;
    bool packedConstant_ = false;
    bool packedW_ = false;
    Io io_;
    std::vector<int64_t> lengths_;
    std::vector<float> projected_, bias_, rbH_, rt_, wt_;
    std::vector<DirectionState> states_;
};

std::unique_ptr<PreparedKernel> prepareRecurrent(const NodeDescriptor& info, RnnKind kind) {
    if (info.inputTypes.size() < 3) return nullptr;
    for (size_t i = 0; i < info.inputTypes.size(); ++i)
        if (info.hasInput(i) && i != 4 && info.inputTypes[i] != DType::Float) return nullptr;
    if (info.hasInput(4) && info.inputTypes[4] != DType::Int32 && info.inputTypes[4] != DType::Int64) return nullptr;
    try {
        RnnSpec spec = rnn::specOf(kind, info.attributes(), info.opset, info.inputDims[0], info.inputDims[1], info.inputDims[2],
                                   [&](size_t i) -> std::optional<std::vector<int64_t>> {
                                       if (!info.hasInput(i)) return std::nullopt;
                                       return info.inputDims[i];
                                   });
        if (spec.seqLength == 0 || spec.batch == 0) return nullptr;
        // The kernel writes Y, Y_h and Y_c in the sizes the inputs give; a file whose stated output
        // shapes disagree (fuzzing: a GRU of layout 1 with Y stated [3,1,1,6] for [1,18,1,6]) goes
        // to the reference kernel, which makes its outputs itself.
        for (size_t k = 0; k < info.outputDims.size(); ++k)
            if (info.hasOutput(k) && info.outputDims[k] != (k == 0 ? spec.yDims() : spec.stateDims())) return nullptr;
        return std::make_unique<RecurrentKernel>(std::move(spec), info.constants.size() > 1 ? info.constants[1] : nullptr,
                                                 info.constants.size() > 2 ? info.constants[2] : nullptr,
                                                 info.threads);
    } catch (const KernelError&) {
        return nullptr;  // the reference kernel says what is wrong when it runs
    }
}

std::unique_ptr<PreparedKernel> prepareLstm(const NodeDescriptor& info) { return prepareRecurrent(info, RnnKind::Lstm); }
std::unique_ptr<PreparedKernel> prepareGru(const NodeDescriptor& info) { return prepareRecurrent(info, RnnKind::Gru); }
std::unique_ptr<PreparedKernel> prepareRnn(const NodeDescriptor& info) { return prepareRecurrent(info, RnnKind::Rnn); }

} // namespace

void registerCpuRecurrentKernels(CpuKernelRegistry& registry) {
    registry.add("LSTM", prepareLstm);
    registry.add("GRU", prepareGru);
    registry.add("RNN", prepareRnn);
}

} // namespace graphlens
