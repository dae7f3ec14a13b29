// Element-wise activations and unary math: out[i] = f(in[i]); f is picked by OP (see common.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const uint COUNT = 1;
layout(constant_id = 2) const float ALPHA = 0.0;
layout(constant_id = 3) const float BETA = 0.0;

layout(binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) readonly buffer In { float x[]; };

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    y[i] = activate(OP, x[i], ALPHA, BETA);
}
