// LRN across channels, one invocation per element: Y = X / (BIAS + ALPHA / SIZE * sum of squares)^BETA,
// the sum over channels c - floor((SIZE-1)/2) .. c + ceil((SIZE-1)/2) within [0, CHANNELS), X viewed
// as [N, CHANNELS, INNER].
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint CHANNELS = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const int SIZE = 1;
layout(constant_id = 4) const float ALPHA = 1e-4;
layout(constant_id = 5) const float BETA = 0.75;
layout(constant_id = 6) const float BIAS = 1.0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    int c = int((i / INNER) % CHANNELS);
    uint base = i - uint(c) * INNER;
    int below = (SIZE - 1) / 2, above = SIZE - 1 - below;
    int first = max(0, c - below), last = min(int(CHANNELS) - 1, c + above);
    float squares = 0.0;
    for (int j = first; j <= last; ++j) {
        float v = X[base + uint(j) * INNER];
        squares += v * v;
    }
    Y[i] = X[i] / pow(BIAS + ALPHA / float(SIZE) * squares, BETA);
}
