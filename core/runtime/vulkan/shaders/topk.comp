// TopK along an axis of a tensor viewed as [OUTER, N, INNER], one invocation per element: its rank
// is the count of elements of its line that come before it (larger for LARGEST, else smaller; NaN
// beyond every number; equal values in index order, as the reference's stable sort), and an
// element of rank below K writes its value and index at that rank. float32, int32 or int64 values
// (64-bit ones compared over both words).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint OUTER = 1;
layout(constant_id = 1) const uint N = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const uint K = 1;
layout(constant_id = 4) const int TX = TY_F32;
layout(constant_id = 5) const int LARGEST = 1;
layout(constant_id = 6) const int WRITE_INDICES = 1;

layout(binding = 0) buffer Values { uint v[]; };
layout(binding = 1) buffer Indices { uint idx[]; };
layout(binding = 2) readonly buffer In { uint x[]; };

// -1, 0 or 1 as element a is below, equal to or above element b (NaN above every number).
int order(uint a, uint b) {
    if (TX == TY_F32) {
        float fa = uintBitsToFloat(x[a]), fb = uintBitsToFloat(x[b]);
        bool na = isnan(fa), nb = isnan(fb);
        if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
        return fa < fb ? -1 : (fa > fb ? 1 : 0);
    }
    if (elementBytes(TX) == 8u) {
        uint la = x[2u * a], lb = x[2u * b];
        int ha = int(x[2u * a + 1u]), hb = int(x[2u * b + 1u]);
        if (ha != hb) return ha < hb ? -1 : 1;
        return la < lb ? -1 : (la > lb ? 1 : 0);
    }
    int ia = LOAD_INT(x, TX, a), ib = LOAD_INT(x, TX, b);
    return ia < ib ? -1 : (ia > ib ? 1 : 0);
}

void main() {
    uint i = flatIndex();
    if (i >= OUTER * N * INNER) return;
    uint inner = i % INNER, j = (i / INNER) % N, outer = i / (INNER * N);
    uint base = outer * N * INNER + inner;
    uint rank = 0u;
    for (uint m = 0u; m < N && rank < K; ++m) {
        int o = order(base + m * INNER, i);
        if (LARGEST == 0) o = -o;
        if (o > 0 || (o == 0 && m < j)) ++rank;
    }
    if (rank >= K) return;
    uint at = (outer * K + rank) * INNER + inner;
    uint bits = bitsFromWord(TX, x[wordOf(TX, i)], i);
    uint hi = HIGH_WORD(x, TX, i);
    STORE_BITS(v, TX, at, bits, hi)
    if (WRITE_INDICES != 0) { idx[2u * at] = j; idx[2u * at + 1u] = 0u; }
}
