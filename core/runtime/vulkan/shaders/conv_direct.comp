// Direct convolution, one invocation per output: for depthwise and other narrow grouped
// convolutions, where a 64-wide tile of output channels would be mostly empty.
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
layout(binding = 8) uniform samplerBuffer Xt;
layout(binding = 9) uniform samplerBuffer Wtt;
layout(constant_id = 21) const int TEXELS = 0;  // read X and the weights through texel views (CPU devices)

float input_(int i) { return TEXELS != 0 ? texelElement(Xt, i) : X[i]; }
float weight(int i) { return TEXELS != 0 ? texelElement(Wtt, i) : Wt[i]; }

void main() {
    const int CG = C / G, M = OC / G;
    int idx = int(flatIndex());
    if (idx >= N * OC * OH * OW) return;
    int ow = idx % OW, oh = (idx / OW) % OH, oc = (idx / (OW * OH)) % OC, nb = idx / (OW * OH * OC);
    int g = oc / M;
    float acc = HAS_BIAS != 0 ? B[oc] : 0.0;
    for (int ci = 0; ci < CG; ++ci) {
        int xBase = (nb * C + g * CG + ci) * H * W, wBase = (oc * CG + ci) * KH * KW;
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh * SH - PH + kh * DH;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow * SW - PW + kw * DW;
                if (iw >= 0 && iw < W) acc += input_(xBase + ih * W + iw) * weight(wBase + kh * KW + kw);
            }
        }
    }
    if (HAS_Z != 0) acc += Z[idx];
    Y[idx] = activate(ACT, acc, ALPHA, BETA);
}
