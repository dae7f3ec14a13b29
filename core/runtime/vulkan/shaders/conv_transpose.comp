// ConvTranspose of float NC(D)HW tensors (1-D and 2-D run with D = H = 1), grouped, strided,
// dilated, padded: one invocation per output element gathers the input positions whose scatter
// lands on it (o = i * stride - pad + k * dilation), over the input channels of its group, plus
// the bias and a fused activation (4 output channels at a time where the weights come packed). Invocations go through the outputs by phase (oh mod SH, ow mod
// SW) first, so neighbouring lanes take the same kernel taps: no divergent channel loops.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int N = 1;
layout(constant_id = 1) const int C = 1;   // input channels
layout(constant_id = 2) const int D = 1;
layout(constant_id = 3) const int H = 1;
layout(constant_id = 4) const int W = 1;
layout(constant_id = 5) const int M = 1;   // output channels
layout(constant_id = 6) const int OD = 1;
layout(constant_id = 7) const int OH = 1;
layout(constant_id = 8) const int OW = 1;
layout(constant_id = 9) const int KD = 1;
layout(constant_id = 10) const int KH = 1;
layout(constant_id = 11) const int KW = 1;
layout(constant_id = 12) const int SD = 1;
layout(constant_id = 13) const int SH = 1;
layout(constant_id = 14) const int SW = 1;
layout(constant_id = 15) const int PD = 0;  // pads before each dim
layout(constant_id = 16) const int PH = 0;
layout(constant_id = 17) const int PW = 0;
layout(constant_id = 18) const int DD = 1;  // dilations
layout(constant_id = 19) const int DH = 1;
layout(constant_id = 20) const int DW = 1;
layout(constant_id = 21) const int GROUPS = 1;
layout(constant_id = 22) const int BIAS = 0;
layout(constant_id = 23) const int ACT = ACT_IDENTITY;
layout(constant_id = 24) const float ALPHA = 0.0;
layout(constant_id = 25) const float BETA = 0.0;
layout(constant_id = 26) const int TEXELS = 0;  // read X and W through their texel views (CPU devices)
// 1: W comes packed at plan time as texels of 4 output channels, [G][KD*KH*KW][C/G][blocks], and an
// invocation computes those 4 channels (one input fetch feeds 4 products); 0: one channel, W as is.
layout(constant_id = 27) const int PACKED = 0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Weights { float Wt[]; };  // [C][M / GROUPS][KD][KH][KW]
layout(binding = 3) readonly buffer Bias { float B[]; };
layout(binding = 8) uniform samplerBuffer Xt;
layout(binding = 9) uniform samplerBuffer Wtt;

float loadX(int i) { return TEXELS != 0 ? texelElement(Xt, i) : X[i]; }
float loadW(int i) { return TEXELS != 0 ? texelElement(Wtt, i) : Wt[i]; }

// The input position along one dim that kernel tap k scatters onto output o, or -1.
int sourceOf(int o, int k, int s, int p, int dil, int size) {
    int t = o + p - k * dil;
    if (t < 0 || t % s != 0) return -1;
    t /= s;
    return t < size ? t : -1;
}

// The first kernel tap along a dim that can land on output o, and the step to the next: with
// dilation 1 only taps k = (o + p) mod s (plus multiples of s) do; otherwise every tap is tried.
int firstTap(int o, int s, int p, int dil) { return dil == 1 ? ((o + p) % s + s) % s : 0; }
int tapStep(int s, int dil) { return dil == 1 ? s : 1; }

void main() {
    const int QH = (OH + SH - 1) / SH, QW = (OW + SW - 1) / SW;  // outputs per phase
    const int CB = PACKED != 0 ? 4 : 1;                         // output channels per invocation
    const int perGroup = M / GROUPS, inPerGroup = C / GROUPS, blocks = (perGroup + CB - 1) / CB;
    uint invocation = flatIndex();
    if (invocation >= uint(N * GROUPS * blocks * OD * SH * QH * SW * QW)) return;
    int i = int(invocation);
    int qw = i % QW; i /= QW;
    int qh = i % QH; i /= QH;
    int pw = i % SW; i /= SW;
    int ph = i % SH; i /= SH;
    int od = i % OD; i /= OD;
    int mb = i % blocks; i /= blocks;
    int g = i % GROUPS, n = i / GROUPS;
    int oh = qh * SH + ph, ow = qw * SW + pw;
    if (oh >= OH || ow >= OW) return;
    int plane = D * H * W, kernel = KD * KH * KW;
    int xBase = (n * C + g * inPerGroup) * plane;
    int wBase = (g * inPerGroup * perGroup + mb) * kernel;
    vec4 sum = vec4(0.0);
    for (int kd = firstTap(od, SD, PD, DD); kd < KD; kd += tapStep(SD, DD)) {
        int id = sourceOf(od, kd, SD, PD, DD, D);
        if (id < 0) continue;
        for (int kh = firstTap(oh, SH, PH, DH); kh < KH; kh += tapStep(SH, DH)) {
            int ih = sourceOf(oh, kh, SH, PH, DH, H);
            if (ih < 0) continue;
            for (int kw = firstTap(ow, SW, PW, DW); kw < KW; kw += tapStep(SW, DW)) {
                int iw = sourceOf(ow, kw, SW, PW, DW, W);
                if (iw < 0) continue;
                int x = xBase + (id * H + ih) * W + iw;
                int tap = (kd * KH + kh) * KW + kw;
                if (PACKED != 0) {
                    int w = ((g * kernel + tap) * inPerGroup) * blocks + mb;
                    for (int c = 0; c < inPerGroup; ++c)
                        sum += loadX(x + c * plane) * texelFetch(Wtt, w + c * blocks);
                } else {
                    for (int c = 0; c < inPerGroup; ++c)
                        sum.x += loadX(x + c * plane) * loadW(wBase + tap + c * perGroup * kernel);
                }
            }
        }
    }
    for (int j = 0; j < CB; ++j) {
        int mg = mb * CB + j;
        if (mg >= perGroup) break;
        int m = g * perGroup + mg;
        float v = sum[j] + (BIAS != 0 ? B[m] : 0.0);
        Y[((n * M + m) * OD + od) * OH * OW + oh * OW + ow] = activate(ACT, v, ALPHA, BETA);
    }
}
