// Strided copy: walks an iteration shape (up to 6 dims after merging) and copies
// src[SRC_BASE + sum idx*S] to dst[DST_BASE + sum idx*T]. Serves Transpose, Concat (one dispatch
// per input), Slice, Split, Expand and the reshape-like ops (a plain copy). Elements are 32-bit
// words of any type (64-bit elements are two, walked as an inner dim; 8- and 16-bit ones take
// copy_narrow.comp).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint D0 = 1;
layout(constant_id = 2) const uint D1 = 1;
layout(constant_id = 3) const uint D2 = 1;
layout(constant_id = 4) const uint D3 = 1;
layout(constant_id = 5) const uint D4 = 1;
layout(constant_id = 6) const uint D5 = 1;
layout(constant_id = 7) const int S0 = 0;
layout(constant_id = 8) const int S1 = 0;
layout(constant_id = 9) const int S2 = 0;
layout(constant_id = 10) const int S3 = 0;
layout(constant_id = 11) const int S4 = 0;
layout(constant_id = 12) const int S5 = 0;
layout(constant_id = 13) const int T0 = 0;
layout(constant_id = 14) const int T1 = 0;
layout(constant_id = 15) const int T2 = 0;
layout(constant_id = 16) const int T3 = 0;
layout(constant_id = 17) const int T4 = 0;
layout(constant_id = 18) const int T5 = 0;
layout(constant_id = 19) const int SRC_BASE = 0;
layout(constant_id = 20) const int DST_BASE = 0;

layout(binding = 0) writeonly buffer Out { uint dst[]; };
layout(binding = 1) readonly buffer In { uint src[]; };

#define STEP(D, S, T) { int c = int(r % D); r /= D; is += c * S; id += c * T; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i;
    int is = SRC_BASE, id = DST_BASE;
    STEP(D5, S5, T5) STEP(D4, S4, T4) STEP(D3, S3, T3) STEP(D2, S2, T2) STEP(D1, S1, T1) STEP(D0, S0, T0)
    dst[id] = src[is];
}
