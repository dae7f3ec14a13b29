// Winograd F(4x4, 3x3), output side (vulkan/conv_winograd.cpp): each invocation reads the 36
// products M of one tile and output channel (9 texels of [tiles][OC][36]) and writes its 4x4
// outputs A^T M A, + bias, + residual Z, activation. Bias and Z are read as texels (one gather on
// lavapipe, where a storage load is a loop over the lanes); rows of whole texels (OW a multiple of
// 4) are stored as one vec4.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int N = 1;
layout(constant_id = 1) const int OC = 1;
layout(constant_id = 2) const int OH = 1;
layout(constant_id = 3) const int OW = 1;
layout(constant_id = 4) const int TH = 1;
layout(constant_id = 5) const int TW = 1;
layout(constant_id = 6) const int HAS_BIAS = 0;
layout(constant_id = 7) const int HAS_Z = 0;
layout(constant_id = 8) const int ACT = 0;
layout(constant_id = 9) const float ACT_ALPHA = 0.0;
layout(constant_id = 10) const float ACT_BETA = 0.0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 0) writeonly buffer Out4 { vec4 Y4[]; };
layout(binding = 8) uniform samplerBuffer M;
layout(binding = 9) uniform samplerBuffer B;   // OC floats
layout(binding = 10) uniform samplerBuffer Z;  // shaped like Y

// A^T x for one line x0..x5 of M: its 4 outputs.
vec4 transform(float x0, float x1, float x2, float x3, float x4, float x5) {
    float a = x1 + x2, b = x1 - x2, c = x3 + x4, d = x3 - x4;
    return vec4(x0 + a + c, b + 2.0 * d, a + 4.0 * c, b + 8.0 * d + x5);
}

// Tiles past the bottom or right edge store only their rows and columns inside.
void storeRow(int n, int oc, int oh, int ow, vec4 v, float bias) {
    if (OH % 4 != 0 && oh >= OH) return;
    int idx = ((n * OC + oc) * OH + oh) * OW + ow;
    if (OW % 4 == 0) {  // idx is a multiple of 4
        vec4 y = v + bias;
        if (HAS_Z != 0) y += texelFetch(Z, idx >> 2);
        Y4[idx >> 2] = vec4(activate(ACT, y.x, ACT_ALPHA, ACT_BETA), activate(ACT, y.y, ACT_ALPHA, ACT_BETA),
                            activate(ACT, y.z, ACT_ALPHA, ACT_BETA), activate(ACT, y.w, ACT_ALPHA, ACT_BETA));
        return;
    }
    for (int j = 0; j < 4; ++j) {
        if (ow + j >= OW) return;
        float y = v[j] + bias;
        if (HAS_Z != 0) y += texelElement(Z, idx + j);
        Y[idx + j] = activate(ACT, y, ACT_ALPHA, ACT_BETA);
    }
}

void main() {
    int idx = int(flatIndex());
    if (idx >= N * OC * TH * TW) return;
    int tx = idx % TW, ty = (idx / TW) % TH, oc = (idx / (TW * TH)) % OC, n = idx / (TW * TH * OC);
    int first = (((n * TH + ty) * TW + tx) * OC + oc) * 9;
    float m[36];
    for (int q = 0; q < 9; ++q) {
        vec4 v = texelFetch(M, first + q);
        m[4 * q] = v.x;
        m[4 * q + 1] = v.y;
        m[4 * q + 2] = v.z;
        m[4 * q + 3] = v.w;
    }
    vec4 r[6];  // A^T applied to each column j of M: r[j] holds rows 0..3
    for (int j = 0; j < 6; ++j) r[j] = transform(m[j], m[6 + j], m[12 + j], m[18 + j], m[24 + j], m[30 + j]);
    float bias = HAS_BIAS != 0 ? texelElement(B, oc) : 0.0;
    for (int a = 0; a < 4; ++a)
        storeRow(n, oc, 4 * ty + a, 4 * tx, transform(r[0][a], r[1][a], r[2][a], r[3][a], r[4][a], r[5][a]), bias);
}
