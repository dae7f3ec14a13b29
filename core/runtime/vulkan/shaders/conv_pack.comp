// The A side of a convolution on gemm_texel.comp: the input copied into RGBA32F texels of 4
// channels of one group at one padded position, [N][G][C4][HP][WP], zeros in the padding and past
// the group's channels, so the product's inner loop needs no bounds checks. A 1x1 convolution
// with strides packs only the positions it reads (every SH-th row, SW-th column). The input is read
// through an RGBA32F texel view: on lavapipe a texel fetch is one vector gather, a storage-buffer
// load a loop over the lanes.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int N = 1;
layout(constant_id = 1) const int C = 1;
layout(constant_id = 2) const int H = 1;
layout(constant_id = 3) const int W = 1;
layout(constant_id = 4) const int G = 1;
layout(constant_id = 5) const int C4 = 1;   // texels of channels per group
layout(constant_id = 6) const int HP = 1;   // padded rows
layout(constant_id = 7) const int WP = 1;   // padded columns
layout(constant_id = 8) const int PH = 0;   // padding before the first row
layout(constant_id = 9) const int PW = 0;
layout(constant_id = 10) const int SH = 1;  // input rows per packed row
layout(constant_id = 11) const int SW = 1;

layout(binding = 0) writeonly buffer Packed { vec4 T[]; };
layout(binding = 8) uniform samplerBuffer X;

float channel(int b, int g, int c, int ih, int iw) {
    const int CG = C / G;
    return c < CG ? texelElement(X, ((b * C + g * CG + c) * H + ih) * W + iw) : 0.0;
}

void main() {
    int t = int(flatIndex());
    if (t >= N * G * C4 * HP * WP) return;
    int wp = t % WP, hp = (t / WP) % HP, c4 = (t / (WP * HP)) % C4, bg = t / (WP * HP * C4);
    int g = bg % G, b = bg / G, ih = hp * SH - PH, iw = wp * SW - PW;
    vec4 v = vec4(0.0);
    if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
        int c = 4 * c4;
        v = vec4(channel(b, g, c, ih, iw), channel(b, g, c + 1, ih, iw), channel(b, g, c + 2, ih, iw),
                 channel(b, g, c + 3, ih, iw));
    }
    T[t] = v;
}
