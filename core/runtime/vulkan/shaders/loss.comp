// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss over scores [N, C, D...] (D: the product
// of the trailing dims) in up to three dispatches: MODE 0 writes log-softmax over C per position
// (SCE), MODE 1 each position's loss -logp[n, t, d] * w[t] (0 for ignore_index) and, when the
// loss is reduced, its weight, MODE 2 one workgroup sums them (reduction sum, or mean: the losses'
// sum over the weights' sum).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const int MODE = 0;
layout(constant_id = 1) const uint N = 1;
layout(constant_id = 2) const uint C = 1;
layout(constant_id = 3) const uint D = 1;
layout(constant_id = 4) const int TT = TY_I64;     // the targets' type
layout(constant_id = 5) const int HAS_WEIGHT = 0;
layout(constant_id = 6) const int HAS_IGNORE = 0;
layout(constant_id = 7) const int IGNORE = 0;
layout(constant_id = 8) const int REDUCTION = 0;  // 0 none, 1 sum, 2 mean

layout(binding = 0) buffer Out { float y[]; };
layout(binding = 1) readonly buffer In { float x[]; };
layout(binding = 2) readonly buffer Target { uint target[]; };
layout(binding = 3) readonly buffer Weight { float weight[]; };

shared float partLoss[64];
shared float partWeight[64];

void main() {
    uint i = flatIndex();
    if (MODE == 0) {  // log-softmax over C at position i = n * D + d
        if (i >= N * D) return;
        uint base = (i / D) * C * D + i % D;
        float m = -3.402823466e38;
        for (uint c = 0; c < C; ++c) m = max(m, x[base + c * D]);
        float sum = 0.0;
        for (uint c = 0; c < C; ++c) sum += exp(x[base + c * D] - m);
        float shift = m + log(sum);
        for (uint c = 0; c < C; ++c) y[base + c * D] = x[base + c * D] - shift;
    } else if (MODE == 1) {
        if (i >= N * D) return;
        int t = LOAD_INT(target, TT, i);
        float loss = 0.0, w = 0.0;
        if (HAS_IGNORE == 0 || t != IGNORE) {
            uint tc = uint(clamp(t, 0, int(C) - 1));
            w = HAS_WEIGHT == 1 ? weight[tc] : 1.0;
            loss = -x[(i / D) * C * D + tc * D + i % D] * w;
        }
        if (REDUCTION == 0) {
            y[i] = loss;
        } else {
            y[2u * i] = loss;
            y[2u * i + 1u] = w;
        }
    } else {  // one workgroup: x holds (loss, weight) pairs
        uint lane = gl_LocalInvocationID.x;
        float l = 0.0, w = 0.0;
        for (uint j = lane; j < N * D; j += 64u) {
            l += x[2u * j];
            w += x[2u * j + 1u];
        }
        partLoss[lane] = l;
        partWeight[lane] = w;
        barrier();
        for (uint half_ = 32u; half_ > 0u; half_ >>= 1) {
            if (lane < half_) {
                partLoss[lane] += partLoss[lane + half_];
                partWeight[lane] += partWeight[lane + half_];
            }
            barrier();
        }
        if (lane == 0u) y[0] = REDUCTION == 2 ? partLoss[0] / partWeight[0] : partLoss[0];
    }
}
