// OneHot: output element (o, d, n) of [OUTER, DEPTH, INNER] is values[1] where index o * INNER + n
// (truncated toward zero; negative ones count from the end of the depth) equals d, else values[0],
// moved as bits of any element type (by size: U8, U16, U32, U64).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint DEPTH = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const int TI = TY_I64;  // the indices' type
layout(constant_id = 4) const int TY = TY_U32;  // the values' element type

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer Indices { uint ind[]; };
layout(binding = 2) readonly buffer Values { uint values[]; };

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint n = i % INNER, d = (i / INNER) % DEPTH, o = i / (INNER * DEPTH);
    uint p = o * INNER + n;
    float index = trunc(LOAD_FLOAT(ind, TI, p));  // exact below 2^24; the factory keeps DEPTH there
    if (index < 0.0) index += float(DEPTH);
    uint which = index == float(d) ? 1u : 0u;
    uint v = bitsFromWord(TY, values[wordOf(TY, which)], which);
    uint hi = HIGH_WORD(values, TY, which);
    STORE_BITS(y, TY, i, v, hi)
}
