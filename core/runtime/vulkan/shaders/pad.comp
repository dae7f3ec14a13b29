// Pad of any element type (moved by size: 8, 16, 32 or 64 bits), up to 6 dims: each output
// element maps back per axis (minus the begin pad; negative pads crop) into the input by the mode,
// or takes the constant value (from specialization constants, or element 0 of binding 2).
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

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer In { uint x[]; };
layout(binding = 2) readonly buffer Value { uint v[]; };

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

#define STEP(O, I, P) { int o = int(r % uint(O)); r /= uint(O); int s = source(o - P, I); \
    if (s < 0) inside = false; e += uint(s) * stride; stride *= uint(I); }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, e = 0u, stride = 1u;
    bool inside = true;
    STEP(O5, I5, P5) STEP(O4, I4, P4) STEP(O3, I3, P3) STEP(O2, I2, P2) STEP(O1, I1, P1) STEP(O0, I0, P0)
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
