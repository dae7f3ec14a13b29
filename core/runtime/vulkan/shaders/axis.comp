// Ops along one axis of a tensor viewed as [OUTER, N, INNER], one invocation per (outer, inner)
// line: ArgMax and ArgMin (int64 indices, the first or the last extreme), Hardmax (1 at the first
// maximum) and CumSum (inclusive or exclusive, forward or reverse), on float32 or integer
// tensors (typed.glsl; integers compared and summed as 32-bit ints, int64 ones over both words:
// the high word signed, then the low word, sums carried).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const int OP = 0;  // 0 ArgMax, 1 ArgMin, 2 Hardmax, 3 CumSum
layout(constant_id = 1) const uint OUTER = 1;
layout(constant_id = 2) const uint N = 1;
layout(constant_id = 3) const uint INNER = 1;
layout(constant_id = 4) const int TX = TY_F32;
layout(constant_id = 5) const int TY = TY_F32;
layout(constant_id = 6) const int LAST = 0;       // ArgMax/ArgMin: select_last_index
layout(constant_id = 7) const int EXCLUSIVE = 0;  // CumSum
layout(constant_id = 8) const int REVERSE = 0;    // CumSum

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer In { uint x[]; };

// True when element a beats element b (a comes later along the walk).
bool beats(uint a, uint b) {
    bool maxOp = OP != 1;
    if (TX == TY_F32) {
        float va = LOAD_FLOAT(x, TX, a), vb = LOAD_FLOAT(x, TX, b);
        return LAST == 1 ? (maxOp ? va >= vb : va <= vb) : (maxOp ? va > vb : va < vb);
    }
    if (elementBytes(TX) == 8u) {
        int ha = int(x[2u * a + 1u]), hb = int(x[2u * b + 1u]);
        uint la = x[2u * a], lb = x[2u * b];
        int o = ha != hb ? (ha < hb ? -1 : 1) : (la < lb ? -1 : (la > lb ? 1 : 0));
        return LAST == 1 ? (maxOp ? o >= 0 : o <= 0) : (maxOp ? o > 0 : o < 0);
    }
    int va = LOAD_INT(x, TX, a), vb = LOAD_INT(x, TX, b);
    return LAST == 1 ? (maxOp ? va >= vb : va <= vb) : (maxOp ? va > vb : va < vb);
}

void main() {
    uint line = flatIndex();
    if (line >= OUTER * INNER) return;
    uint base = (line / INNER) * N * INNER + line % INNER;
    if (OP <= 2) {
        uint best = 0u;
        for (uint j = 1u; j < N; ++j)
            if (beats(base + j * INNER, base + best * INNER)) best = j;
        if (OP < 2) {
            STORE_INT(y, TY_I64, line, int(best))
        } else {
            for (uint j = 0u; j < N; ++j) STORE_FLOAT(y, TY, base + j * INNER, (j == best ? 1.0 : 0.0))
        }
        return;
    }
    float sumF = 0.0;
    int sumI = 0;
    uint sumLo = 0u, sumHi = 0u, carry;  // int64: the sum's two words
    for (uint k = 0u; k < N; ++k) {
        uint e = base + (REVERSE == 1 ? N - 1u - k : k) * INNER;
        if (elementBytes(TX) == 8u) {
            uint lo = x[2u * e], hi = x[2u * e + 1u];
            if (EXCLUSIVE == 0) { sumLo = uaddCarry(sumLo, lo, carry); sumHi += hi + carry; }
            y[2u * e] = sumLo;
            y[2u * e + 1u] = sumHi;
            if (EXCLUSIVE == 1) { sumLo = uaddCarry(sumLo, lo, carry); sumHi += hi + carry; }
            continue;
        }
        float vf = 0.0;
        int vi = 0;
        if (TX == TY_F32) vf = LOAD_FLOAT(x, TX, e); else vi = LOAD_INT(x, TX, e);
        if (EXCLUSIVE == 0) { sumF += vf; sumI += vi; }
        if (TY == TY_F32) { y[e] = floatBitsToUint(sumF); } else { STORE_INT(y, TY, e, sumI) }
        if (EXCLUSIVE == 1) { sumF += vf; sumI += vi; }
    }
}
