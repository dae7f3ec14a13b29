// Resize and Upsample of float tensors, up to 6 dims: the plan (core/runtime/reference/
// resize_plan.h) gives, per axis and output coordinate, a record of R floats in TAB: the number of
// taps (-1 where tf_crop_and_resize maps outside the input), then (input index, weight) pairs.
// Each output is the weighted sum over the product of its per-axis taps, so every mode (nearest
// with its roundings, linear, cubic, exclude_outside) and coordinate transformation follows the
// reference. Axes the resize leaves alone (runs of them merged by the host) read no table; each
// axis's tap loop has a constant bound (K0..K5), which the compiler unrolls.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

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
layout(constant_id = 13) const int T0 = 0;  // where each axis's records start in TAB
layout(constant_id = 14) const int T1 = 0;
layout(constant_id = 15) const int T2 = 0;
layout(constant_id = 16) const int T3 = 0;
layout(constant_id = 17) const int T4 = 0;
layout(constant_id = 18) const int T5 = 0;
layout(constant_id = 19) const int K0 = 0;  // most taps of an axis's records; 0: an untouched axis
layout(constant_id = 20) const int K1 = 0;
layout(constant_id = 21) const int K2 = 0;
layout(constant_id = 22) const int K3 = 0;
layout(constant_id = 23) const int K4 = 0;
layout(constant_id = 24) const int K5 = 0;
layout(constant_id = 25) const int R = 3;  // floats per record
layout(constant_id = 26) const float EXTRAPOLATION = 0.0;
layout(constant_id = 27) const int TEXELS = 0;  // read X and TAB through their texel views (CPU devices)

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Table { float TAB[]; };
layout(binding = 8) uniform samplerBuffer Xt;
layout(binding = 9) uniform samplerBuffer TABt;

float load(int i) { return TEXELS != 0 ? texelElement(Xt, i) : X[i]; }
float tab(int i) { return TEXELS != 0 ? texelElement(TABt, i) : TAB[i]; }

// Output coordinate o, record b, tap count n and input stride s of axis d.
#define COORD(d) int o##d = int(r % uint(O##d)); r /= uint(O##d);                         \
    int b##d = T##d + o##d * R, n##d = K##d == 0 ? 1 : int(tab(b##d));                      \
    outside = outside || n##d < 0; empty = empty || n##d == 0;                               \
    int s##d = step; step *= I##d;

// Tap a of axis d: the element offset e and weight w so far.
#define TAP(d, E, W) for (int a##d = 0; a##d < max(K##d, 1); ++a##d) {                     \
    if (a##d >= n##d) break;                                                                 \
    int p##d = b##d + 1 + 2 * a##d;                                                          \
    int e##d = E + (K##d == 0 ? o##d : int(tab(p##d))) * s##d;                               \
    float w##d = K##d == 0 ? W : W * tab(p##d + 1);

void main() {
    uint idx = flatIndex();
    if (idx >= COUNT) return;
    uint r = idx;
    int step = 1;
    bool outside = false, empty = false;
    COORD(5) COORD(4) COORD(3) COORD(2) COORD(1) COORD(0)
    if (outside || empty) {
        Y[idx] = outside ? EXTRAPOLATION : 0.0;
        return;
    }
    float sum = 0.0;
    TAP(0, 0, 1.0) TAP(1, e0, w0) TAP(2, e1, w1) TAP(3, e2, w2) TAP(4, e3, w3) TAP(5, e4, w4)
        sum += w5 * load(e5);
    }}}}}}
    Y[idx] = sum;
}
