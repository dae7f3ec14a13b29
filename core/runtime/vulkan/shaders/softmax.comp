// Softmax and LogSoftmax along one axis of a tensor viewed as [OUTER, DIM, INNER]; one invocation
// per (outer, inner) line, max-subtracted for stability.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const uint OUTER = 1;
layout(constant_id = 1) const uint DIM = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const int LOG = 0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };

void main() {
    uint line = flatIndex();
    if (line >= OUTER * INNER) return;
    uint base = (line / INNER) * DIM * INNER + line % INNER;
    float top = -3.402823466e38;
    for (uint d = 0; d < DIM; ++d) top = max(top, X[base + d * INNER]);
    float sum = 0.0;
    for (uint d = 0; d < DIM; ++d) sum += exp(X[base + d * INNER] - top);
    float logSum = log(sum);
    for (uint d = 0; d < DIM; ++d) {
        float v = X[base + d * INNER] - top;
        Y[base + d * INNER] = LOG != 0 ? v - logSum : exp(v) / sum;
    }
}
