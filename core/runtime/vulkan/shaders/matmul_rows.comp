// Batched matrix product for CPU Vulkan devices (lavapipe), same constants and bindings as
// matmul.comp: each invocation owns one column n and 16 rows, so the A values are the same for the
// whole workgroup (uniform loads) and each B value is gathered once. No shared memory, no barriers.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
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

float rowA(int base, int m, int k) { return A[base + min(m, M - 1) * ASM + k * ASK]; }

void store(int z, int m, int n, float acc) {
    if (m >= M) return;
    float v = ALPHA * acc;
    if (HAS_BIAS != 0) v += BETA * Cb[m * CSM + n * CSN];
    Y[(z * M + m) * N + n] = activate(ACT, v, ACT_ALPHA, ACT_BETA);
}

void storeRows(int z, int m, int n, vec4 v) {
    store(z, m, n, v.x);
    store(z, m + 1, n, v.y);
    store(z, m + 2, n, v.z);
    store(z, m + 3, n, v.w);
}

void main() {
    int n = int(gl_WorkGroupID.x) * 64 + int(gl_LocalInvocationID.x);
    if (n >= N) return;
    int z = int(gl_WorkGroupID.z);
    int b2 = z % OB2, b1 = (z / OB2) % OB1, b0 = z / (OB2 * OB1);
    int aBase = b0 * SA0 + b1 * SA1 + b2 * SA2, bBase = b0 * SB0 + b1 * SB1 + b2 * SB2;
    int m0 = int(gl_WorkGroupID.y) * 16;
    vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
    for (int k = 0; k < K; ++k) {
        float b = B[bBase + k * BSK + n * BSN];
        acc0 += b * vec4(rowA(aBase, m0, k), rowA(aBase, m0 + 1, k), rowA(aBase, m0 + 2, k), rowA(aBase, m0 + 3, k));
        acc1 += b * vec4(rowA(aBase, m0 + 4, k), rowA(aBase, m0 + 5, k), rowA(aBase, m0 + 6, k), rowA(aBase, m0 + 7, k));
        acc2 += b * vec4(rowA(aBase, m0 + 8, k), rowA(aBase, m0 + 9, k), rowA(aBase, m0 + 10, k), rowA(aBase, m0 + 11, k));
        acc3 += b * vec4(rowA(aBase, m0 + 12, k), rowA(aBase, m0 + 13, k), rowA(aBase, m0 + 14, k), rowA(aBase, m0 + 15, k));
    }
    storeRows(z, m0, n, acc0);
    storeRows(z, m0 + 4, n, acc1);
    storeRows(z, m0 + 8, n, acc2);
    storeRows(z, m0 + 12, n, acc3);
}
