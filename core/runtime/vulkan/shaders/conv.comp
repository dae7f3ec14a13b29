// Convolution as an implicit GEMM, per group: Y[m, n] = sum_k W[m, k] * X'[k, n] with m the output
// channel, n = (batch, oh, ow) and k = (input channel, kh, kw); X' is gathered from the input on the
// fly (zeros in the padding). 64x64 output tiles, 16-deep K slices staged through shared memory
// as 4-vectors, 256 invocations computing 4x4 outputs each in vector registers. Epilogue: + bias, + residual Z, activation (FusedConv).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common.glsl"
#include "conv_constants.glsl"

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Weights { float Wt[]; };
layout(binding = 3) readonly buffer Bias { float Bs_[]; };
layout(binding = 4) readonly buffer Residual { float Z[]; };

const int BM = 64, BN = 64, BK = 16;
// Tiles of 4-vectors: As[k][i] holds rows 4i..4i+3 of the weight slice, Bs[k][j] columns 4j..4j+3.
// No array is indexed by a run-time value inside an invocation (lavapipe scalarizes those).
shared vec4 As[BK][BM / 4];
shared vec4 Bs[BK][BN / 4];

float gathered(int n, int k) {
    const int NC = N * OH * OW, K = (C / G) * KH * KW;
    if (n >= NC || k >= K) return 0.0;
    int nb = n / (OH * OW), nrem = n % (OH * OW);
    int ci = k / (KH * KW), kr = k % (KH * KW);
    int ih = (nrem / OW) * SH - PH + (kr / KW) * DH, iw = (nrem % OW) * SW - PW + (kr % KW) * DW;
    if (ih < 0 || ih >= H || iw < 0 || iw >= W) return 0.0;
    return X[((nb * C + int(gl_WorkGroupID.z) * (C / G) + ci) * H + ih) * W + iw];
}

float weight(int m, int k) {
    const int M = OC / G, K = (C / G) * KH * KW;
    return (m < M && k < K) ? Wt[(int(gl_WorkGroupID.z) * M + m) * K + k] : 0.0;
}

void store(int m, int col, float acc) {
    const int M = OC / G, NC = N * OH * OW;
    if (m >= M || col >= NC) return;
    int oc = int(gl_WorkGroupID.z) * M + m;
    int idx = ((col / (OH * OW)) * OC + oc) * (OH * OW) + col % (OH * OW);
    float v = acc;
    if (HAS_BIAS != 0) v += Bs_[oc];
    if (HAS_Z != 0) v += Z[idx];
    Y[idx] = activate(ACT, v, ALPHA, BETA);
}

void storeRow(int m, int col, vec4 v) {
    store(m, col, v.x);
    store(m, col + 1, v.y);
    store(m, col + 2, v.z);
    store(m, col + 3, v.w);
}

void main() {
    const int K = (C / G) * KH * KW;
    int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
    int lid = int(gl_LocalInvocationID.x), tx = lid % 16, ty = lid / 16;
    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
    for (int k0 = 0; k0 < K; k0 += BK) {
        {   // this invocation stages 4 weights (rows) and 4 gathered inputs (columns)
            int kk = lid % BK, m = m0 + 4 * (lid / BK), k = k0 + kk;
            As[kk][lid / BK] = vec4(weight(m, k), weight(m + 1, k), weight(m + 2, k), weight(m + 3, k));
            int kb = lid / 16, n = n0 + 4 * (lid % 16);
            Bs[kb][lid % 16] = vec4(gathered(n, k0 + kb), gathered(n + 1, k0 + kb), gathered(n + 2, k0 + kb),
                                    gathered(n + 3, k0 + kb));
        }
        barrier();
        for (int kk = 0; kk < BK; ++kk) {
            vec4 a = As[kk][ty], b = Bs[kk][tx];
            acc0 += a.x * b;
            acc1 += a.y * b;
            acc2 += a.z * b;
            acc3 += a.w * b;
        }
        barrier();
    }
    int m = m0 + ty * 4, col = n0 + tx * 4;
    storeRow(m, col, acc0);
    storeRow(m + 1, col, acc1);
    storeRow(m + 2, col, acc2);
    storeRow(m + 3, col, acc3);
}
