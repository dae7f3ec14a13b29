// Reductions over any set of axes, one invocation per output: the kept dims (D, with input
// strides S) select the output, the reduced dims (R, with input strides Q) are summed over.
// Serves Reduce* and the global pools.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int OP = 0;  // 0 Sum 1 Mean 2 Max 3 Min 4 Prod 5 SumSquare 6 L1 7 L2 8 LogSum 9 LogSumExp
layout(constant_id = 1) const uint COUNT = 1;
layout(constant_id = 2) const uint RCOUNT = 1;
layout(constant_id = 3) const uint D0 = 1;
layout(constant_id = 4) const uint D1 = 1;
layout(constant_id = 5) const uint D2 = 1;
layout(constant_id = 6) const uint D3 = 1;
layout(constant_id = 7) const uint D4 = 1;
layout(constant_id = 8) const uint D5 = 1;
layout(constant_id = 9) const uint S0 = 0;
layout(constant_id = 10) const uint S1 = 0;
layout(constant_id = 11) const uint S2 = 0;
layout(constant_id = 12) const uint S3 = 0;
layout(constant_id = 13) const uint S4 = 0;
layout(constant_id = 14) const uint S5 = 0;
layout(constant_id = 15) const uint R0 = 1;
layout(constant_id = 16) const uint R1 = 1;
layout(constant_id = 17) const uint R2 = 1;
layout(constant_id = 18) const uint R3 = 1;
layout(constant_id = 19) const uint R4 = 1;
layout(constant_id = 20) const uint R5 = 1;
layout(constant_id = 21) const uint Q0 = 0;
layout(constant_id = 22) const uint Q1 = 0;
layout(constant_id = 23) const uint Q2 = 0;
layout(constant_id = 24) const uint Q3 = 0;
layout(constant_id = 25) const uint Q4 = 0;
layout(constant_id = 26) const uint Q5 = 0;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };

#define STEP(D, S) { uint c = r % D; r /= D; o += c * S; }

uint reducedOffset(uint j) {
    uint r = j, o = 0;
    STEP(R5, Q5) STEP(R4, Q4) STEP(R3, Q3) STEP(R2, Q2) STEP(R1, Q1) STEP(R0, Q0)
    return o;
}

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, o = 0;
    STEP(D5, S5) STEP(D4, S4) STEP(D3, S3) STEP(D2, S2) STEP(D1, S1) STEP(D0, S0)
    uint base = o;
    float shift = 0.0;
    if (OP == 9) {
        shift = -3.402823466e38;
        for (uint j = 0; j < RCOUNT; ++j) shift = max(shift, X[base + reducedOffset(j)]);
        if (RCOUNT == 0) shift = 0.0;
    }
    float acc = OP == 2 ? -3.402823466e38 : OP == 3 ? 3.402823466e38 : OP == 4 ? 1.0 : 0.0;
    for (uint j = 0; j < RCOUNT; ++j) {
        float v = X[base + reducedOffset(j)];
        switch (OP) {
        case 2: acc = max(acc, v); break;
        case 3: acc = min(acc, v); break;
        case 4: acc *= v; break;
        case 5: case 7: acc += v * v; break;
        case 6: acc += abs(v); break;
        case 9: acc += exp(v - shift); break;
        default: acc += v; break;
        }
    }
    if (OP == 1) acc /= float(RCOUNT);
    if (OP == 7) acc = sqrt(acc);
    if (OP == 8) acc = log(acc);
    if (OP == 9) acc = log(acc) + shift;
    Y[i] = acc;
}
