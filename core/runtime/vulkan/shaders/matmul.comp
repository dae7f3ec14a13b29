// Batched matrix product with Gemm's extras: Y[b, m, n] = act(ALPHA * sum_k A[b, m, k] B[b, k, n]
// + BETA * C[m, n]). A and B are read through strides (transposes and broadcast batch dims are
// strides), C through strides that are 0 along broadcast dims. Same tiling as conv.comp.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 256) in;
#include "common.glsl"

layout(constant_id = 0) const int M = 1;
layout(constant_id = 1) const int N = 1;
layout(constant_id = 2) const int K = 1;
layout(constant_id = 3) const int ASM = 0;
layout(constant_id = 4) const int ASK = 0;
layout(constant_id = 5) const int BSK = 0;
layout(constant_id = 6) const int BSN = 0;
layout(constant_id = 7) const int OB0 = 1;
layout(constant_id = 8) const int OB1 = 1;
layout(constant_id = 9) const int OB2 = 1;
layout(constant_id = 10) const int SA0 = 0;
layout(constant_id = 11) const int SA1 = 0;
layout(constant_id = 12) const int SA2 = 0;
layout(constant_id = 13) const int SB0 = 0;
layout(constant_id = 14) const int SB1 = 0;
layout(constant_id = 15) const int SB2 = 0;
layout(constant_id = 16) const float ALPHA = 1.0;
layout(constant_id = 17) const float BETA = 1.0;
layout(constant_id = 18) const int HAS_BIAS = 0;
layout(constant_id = 19) const int CSM = 0;
layout(constant_id = 20) const int CSN = 0;
layout(constant_id = 21) const int ACT = 0;
layout(constant_id = 22) const float ACT_ALPHA = 0.0;
layout(constant_id = 23) const float ACT_BETA = 0.0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer InA { float A[]; };
layout(binding = 2) readonly buffer InB { float B[]; };
layout(binding = 3) readonly buffer InC { float Cb[]; };

const int BM = 64, BN = 64, BK = 16;
// Tiles of 4-vectors, as in conv.comp: no run-time array indexing inside an invocation.
shared vec4 As[BK][BM / 4];
shared vec4 Bs[BK][BN / 4];

float elementA(int base, int m, int k) { return (m < M && k < K) ? A[base + m * ASM + k * ASK] : 0.0; }
float elementB(int base, int k, int n) { return (n < N && k < K) ? B[base + k * BSK + n * BSN] : 0.0; }

void store(int z, int m, int n, float acc) {
    if (m >= M || n >= N) return;
    float v = ALPHA * acc;
    if (HAS_BIAS != 0) v += BETA * Cb[m * CSM + n * CSN];
    Y[(z * M + m) * N + n] = activate(ACT, v, ACT_ALPHA, ACT_BETA);
}

void storeRow(int z, int m, int n, vec4 v) {
    store(z, m, n, v.x);
    store(z, m, n + 1, v.y);
    store(z, m, n + 2, v.z);
    store(z, m, n + 3, v.w);
}

void main() {
    int z = int(gl_WorkGroupID.z);
    int b2 = z % OB2, b1 = (z / OB2) % OB1, b0 = z / (OB2 * OB1);
    int aBase = b0 * SA0 + b1 * SA1 + b2 * SA2, bBase = b0 * SB0 + b1 * SB1 + b2 * SB2;
    int m0 = int(gl_WorkGroupID.y) * BM, n0 = int(gl_WorkGroupID.x) * BN;
    int lid = int(gl_LocalInvocationID.x), tx = lid % 16, ty = lid / 16;
    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
    for (int k0 = 0; k0 < K; k0 += BK) {
        {
            int kk = lid % BK, m = m0 + 4 * (lid / BK), k = k0 + kk;
            As[kk][lid / BK] = vec4(elementA(aBase, m, k), elementA(aBase, m + 1, k), elementA(aBase, m + 2, k),
                                    elementA(aBase, m + 3, k));
            int kb = k0 + lid / 16, n = n0 + 4 * (lid % 16);
            Bs[lid / 16][lid % 16] = vec4(elementB(bBase, kb, n), elementB(bBase, kb, n + 1), elementB(bBase, kb, n + 2),
                                          elementB(bBase, kb, n + 3));
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
    int m = m0 + ty * 4, n = n0 + tx * 4;
    storeRow(z, m, n, acc0);
    storeRow(z, m + 1, n, acc1);
    storeRow(z, m + 2, n, acc2);
    storeRow(z, m + 3, n, acc3);
}
