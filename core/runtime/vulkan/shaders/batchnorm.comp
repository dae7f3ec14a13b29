// BatchNormalization in inference form, one invocation per element:
// Y = scale[c] * (X - mean[c]) / sqrt(var[c] + EPS) + bias[c], the channel c being the axis after
// the first (X viewed as [N, CHANNELS, INNER]).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const uint CHANNELS = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const float EPS = 1e-5;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Scale { float S[]; };
layout(binding = 3) readonly buffer Bias { float B[]; };
layout(binding = 4) readonly buffer Mean { float M[]; };
layout(binding = 5) readonly buffer Var { float V[]; };

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint c = (i / INNER) % CHANNELS;
    Y[i] = S[c] * (X[i] - M[c]) / sqrt(V[c] + EPS) + B[c];
}
