// Reference kernels for the recurrent ops LSTM, GRU and RNN (opsets 7 and 14): forward, reverse
// and bidirectional directions, sequence_lens, initial states, LSTM peepholes and input_forget,
// GRU's linear_before_reset, the activation list with its alphas and betas, clip, and both
// layouts. Plain loops in double, one batch row and one step at a time, as the ONNX operator
// descriptions write the equations. Steps past a row's sequence length leave zeros in Y and keep
// the state of the last valid step for Y_h / Y_c (as ONNX Runtime does).
#include "core/runtime/reference/neural_net_internal.h"
#include "core/runtime/reference/rnn_spec.h"

#include <cmath>

namespace graphlens::nn {
namespace {

using rnn::Activation;
using rnn::RnnKind;
using rnn::RnnSpec;

double activate(const Activation& a, double x) { return rnn::apply(a, x); }

void recurrent(KernelContext& ctx, RnnKind kind) {
    const RnnSpec s = rnn::specOf(kind, ctx.attributes(), ctx.opset(), ctx.input(0).dims(), ctx.input(1).dims(),
                                  ctx.input(2).dims(), [&](size_t i) -> std::optional<std::vector<int64_t>> {
                                      if (!ctx.hasInput(i)) return std::nullopt;
                                      return ctx.input(i).dims();
                                  });
    const int64_t H = s.hidden, G = s.gates, I = s.inputSize, T = s.seqLength, N = s.batch;
    const std::vector<double> x = doublesOf(ctx.input(0)), w = doublesOf(ctx.input(1)), r = doublesOf(ctx.input(2));
    const std::vector<double> b = ctx.hasInput(3) ? doublesOf(ctx.input(3)) : std::vector<double>(size_t(s.dirs * 2 * G * H), 0.0);
    std::vector<int64_t> lengths(size_t(N), T);
    if (ctx.hasInput(4)) {
        const std::vector<double> l = doublesOf(ctx.input(4));
        for (int64_t n = 0; n < N; ++n) {
            if (l[size_t(n)] < 0 || l[size_t(n)] > double(T))
                throw KernelError("sequence_lens[" + std::to_string(n) + "] is " + std::to_string(int64_t(l[size_t(n)])) +
                                  "; it must be in [0, " + std::to_string(T) + "]");
            lengths[size_t(n)] = int64_t(l[size_t(n)]);
        }
    }
    const bool lstm = kind == RnnKind::Lstm;
    const std::vector<double> h0 = ctx.hasInput(5) ? doublesOf(ctx.input(5)) : std::vector<double>(size_t(s.dirs * N * H), 0.0);
    const std::vector<double> c0 = lstm && ctx.hasInput(6) ? doublesOf(ctx.input(6)) : std::vector<double>(size_t(s.dirs * N * H), 0.0);
    const std::vector<double> p = lstm && ctx.hasInput(7) ? doublesOf(ctx.input(7)) : std::vector<double>(size_t(s.dirs * 3 * H), 0.0);

    std::vector<double> y(size_t(T * s.dirs * N * H), 0.0), yh(size_t(s.dirs * N * H), 0.0), yc(yh.size(), 0.0);
    // Index helpers for both layouts: x[t][n][i], y[t][d][n][h], states[d][n][h] (layout 0).
    auto xAt = [&](int64_t t, int64_t n) { return s.layout == 0 ? (t * N + n) * I : (n * T + t) * I; };
    auto yAt = [&](int64_t t, int64_t d, int64_t n) {
        return s.layout == 0 ? ((t * s.dirs + d) * N + n) * H : ((n * T + t) * s.dirs + d) * H;
    };
    auto stateAt = [&](int64_t d, int64_t n) { return s.layout == 0 ? (d * N + n) * H : (n * s.dirs + d) * H; };

    std::vector<double> gates(size_t(G * H), 0.0), hPrev(size_t(H), 0.0), cPrev(size_t(H), 0.0), hNew(size_t(H), 0.0), cNew(size_t(H), 0.0);
    for (int64_t d = 0; d < s.dirs; ++d) {
        const bool reverse = s.direction == "reverse" || (s.direction == "bidirectional" && d == 1);
        const double* W = w.data() + d * G * H * I;
        const double* R = r.data() + d * G * H * H;
        const double* Wb = b.data() + d * 2 * G * H;
        const double* Rb = Wb + G * H;
        const double* P = p.data() + d * 3 * H;
        const auto& act = s.activations[size_t(d)];
        for (int64_t n = 0; n < N; ++n) {
            for (int64_t j = 0; j < H; ++j) {
                hPrev[size_t(j)] = h0[size_t(stateAt(d, n) + j)];
                cPrev[size_t(j)] = c0[size_t(stateAt(d, n) + j)];
            }
            const int64_t len = lengths[size_t(n)];
            for (int64_t step = 0; step < len; ++step) {
                const int64_t t = reverse ? len - 1 - step : step;
                const double* xt = x.data() + xAt(t, n);
                // gates[g*H + j] = x W^T + Wb (+ h R^T + Rb, except GRU's h gate).
                for (int64_t g = 0; g < G; ++g)
                    for (int64_t j = 0; j < H; ++j) {
                        const int64_t row = g * H + j;
                        double sum = Wb[row];
                        for (int64_t i = 0; i < I; ++i) sum += xt[i] * W[row * I + i];
                        gates[size_t(row)] = sum;
                    }
                auto recurrentTerm = [&](int64_t row, const double* h) {
                    double sum = 0.0;
                    for (int64_t k = 0; k < H; ++k) sum += h[k] * R[row * H + k];
                    return sum;
                };
                auto clip = [&](double v) { return s.clip > 0 ? std::min(std::max(v, -s.clip), s.clip) : v; };
                if (kind == RnnKind::Lstm) {
                    for (int64_t j = 0; j < H; ++j) {
                        double gi = gates[size_t(0 * H + j)] + recurrentTerm(0 * H + j, hPrev.data()) + Rb[0 * H + j];
                        double go = gates[size_t(1 * H + j)] + recurrentTerm(1 * H + j, hPrev.data()) + Rb[1 * H + j];
                        double gf = gates[size_t(2 * H + j)] + recurrentTerm(2 * H + j, hPrev.data()) + Rb[2 * H + j];
                        double gc = gates[size_t(3 * H + j)] + recurrentTerm(3 * H + j, hPrev.data()) + Rb[3 * H + j];
                        gi = activate(act[0], clip(gi + P[0 * H + j] * cPrev[size_t(j)]));
                        gf = s.inputForget ? 1.0 - gi : activate(act[0], clip(gf + P[2 * H + j] * cPrev[size_t(j)]));
                        gc = activate(act[1], clip(gc));
                        const double c = gf * cPrev[size_t(j)] + gi * gc;
                        go = activate(act[0], clip(go + P[1 * H + j] * c));
                        cNew[size_t(j)] = c;
                        hNew[size_t(j)] = go * activate(act[2], c);
                    }
                } else if (kind == RnnKind::Gru) {
                    std::vector<double> z(size_t(H), 0.0), rg(size_t(H), 0.0), rh(size_t(H), 0.0);
                    for (int64_t j = 0; j < H; ++j) {
                        z[size_t(j)] = activate(act[0], clip(gates[size_t(j)] + recurrentTerm(j, hPrev.data()) + Rb[j]));
                        rg[size_t(j)] = activate(act[0], clip(gates[size_t(H + j)] + recurrentTerm(H + j, hPrev.data()) + Rb[H + j]));
                    }
                    for (int64_t j = 0; j < H; ++j) rh[size_t(j)] = rg[size_t(j)] * hPrev[size_t(j)];
                    for (int64_t j = 0; j < H; ++j) {
                        const int64_t row = 2 * H + j;
                        const double pre = s.linearBeforeReset
                                               ? gates[size_t(row)] + rg[size_t(j)] * (recurrentTerm(row, hPrev.data()) + Rb[row])
                                               : gates[size_t(row)] + recurrentTerm(row, rh.data()) + Rb[row];
                        const double hh = activate(act[1], clip(pre));
                        hNew[size_t(j)] = (1.0 - z[size_t(j)]) * hh + z[size_t(j)] * hPrev[size_t(j)];
                    }
                } else {
                    for (int64_t j = 0; j < H; ++j)
                        hNew[size_t(j)] = activate(act[0], clip(gates[size_t(j)] + recurrentTerm(j, hPrev.data()) + Rb[j]));
                }
                hPrev = hNew;
                if (lstm) cPrev = cNew;
                for (int64_t j = 0; j < H; ++j) y[size_t(yAt(t, d, n) + j)] = hPrev[size_t(j)];
            }
            for (int64_t j = 0; j < H; ++j) {
                yh[size_t(stateAt(d, n) + j)] = hPrev[size_t(j)];
                yc[size_t(stateAt(d, n) + j)] = cPrev[size_t(j)];
            }
        }
    }
    const DType type = ctx.input(0).dtype();
    if (ctx.outputCount() > 0) ctx.setOutput(0, tensorOfDoubles(type, s.yDims(), y));
    if (ctx.outputCount() > 1) ctx.setOutput(1, tensorOfDoubles(type, s.stateDims(), yh));
    if (lstm && ctx.outputCount() > 2) ctx.setOutput(2, tensorOfDoubles(type, s.stateDims(), yc));
}

} // namespace

void lstm(KernelContext& ctx) { recurrent(ctx, RnnKind::Lstm); }
void gru(KernelContext& ctx) { recurrent(ctx, RnnKind::Gru); }
void rnn(KernelContext& ctx) { recurrent(ctx, RnnKind::Rnn); }

} // namespace graphlens::nn
