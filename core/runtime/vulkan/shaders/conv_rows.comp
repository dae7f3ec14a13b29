// Convolution for CPU Vulkan devices (lavapipe): each invocation owns one output column
// n = (batch, oh, ow) and 16 output channels, gathering each input value once and multiplying it by
// 16 weights that are the same for the whole workgroup (uniform loads, which a CPU device turns
// into one broadcast load instead of a per-lane gather). No shared memory, no barriers.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "conv_constants.glsl"

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Weights { float Wt[]; };
layout(binding = 3) readonly buffer Bias { float B[]; };
layout(binding = 4) readonly buffer Residual { float Z[]; };

void store(int m, int n, float acc) {
    const int M = OC / G;
    if (m >= M) return;
    int oc = int(gl_WorkGroupID.z) * M + m;
    int idx = ((n / (OH * OW)) * OC + oc) * (OH * OW) + n % (OH * OW);
    float v = acc;
    if (HAS_BIAS != 0) v += B[oc];
    if (HAS_Z != 0) v += Z[idx];
    Y[idx] = activate(ACT, v, ALPHA, BETA);
}

void storeRows(int m, int n, vec4 v) {
    store(m, n, v.x);
    store(m + 1, n, v.y);
    store(m + 2, n, v.z);
    store(m + 3, n, v.w);
}

void main() {
    const int CG = C / G, M = OC / G, K = CG * KH * KW, NC = N * OH * OW;
    int n = int(gl_WorkGroupID.x) * 64 + int(gl_LocalInvocationID.x);
    if (n >= NC) return;
    int g = int(gl_WorkGroupID.z), m0 = int(gl_WorkGroupID.y) * 16;
    int nb = n / (OH * OW), nrem = n % (OH * OW);
    int ihBase = (nrem / OW) * SH - PH, iwBase = (nrem % OW) * SW - PW;
    int xBase = (nb * C + g * CG) * H * W;
    // Rows past M read row M - 1 (their results are not stored).
    int r0 = (g * M + min(m0, M - 1)) * K, r1 = (g * M + min(m0 + 1, M - 1)) * K;
    int r2 = (g * M + min(m0 + 2, M - 1)) * K, r3 = (g * M + min(m0 + 3, M - 1)) * K;
    int r4 = (g * M + min(m0 + 4, M - 1)) * K, r5 = (g * M + min(m0 + 5, M - 1)) * K;
    int r6 = (g * M + min(m0 + 6, M - 1)) * K, r7 = (g * M + min(m0 + 7, M - 1)) * K;
    int r8 = (g * M + min(m0 + 8, M - 1)) * K, r9 = (g * M + min(m0 + 9, M - 1)) * K;
    int r10 = (g * M + min(m0 + 10, M - 1)) * K, r11 = (g * M + min(m0 + 11, M - 1)) * K;
    int r12 = (g * M + min(m0 + 12, M - 1)) * K, r13 = (g * M + min(m0 + 13, M - 1)) * K;
    int r14 = (g * M + min(m0 + 14, M - 1)) * K, r15 = (g * M + min(m0 + 15, M - 1)) * K;
    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
    int k = 0;
    for (int ci = 0; ci < CG; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = ihBase + kh * DH;
            for (int kw = 0; kw < KW; ++kw, ++k) {
                int iw = iwBase + kw * DW;
                bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
                float x = inside ? X[xBase + (ci * H + ih) * W + iw] : 0.0;
                acc0 += x * vec4(Wt[r0 + k], Wt[r1 + k], Wt[r2 + k], Wt[r3 + k]);
                acc1 += x * vec4(Wt[r4 + k], Wt[r5 + k], Wt[r6 + k], Wt[r7 + k]);
                acc2 += x * vec4(Wt[r8 + k], Wt[r9 + k], Wt[r10 + k], Wt[r11 + k]);
                acc3 += x * vec4(Wt[r12 + k], Wt[r13 + k], Wt[r14 + k], Wt[r15 + k]);
            }
        }
    }
    storeRows(m0, n, acc0);
    storeRows(m0 + 4, n, acc1);
    storeRows(m0 + 8, n, acc2);
    storeRows(m0 + 12, n, acc3);
}
