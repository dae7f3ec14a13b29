// Pad of any element type (moved by size: 8, 16, 32 or 64 bits), up to 6 dims: each output
// element maps back per axis (minus the begin pad; negative pads crop) into the input by the mode,
// or takes the constant value (from specialization constants, or element 0 of binding 2). The
// begin pads come from specialization constants or, when computed at run time, from binding 3
// (int32 or int64, begins then ends over the RANK real axes, the last RANK of the 6).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const int O0 = 1;
layout(constant_id = 2) const int O1 = 1;
layout(constant_id = 3) const int O2 = 1;
layout(constant_id = 4) const int O3 = 1;
layout(constant_id = 5) const int O4 = 1;
layout(constant_id = 6) const int O5 = 1;
layout(constant_id = 7) const int I0 = 1;
layout(constant_id = 8) const int I1 = 1;
layout(constant_id = 9) const int I2 = 1;
layout(constant_id = 10) const int I3 = 1;
layout(constant_id = 11) const int I4 = 1;
layout(constant_id = 12) const int I5 = 1;
layout(constant_id = 13) const int P0 = 0;  // begin pads
layout(constant_id = 14) const int P1 = 0;
layout(constant_id = 15) const int P2 = 0;
layout(constant_id = 16) const int P3 = 0;
layout(constant_id = 17) const int P4 = 0;
layout(constant_id = 18) const int P5 = 0;
layout(constant_id = 19) const int MODE = 0;  // 0 constant, 1 reflect, 2 edge, 3 wrap
layout(constant_id = 20) const int TY = TY_U32;  // move type: U8, U16, U32 or U64
layout(constant_id = 21) const uint VALUE_LO = 0;  // the constant's bits
layout(constant_id = 22) const uint VALUE_HI = 0;
layout(constant_id = 23) const int VALUE_INPUT = 0;  // 1: the constant is element 0 of binding 2
layout(constant_id = 24) const int PADS_TYPE = -1;  // the pads' type code when read from binding 3
layout(constant_id = 25) const int RANK = 6;

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer In { uint x[]; };
layout(binding = 2) readonly buffer Value { uint v[]; };
layout(binding = 3) readonly buffer Pads { uint pads[]; };

// The begin pad of axis j of the 6 (P from the constants).
int beginPad(int j, int P) {
    if (PADS_TYPE < 0) return P;
    int d = j - (6 - RANK);
    return d < 0 ? 0 : LOAD_INT(pads, PADS_TYPE, uint(d));
}

// The input coordinate of output coordinate o shifted by the begin pad, or -1 in a constant area.
int source(int i, int dim) {
    if (i >= 0 && i < dim) return i;
    if (MODE == 0) return -1;
    if (MODE == 2) return clamp(i, 0, dim - 1);
    if (MODE == 3) return ((i % dim) + dim) % dim;
    if (dim == 1) return 0;
    int period = 2 * (dim - 1);
    i = ((i % period) + period) % period;
    return i >= dim ? period - i : i;
}

#define STEP(J, O, I, P) { int o = int(r % uint(O)); r /= uint(O); int s = source(o - beginPad(J, P), I); \
    if (s < 0) inside = false; e += uint(s) * stride; stride *= uint(I); }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, e = 0u, stride = 1u;
    bool inside = true;
    STEP(5, O5, I5, P5) STEP(4, O4, I4, P4) STEP(3, O3, I3, P3) STEP(2, O2, I2, P2) STEP(1, O1, I1, P1) STEP(0, O0, I0, P0)
    uint lo, hi;
    if (inside) {
        lo = bitsFromWord(TY, x[wordOf(TY, e)], e);
        hi = HIGH_WORD(x, TY, e);
    } else if (VALUE_INPUT != 0) {
        lo = bitsFromWord(TY, v[0], 0u);
        hi = HIGH_WORD(v, TY, 0u);
    } else {
        lo = VALUE_LO;
        hi = VALUE_HI;
    }
    STORE_BITS(y, TY, i, lo, hi)
}
