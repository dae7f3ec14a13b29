// 2-D max and average pooling over NCHW (1-D runs as H = 1), one invocation per output.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int NC = 1;
layout(constant_id = 1) const int H = 1;
layout(constant_id = 2) const int W = 1;
layout(constant_id = 3) const int OH = 1;
layout(constant_id = 4) const int OW = 1;
layout(constant_id = 5) const int KH = 1;
layout(constant_id = 6) const int KW = 1;
layout(constant_id = 7) const int SH = 1;
layout(constant_id = 8) const int SW = 1;
layout(constant_id = 9) const int PT = 0;
layout(constant_id = 10) const int PL = 0;
layout(constant_id = 11) const int PB = 0;
layout(constant_id = 12) const int PR = 0;
layout(constant_id = 13) const int DH = 1;
layout(constant_id = 14) const int DW = 1;
layout(constant_id = 15) const int OP = 0;  // 0 max, 1 average without padding, 2 average with padding
layout(constant_id = 16) const int TEXELS = 0;  // read X through its texel view (CPU devices)

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 8) uniform samplerBuffer Xt;

float load(int i) { return TEXELS != 0 ? texelElement(Xt, i) : X[i]; }

void main() {
    int idx = int(flatIndex());
    if (idx >= NC * OH * OW) return;
    int ow = idx % OW, oh = (idx / OW) % OH, nc = idx / (OW * OH);
    int base = nc * H * W;
    float best = -3.402823466e38, sum = 0.0;
    int count = 0, padded = 0;
    for (int kh = 0; kh < KH; ++kh) {
        int ih = oh * SH - PT + kh * DH;
        for (int kw = 0; kw < KW; ++kw) {
            int iw = ow * SW - PL + kw * DW;
            if (ih >= -PT && ih < H + PB && iw >= -PL && iw < W + PR) ++padded;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            float v = load(base + ih * W + iw);
            best = max(best, v);
            sum += v;
            ++count;
        }
    }
    Y[idx] = OP == 0 ? best : sum / float(OP == 1 ? max(count, 1) : max(padded, 1));
}
