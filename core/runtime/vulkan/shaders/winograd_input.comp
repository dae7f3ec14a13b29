// Winograd F(4x4, 3x3), input side (vulkan/conv_winograd.cpp): each invocation takes the 6x6 patch
// of one 4x4 output tile for 4 channels from the padded texel copy of the input (conv_pack.comp)
// and writes V = B^T d B, 36 texels, to [36][C4][tiles]: the A side of the 36 products. (Reading
// the input's storage buffer here instead, 144 loads per invocation, is three times slower on
// lavapipe than packing it first.)
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int N = 1;
layout(constant_id = 1) const int C4 = 1;
layout(constant_id = 2) const int TH = 1;   // tiles down
layout(constant_id = 3) const int TW = 1;   // tiles across
layout(constant_id = 4) const int HP = 1;   // rows of the padded input
layout(constant_id = 5) const int WP = 1;

layout(binding = 0) writeonly buffer Transformed { vec4 V[]; };
layout(binding = 8) uniform samplerBuffer Xp;

const int TILES = N * TH * TW;

// B^T x for one line x0..x5 of the patch (4 channels at a time), in place.
void transform(inout vec4 x0, inout vec4 x1, inout vec4 x2, inout vec4 x3, inout vec4 x4, inout vec4 x5) {
    vec4 t0 = 4.0 * x0 - 5.0 * x2 + x4;
    vec4 t1 = x4 + x3 - 4.0 * (x1 + x2);
    vec4 t2 = x4 - x3 + 4.0 * (x1 - x2);
    vec4 t3 = x4 - x2 + 2.0 * (x3 - x1);
    vec4 t4 = x4 - x2 - 2.0 * (x3 - x1);
    vec4 t5 = 4.0 * x1 - 5.0 * x3 + x5;
    x0 = t0;
    x1 = t1;
    x2 = t2;
    x3 = t3;
    x4 = t4;
    x5 = t5;
}

void main() {
    int idx = int(flatIndex());
    if (idx >= C4 * TILES) return;
    int t = idx % TILES, c4 = idx / TILES;
    int tx = t % TW, ty = (t / TW) % TH, n = t / (TW * TH);
    int base = ((n * C4 + c4) * HP + 4 * ty) * WP + 4 * tx;
    vec4 d[36];
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) d[r * 6 + c] = texelFetch(Xp, base + r * WP + c);
    for (int c = 0; c < 6; ++c) transform(d[c], d[6 + c], d[12 + c], d[18 + c], d[24 + c], d[30 + c]);  // B^T d
    for (int r = 0; r < 36; r += 6) transform(d[r], d[r + 1], d[r + 2], d[r + 3], d[r + 4], d[r + 5]);  // (B^T d) B
    // Loops of at most 6 steps, so the compiler unrolls them and d stays in registers.
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) V[((i * 6 + j) * C4 + c4) * TILES + t] = d[i * 6 + j];
}
