// Gather and GatherElements as element moves of any element type: the output (up to 6 dims) is
// walked with the data's strides (S) and the indices' strides (I); the index read there (negative
// ones count from the end of the axis) moves the read by AXIS_STRIDE elements per step.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint D0 = 1;
layout(constant_id = 2) const uint D1 = 1;
layout(constant_id = 3) const uint D2 = 1;
layout(constant_id = 4) const uint D3 = 1;
layout(constant_id = 5) const uint D4 = 1;
layout(constant_id = 6) const uint D5 = 1;
layout(constant_id = 7) const uint S0 = 0;
layout(constant_id = 8) const uint S1 = 0;
layout(constant_id = 9) const uint S2 = 0;
layout(constant_id = 10) const uint S3 = 0;
layout(constant_id = 11) const uint S4 = 0;
layout(constant_id = 12) const uint S5 = 0;
layout(constant_id = 13) const uint I0 = 0;
layout(constant_id = 14) const uint I1 = 0;
layout(constant_id = 15) const uint I2 = 0;
layout(constant_id = 16) const uint I3 = 0;
layout(constant_id = 17) const uint I4 = 0;
layout(constant_id = 18) const uint I5 = 0;
layout(constant_id = 19) const uint AXIS_STRIDE = 1;
layout(constant_id = 20) const int AXIS_DIM = 1;
layout(constant_id = 21) const int TI = TY_I64;  // the indices' type
layout(constant_id = 22) const int TY = TY_U32;  // the data's element type (by size: U8, U16, U32, U64)

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer Data { uint x[]; };
layout(binding = 2) readonly buffer Indices { uint ind[]; };

#define STEP(D, S, I) { uint q = r % D; r /= D; is += q * S; ii += q * I; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, is = 0, ii = 0;
    STEP(D5, S5, I5) STEP(D4, S4, I4) STEP(D3, S3, I3) STEP(D2, S2, I2) STEP(D1, S1, I1) STEP(D0, S0, I0)
    int index = LOAD_INT(ind, TI, ii);
    if (index < 0) index += AXIS_DIM;
    index = clamp(index, 0, AXIS_DIM - 1);
    uint e = is + uint(index) * AXIS_STRIDE;
    uint v = bitsFromWord(TY, x[wordOf(TY, e)], e);
    uint hi = HIGH_WORD(x, TY, e);
    STORE_BITS(y, TY, i, v, hi)
}
