// 1x1 convolution with stride 1 and no padding for CPU devices (lavapipe), straight from the NCHW
// input: Y[n, m, p] = act(sum_c W[m, c] X[n, c, p] + bias + Z). Each invocation owns 4 consecutive
// positions (one RGBA32F texel of a channel plane, so H * W must be a multiple of 4) and 8 output
// channels; per input channel it fetches one texel of X and two of the weights (packed at plan time
// as [block of 8 output channels][C][8]) for 32 multiply-adds. No packing dispatch runs before it
// (conv_pack.comp costs a storage load and store per element on lavapipe).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "common.glsl"

layout(constant_id = 1) const int N = 1;
layout(constant_id = 2) const int C = 1;
layout(constant_id = 3) const int HW = 4;   // positions per plane, a multiple of 4
layout(constant_id = 4) const int OC = 1;
layout(constant_id = 5) const int HAS_BIAS = 0;
layout(constant_id = 6) const int HAS_Z = 0;
layout(constant_id = 7) const int ACT = 0;
layout(constant_id = 8) const float ACT_ALPHA = 0.0;
layout(constant_id = 9) const float ACT_BETA = 0.0;

layout(binding = 0) writeonly buffer Out { vec4 Y[]; };
layout(binding = 8) uniform samplerBuffer X;
layout(binding = 9) uniform samplerBuffer Wt;
layout(binding = 10) uniform samplerBuffer Bias;      // OC floats as texels
layout(binding = 11) uniform samplerBuffer Residual;  // shaped like Y

const int P4 = HW / 4;  // texels per plane

float element(vec4 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : (k == 2 ? v.z : v.w)); }

void main() {
    int lane = int(gl_GlobalInvocationID.x);
    if (lane >= N * P4) return;
    int mb = int(gl_WorkGroupID.y);
    int n = lane / P4, p4 = lane % P4;
    int x = n * C * P4 + p4, w = mb * C * 2;
    vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
    vec4 s4 = vec4(0.0), s5 = vec4(0.0), s6 = vec4(0.0), s7 = vec4(0.0);
    for (int c = 0; c < C; ++c) {
        vec4 v = texelFetch(X, x);
        vec4 w0 = texelFetch(Wt, w), w1 = texelFetch(Wt, w + 1);
        x += P4;
        w += 2;
        s0 += v * w0.x;
        s1 += v * w0.y;
        s2 += v * w0.z;
        s3 += v * w0.w;
        s4 += v * w1.x;
        s5 += v * w1.y;
        s6 += v * w1.z;
        s7 += v * w1.w;
    }
    vec4 b0 = vec4(0.0), b1 = vec4(0.0);
    if (HAS_BIAS != 0) b0 = texelFetch(Bias, 2 * mb), b1 = texelFetch(Bias, 2 * mb + 1);
    vec4 acc[8] = vec4[8](s0, s1, s2, s3, s4, s5, s6, s7);
    for (int r = 0; r < 8; ++r) {
        int m = mb * 8 + r;
        if (OC % 8 != 0 && m >= OC) break;
        int at = (n * OC + m) * P4 + p4;
        vec4 v = acc[r] + (r < 4 ? element(b0, r) : element(b1, r - 4));
        if (HAS_Z != 0) v += texelFetch(Residual, at);
        Y[at] = vec4(activate(ACT, v.x, ACT_ALPHA, ACT_BETA), activate(ACT, v.y, ACT_ALPHA, ACT_BETA),
                     activate(ACT, v.z, ACT_ALPHA, ACT_BETA), activate(ACT, v.w, ACT_ALPHA, ACT_BETA));
    }
}
