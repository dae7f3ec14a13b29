// LayerNormalization over the trailing COLS elements of each of ROWS rows, one invocation per row
// (two passes: mean, then variance); optionally writes the Mean and InvStdDev outputs. For
// com.microsoft SkipLayerNormalization the row normalized is X + Skip (+ a bias per column).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const uint ROWS = 1;
layout(constant_id = 1) const uint COLS = 1;
layout(constant_id = 2) const float EPS = 1e-5;
layout(constant_id = 3) const int HAS_BIAS = 0;
layout(constant_id = 4) const uint SCALE_STRIDE = 1;  // 0 when the scale is one number
layout(constant_id = 5) const uint BIAS_STRIDE = 1;
layout(constant_id = 6) const int WRITE_MEAN = 0;
layout(constant_id = 7) const int WRITE_INV = 0;
layout(constant_id = 8) const int HAS_SKIP = 0;
layout(constant_id = 9) const int HAS_SKIP_BIAS = 0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) writeonly buffer MeanOut { float Mean[]; };
layout(binding = 2) writeonly buffer InvOut { float Inv[]; };
layout(binding = 3) readonly buffer In { float X[]; };
layout(binding = 4) readonly buffer Scale { float S[]; };
layout(binding = 5) readonly buffer Bias { float B[]; };
layout(binding = 6) readonly buffer Skip { float K[]; };
layout(binding = 7) readonly buffer SkipBias { float KB[]; };

float element(uint base, uint c) {
    float x = X[base + c];
    if (HAS_SKIP != 0) x += K[base + c];
    if (HAS_SKIP_BIAS != 0) x += KB[c];
    return x;
}

void main() {
    uint row = flatIndex();
    if (row >= ROWS) return;
    uint base = row * COLS;
    float sum = 0.0;
    for (uint c = 0; c < COLS; ++c) sum += element(base, c);
    float mean = sum / float(COLS);
    float sq = 0.0;
    for (uint c = 0; c < COLS; ++c) {
        float d = element(base, c) - mean;
        sq += d * d;
    }
    float inv = 1.0 / sqrt(sq / float(COLS) + EPS);
    for (uint c = 0; c < COLS; ++c) {
        float v = (element(base, c) - mean) * inv * S[c * SCALE_STRIDE];
        if (HAS_BIAS != 0) v += B[c * BIAS_STRIDE];
        Y[base + c] = v;
    }
    if (WRITE_MEAN != 0) Mean[row] = mean;
    if (WRITE_INV != 0) Inv[row] = inv;
}
