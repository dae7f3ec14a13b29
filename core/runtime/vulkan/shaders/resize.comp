// Resize and Upsample of float tensors, up to 6 dims: the plan (core/runtime/reference/
// resize_plan.h) gives, per axis and output coordinate, a record of R floats in TAB: the number of
// taps (-1 where tf_crop_and_resize maps outside the input), then (input index, weight) pairs.
// Each output is the weighted sum over the product of its per-axis taps, so every mode (nearest
// with its roundings, linear, cubic, exclude_outside) and coordinate transformation follows the
// reference.
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
layout(constant_id = 19) const int R = 3;  // floats per record
layout(constant_id = 20) const float EXTRAPOLATION = 0.0;
layout(constant_id = 21) const int TEXELS = 0;  // read X through its texel view (CPU devices)

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Table { float TAB[]; };
layout(binding = 8) uniform samplerBuffer Xt;

float load(int i) { return TEXELS != 0 ? texelElement(Xt, i) : X[i]; }

void main() {
    uint idx = flatIndex();
    if (idx >= COUNT) return;
    const int outs[6] = int[6](O0, O1, O2, O3, O4, O5);
    const int ins[6] = int[6](I0, I1, I2, I3, I4, I5);
    const int tables[6] = int[6](T0, T1, T2, T3, T4, T5);
    int base[6], count[6], stride[6];
    uint r = idx;
    int step = 1;
    bool outside = false, empty = false;
    for (int d = 5; d >= 0; --d) {
        int o = int(r % uint(outs[d]));
        r /= uint(outs[d]);
        base[d] = tables[d] + o * R;
        count[d] = int(TAB[base[d]]);
        outside = outside || count[d] < 0;
        empty = empty || count[d] == 0;
        stride[d] = step;
        step *= ins[d];
    }
    if (outside || empty) {
        Y[idx] = outside ? EXTRAPOLATION : 0.0;
        return;
    }
    float sum = 0.0;
    for (int a0 = 0; a0 < count[0]; ++a0) {
        int p0 = base[0] + 1 + 2 * a0;
        int e0 = int(TAB[p0]) * stride[0];
        float w0 = TAB[p0 + 1];
        for (int a1 = 0; a1 < count[1]; ++a1) {
            int p1 = base[1] + 1 + 2 * a1;
            int e1 = e0 + int(TAB[p1]) * stride[1];
            float w1 = w0 * TAB[p1 + 1];
            for (int a2 = 0; a2 < count[2]; ++a2) {
                int p2 = base[2] + 1 + 2 * a2;
                int e2 = e1 + int(TAB[p2]) * stride[2];
                float w2 = w1 * TAB[p2 + 1];
                for (int a3 = 0; a3 < count[3]; ++a3) {
                    int p3 = base[3] + 1 + 2 * a3;
                    int e3 = e2 + int(TAB[p3]) * stride[3];
                    float w3 = w2 * TAB[p3 + 1];
                    for (int a4 = 0; a4 < count[4]; ++a4) {
                        int p4 = base[4] + 1 + 2 * a4;
                        int e4 = e3 + int(TAB[p4]) * stride[4];
                        float w4 = w3 * TAB[p4 + 1];
                        for (int a5 = 0; a5 < count[5]; ++a5) {
                            int p5 = base[5] + 1 + 2 * a5;
                            sum += w4 * TAB[p5 + 1] * load(e4 + int(TAB[p5]) * stride[5]);
                        }
                    }
                }
            }
        }
    }
    Y[idx] = sum;
}
