// GatherND as element moves of any element type: output element i is element j of the slice its
// index tuple t (i / INNER) selects, in the batch b (t / TUPLES_PER_BATCH) it shares with the data.
// Negative indices count from the end of their axis.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint INNER = 1;             // elements of one slice
layout(constant_id = 2) const uint TUPLES_PER_BATCH = 1;
layout(constant_id = 3) const uint BATCH_STRIDE = 0;      // elements of the data per batch
layout(constant_id = 4) const int K = 1;                  // indices per tuple (up to 6)
layout(constant_id = 5) const int DIM0 = 1;
layout(constant_id = 6) const int DIM1 = 1;
layout(constant_id = 7) const int DIM2 = 1;
layout(constant_id = 8) const int DIM3 = 1;
layout(constant_id = 9) const int DIM4 = 1;
layout(constant_id = 10) const int DIM5 = 1;
layout(constant_id = 11) const uint STR0 = 0;
layout(constant_id = 12) const uint STR1 = 0;
layout(constant_id = 13) const uint STR2 = 0;
layout(constant_id = 14) const uint STR3 = 0;
layout(constant_id = 15) const uint STR4 = 0;
layout(constant_id = 16) const uint STR5 = 0;
layout(constant_id = 17) const int TI = TY_I64;  // the indices' type
layout(constant_id = 18) const int TY = TY_U32;  // the data's element type (by size: U8, U16, U32, U64)

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer Data { uint x[]; };
layout(binding = 2) readonly buffer Indices { uint ind[]; };

uint axisOffset(uint tuple, int m, int dim, uint stride) {
    if (m >= K) return 0u;
    int index = LOAD_INT(ind, TI, tuple * uint(K) + uint(m));
    if (index < 0) index += dim;
    return uint(clamp(index, 0, dim - 1)) * stride;
}

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint t = i / INNER;
    uint e = (t / TUPLES_PER_BATCH) * BATCH_STRIDE + i % INNER;
    e += axisOffset(t, 0, DIM0, STR0) + axisOffset(t, 1, DIM1, STR1) + axisOffset(t, 2, DIM2, STR2) +
         axisOffset(t, 3, DIM3, STR3) + axisOffset(t, 4, DIM4, STR4) + axisOffset(t, 5, DIM5, STR5);
    uint v = bitsFromWord(TY, x[wordOf(TY, e)], e);
    uint hi = HIGH_WORD(x, TY, e);
    STORE_BITS(y, TY, i, v, hi)
}
