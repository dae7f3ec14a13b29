// Matrix product for CPU Vulkan devices (see vulkan/texel_gemm.h): each invocation owns 4
// positions and 8 output channels and keeps their 32 sums in registers. Both operands are RGBA32F
// texel buffers packed along k, so one step reads 4 texels of A (one per position) and 8 of B (one
// per channel) and does 128 multiply-adds; no storage-buffer or shared-memory load in the loop
// (on lavapipe those are per-lane loops, a texel fetch is a vector gather). Conv runs here as an
// implicit GEMM with taps (kh, kw) over a padded copy of its input, MatMul and Gemm with one tap.
// Epilogue: alpha, beta * bias, + residual Z, activation.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "common.glsl"

layout(constant_id = 1) const int K4 = 1;
layout(constant_id = 2) const int KH = 1;
layout(constant_id = 3) const int KW = 1;
layout(constant_id = 4) const int A_K = 1;
layout(constant_id = 5) const int A_H = 0;
layout(constant_id = 6) const int A_W = 0;
layout(constant_id = 7) const int OUTER = 1;
layout(constant_id = 8) const int INNER = 1;
layout(constant_id = 9) const int ROW = 1;
layout(constant_id = 10) const int A_OUTER = 0;
layout(constant_id = 11) const int A_ROW = 0;
layout(constant_id = 12) const int A_COL = 0;
layout(constant_id = 13) const int A_GROUP = 0;
layout(constant_id = 14) const int M = 1;
layout(constant_id = 15) const int MB = 1;
layout(constant_id = 16) const int B_PER_OUTER = 0;
layout(constant_id = 17) const int Y_OUTER = 0;
layout(constant_id = 18) const int Y_INNER = 1;
layout(constant_id = 19) const int Y_CHANNEL = 1;
layout(constant_id = 20) const int HAS_BIAS = 0;
layout(constant_id = 21) const int BIAS_CHANNEL = 1;
layout(constant_id = 22) const int BIAS_INNER = 0;
layout(constant_id = 23) const int HAS_Z = 0;
layout(constant_id = 24) const float ALPHA = 1.0;
layout(constant_id = 25) const float BETA = 1.0;
layout(constant_id = 26) const int ACT = 0;
layout(constant_id = 27) const float ACT_ALPHA = 0.0;
layout(constant_id = 28) const float ACT_BETA = 0.0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer Bias { float Bs[]; };
layout(binding = 2) readonly buffer Residual { float Z[]; };
layout(binding = 8) uniform samplerBuffer A;
layout(binding = 9) uniform samplerBuffer B;

const int P = 4, R = 8;
const int LANES_PER_OUTER = (INNER + P - 1) / P;

int positionBase(int o, int i, int g) {
    return o * A_OUTER + g * A_GROUP + (i / ROW) * A_ROW + (i % ROW) * A_COL;
}

void store(int o, int i, int g, int m, float acc) {
    // Only partial tiles check their bounds (a branch puts the store under a lane mask).
    if ((INNER % P != 0 && i >= INNER) || (M % R != 0 && m >= M)) return;
    int channel = g * M + m;
    int idx = o * Y_OUTER + i * Y_INNER + channel * Y_CHANNEL;
    float v = ALPHA * acc;
    if (HAS_BIAS != 0) v += BETA * Bs[channel * BIAS_CHANNEL + i * BIAS_INNER];
    if (HAS_Z != 0) v += Z[idx];
    Y[idx] = activate(ACT, v, ACT_ALPHA, ACT_BETA);
}

// acc0 holds channels 0..3 of a position, acc1 channels 4..7.
void storePosition(int o, int i, int g, int m0, vec4 acc0, vec4 acc1) {
    store(o, i, g, m0, acc0.x);
    store(o, i, g, m0 + 1, acc0.y);
    store(o, i, g, m0 + 2, acc0.z);
    store(o, i, g, m0 + 3, acc0.w);
    store(o, i, g, m0 + 4, acc1.x);
    store(o, i, g, m0 + 5, acc1.y);
    store(o, i, g, m0 + 6, acc1.z);
    store(o, i, g, m0 + 7, acc1.w);
}

void main() {
    int lane = int(gl_GlobalInvocationID.x);
    int g = int(gl_WorkGroupID.z), mb = int(gl_WorkGroupID.y);
    if (lane >= OUTER * LANES_PER_OUTER) return;
    int o = lane / LANES_PER_OUTER, i0 = (lane % LANES_PER_OUTER) * P;
    int a0 = positionBase(o, min(i0, INNER - 1), g), a1 = positionBase(o, min(i0 + 1, INNER - 1), g);
    int a2 = positionBase(o, min(i0 + 2, INNER - 1), g), a3 = positionBase(o, min(i0 + 3, INNER - 1), g);
    int b = ((B_PER_OUTER != 0 ? o : g) * MB + mb) * (K4 * KH * KW * R);
    vec4 s00 = vec4(0.0), s01 = vec4(0.0), s10 = vec4(0.0), s11 = vec4(0.0);
    vec4 s20 = vec4(0.0), s21 = vec4(0.0), s30 = vec4(0.0), s31 = vec4(0.0);
    for (int c = 0; c < K4; ++c) {
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                int at = c * A_K + kh * A_H + kw * A_W;
                // Columns of w0 are channels 0..3 over 4 k values: x * w0 = their 4 dot products.
                mat4 w0 = mat4(texelFetch(B, b), texelFetch(B, b + 1), texelFetch(B, b + 2), texelFetch(B, b + 3));
                mat4 w1 = mat4(texelFetch(B, b + 4), texelFetch(B, b + 5), texelFetch(B, b + 6), texelFetch(B, b + 7));
                b += R;
                vec4 x0 = texelFetch(A, a0 + at), x1 = texelFetch(A, a1 + at);
                vec4 x2 = texelFetch(A, a2 + at), x3 = texelFetch(A, a3 + at);
                s00 += x0 * w0;
                s01 += x0 * w1;
                s10 += x1 * w0;
                s11 += x1 * w1;
                s20 += x2 * w0;
                s21 += x2 * w1;
                s30 += x3 * w0;
                s31 += x3 * w1;
            }
        }
    }
    int m0 = mb * R;
    storePosition(o, i0, g, m0, s00, s01);
    storePosition(o, i0 + 1, g, m0, s10, s11);
    storePosition(o, i0 + 2, g, m0, s20, s21);
    storePosition(o, i0 + 3, g, m0, s30, s31);
}
