// ScatterElements and ScatterND into an output already holding a copy of the data: one invocation
// per line, which walks its STEPS updates in the reference's order (so repeated targets combine in
// that order, and the reductions need no atomics). Line i (over L0..L5) starts at target TBASE,
// update UBASE and index IBASE (strides TS, US, IS); step s reads K indices at IBASE + s * I_STEP
// (negative ones count from the end of axis m of DIMm, which moves the target by STRm per step) and
// the update at UBASE + s * U_STEP.
//   ScatterElements: a line is a position of the indices with the axis dropped, K = 1.
//   ScatterND: a line is an element j of the slices, the steps are the index tuples.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;  // lines
layout(constant_id = 1) const uint L0 = 1;
layout(constant_id = 2) const uint L1 = 1;
layout(constant_id = 3) const uint L2 = 1;
layout(constant_id = 4) const uint L3 = 1;
layout(constant_id = 5) const uint L4 = 1;
layout(constant_id = 6) const uint L5 = 1;
layout(constant_id = 7) const uint TS0 = 0;
layout(constant_id = 8) const uint TS1 = 0;
layout(constant_id = 9) const uint TS2 = 0;
layout(constant_id = 10) const uint TS3 = 0;
layout(constant_id = 11) const uint TS4 = 0;
layout(constant_id = 12) const uint TS5 = 0;
layout(constant_id = 13) const uint US0 = 0;
layout(constant_id = 14) const uint US1 = 0;
layout(constant_id = 15) const uint US2 = 0;
layout(constant_id = 16) const uint US3 = 0;
layout(constant_id = 17) const uint US4 = 0;
layout(constant_id = 18) const uint US5 = 0;
layout(constant_id = 19) const uint IS0 = 0;
layout(constant_id = 20) const uint IS1 = 0;
layout(constant_id = 21) const uint IS2 = 0;
layout(constant_id = 22) const uint IS3 = 0;
layout(constant_id = 23) const uint IS4 = 0;
layout(constant_id = 24) const uint IS5 = 0;
layout(constant_id = 25) const uint STEPS = 1;
layout(constant_id = 26) const uint I_STEP = 1;
layout(constant_id = 27) const uint U_STEP = 1;
layout(constant_id = 28) const int K = 1;
layout(constant_id = 29) const int DIM0 = 1;
layout(constant_id = 30) const int DIM1 = 1;
layout(constant_id = 31) const int DIM2 = 1;
layout(constant_id = 32) const int DIM3 = 1;
layout(constant_id = 33) const int DIM4 = 1;
layout(constant_id = 34) const int DIM5 = 1;
layout(constant_id = 35) const uint STR0 = 0;
layout(constant_id = 36) const uint STR1 = 0;
layout(constant_id = 37) const uint STR2 = 0;
layout(constant_id = 38) const uint STR3 = 0;
layout(constant_id = 39) const uint STR4 = 0;
layout(constant_id = 40) const uint STR5 = 0;
layout(constant_id = 41) const int TI = TY_I64;  // the indices' type
layout(constant_id = 42) const int TY = TY_F32;  // the data's element type
layout(constant_id = 43) const int REDUCTION = 0;  // 0 none, 1 add, 2 mul, 3 max, 4 min

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer Indices { uint ind[]; };
layout(binding = 2) readonly buffer Updates { uint u[]; };

uint axisOffset(uint at, int m, int dim, uint stride) {
    if (m >= K) return 0u;
    int index = LOAD_INT(ind, TI, at + uint(m));
    if (index < 0) index += dim;
    return uint(clamp(index, 0, dim - 1)) * stride;
}

#define STEP(L, TS, US, IS) { uint q = r % L; r /= L; tb += q * TS; ub += q * US; ib += q * IS; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, tb = 0u, ub = 0u, ib = 0u;
    STEP(L5, TS5, US5, IS5) STEP(L4, TS4, US4, IS4) STEP(L3, TS3, US3, IS3) STEP(L2, TS2, US2, IS2) STEP(L1, TS1, US1, IS1) STEP(L0, TS0, US0, IS0)
    for (uint s = 0u; s < STEPS; ++s) {
        uint at = ib + s * I_STEP, from = ub + s * U_STEP;
        uint t = tb + axisOffset(at, 0, DIM0, STR0) + axisOffset(at, 1, DIM1, STR1) + axisOffset(at, 2, DIM2, STR2) +
                 axisOffset(at, 3, DIM3, STR3) + axisOffset(at, 4, DIM4, STR4) + axisOffset(at, 5, DIM5, STR5);
        if (REDUCTION == 0) {
            uint v = bitsFromWord(TY, u[wordOf(TY, from)], from);
            uint hi = HIGH_WORD(u, TY, from);
            STORE_BITS(y, TY, t, v, hi)
        } else if (TY == TY_F32) {
            float a = uintBitsToFloat(y[t]), b = uintBitsToFloat(u[from]);
            float v = REDUCTION == 1 ? a + b : REDUCTION == 2 ? a * b : REDUCTION == 3 ? (a < b ? b : a) : (b < a ? b : a);
            y[t] = floatBitsToUint(v);
        } else {  // integers of up to 32 bits: wrapping sums and products, signed extremes
            int a = LOAD_INT(y, TY, t), b = LOAD_INT(u, TY, from);
            int v = REDUCTION == 1 ? a + b : REDUCTION == 2 ? a * b : REDUCTION == 3 ? max(a, b) : min(a, b);
            STORE_INT(y, TY, t, v)
        }
    }
}
