// Depthwise convolution (one input channel per output channel) for CPU devices (lavapipe): each
// invocation computes Q = 8 outputs along a row of one channel. Per kernel row it fetches the few RGBA32F
// texels that cover the input columns those Q outputs read (at any alignment: the element offset
// within the first texel is undone by selects), so 8 outputs cost 4 or 5 fetches per kernel row
// where conv_direct.comp fetches one texel per tap and output. The weights come packed per output
// channel in WT texels (zeros past KH * KW). Columns and rows outside the input read as zeros.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "conv_constants.glsl"

layout(constant_id = 21) const int WT = 1;  // weight texels per output channel: (KH * KW + 3) / 4

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 3) readonly buffer Bias { float B[]; };
layout(binding = 4) readonly buffer Residual { float Z[]; };
layout(binding = 8) uniform samplerBuffer Xt;
layout(binding = 9) uniform samplerBuffer Wt;

const int Q = 8;                                    // outputs per invocation
const int SPAN = (Q - 1) * SW + (KW - 1) * DW + 1;  // input columns they read in one row
const int FETCHES = (SPAN + 3) / 4 + 1;             // texels covering SPAN elements at any offset
const int TAPS = KH * KW;
const int X_TEXELS = (N * C * H * W + 3) / 4;

void main() {
    const int M = OC / G;  // output channels per input channel
    const int OWB = (OW + Q - 1) / Q;
    int idx = int(flatIndex());
    if (idx >= N * OC * OH * OWB) return;
    int owb = idx % OWB, oh = (idx / OWB) % OH, oc = (idx / (OWB * OH)) % OC, nb = idx / (OWB * OH * OC);
    int ow0 = owb * Q, iw0 = ow0 * SW - PW;

    float w[WT * 4];
    for (int t = 0; t < WT; ++t) {
        vec4 v = texelFetch(Wt, oc * WT + t);
        w[4 * t] = v.x, w[4 * t + 1] = v.y, w[4 * t + 2] = v.z, w[4 * t + 3] = v.w;
    }
    float acc[Q];
    float b = HAS_BIAS != 0 ? B[oc] : 0.0;
    for (int j = 0; j < Q; ++j) acc[j] = b;

    int plane = (nb * C + oc / M) * H;
    for (int kh = 0; kh < KH; ++kh) {
        int ih = oh * SH - PH + kh * DH;
        if (ih < 0 || ih >= H) continue;
        int e0 = (plane + ih) * W + iw0;  // flat index of the row's first column read (may be < the row)
        int t0 = e0 >> 2, off = e0 & 3;
        float raw[FETCHES * 4];
        for (int f = 0; f < FETCHES; ++f) {
            vec4 v = texelFetch(Xt, clamp(t0 + f, 0, X_TEXELS - 1));
            raw[4 * f] = v.x, raw[4 * f + 1] = v.y, raw[4 * f + 2] = v.z, raw[4 * f + 3] = v.w;
        }
        float x[SPAN];
        for (int k = 0; k < SPAN; ++k) {
            float v = off == 0 ? raw[k] : (off == 1 ? raw[k + 1] : (off == 2 ? raw[k + 2] : raw[k + 3]));
            int iw = iw0 + k;
            x[k] = iw >= 0 && iw < W ? v : 0.0;
        }
        for (int kw = 0; kw < KW; ++kw)
            for (int j = 0; j < Q; ++j) acc[j] += x[j * SW + kw * DW] * w[kh * KW + kw];
    }
    int base = ((nb * OC + oc) * OH + oh) * OW + ow0;
    for (int j = 0; j < Q; ++j) {
        if (ow0 + j >= OW) break;
        float v = acc[j];
        if (HAS_Z != 0) v += Z[base + j];
        Y[base + j] = activate(ACT, v, ALPHA, BETA);
    }
}
