// Element-wise binary ops with numpy broadcasting: the output (up to 6 dims after merging) is
// walked in order; A and B are read through strides that are 0 along broadcast dims. An
// activation may follow (com.microsoft BiasGelu is Add then Gelu).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int OP = 0;  // 0 Add, 1 Sub, 2 Mul, 3 Div, 4 Pow, 5 Max, 6 Min, 7 PRelu
layout(constant_id = 1) const uint COUNT = 1;
layout(constant_id = 2) const uint D0 = 1;
layout(constant_id = 3) const uint D1 = 1;
layout(constant_id = 4) const uint D2 = 1;
layout(constant_id = 5) const uint D3 = 1;
layout(constant_id = 6) const uint D4 = 1;
layout(constant_id = 7) const uint D5 = 1;
layout(constant_id = 8) const uint A0 = 0;
layout(constant_id = 9) const uint A1 = 0;
layout(constant_id = 10) const uint A2 = 0;
layout(constant_id = 11) const uint A3 = 0;
layout(constant_id = 12) const uint A4 = 0;
layout(constant_id = 13) const uint A5 = 0;
layout(constant_id = 14) const uint B0 = 0;
layout(constant_id = 15) const uint B1 = 0;
layout(constant_id = 16) const uint B2 = 0;
layout(constant_id = 17) const uint B3 = 0;
layout(constant_id = 18) const uint B4 = 0;
layout(constant_id = 19) const uint B5 = 0;
layout(constant_id = 20) const int ACT = 0;  // activate() code applied to the result
layout(constant_id = 21) const float ACT_ALPHA = 0.0;
layout(constant_id = 22) const float ACT_BETA = 0.0;

layout(binding = 0) writeonly buffer Out { float y[]; };
layout(binding = 1) readonly buffer InA { float a[]; };
layout(binding = 2) readonly buffer InB { float b[]; };

float power(float x, float e) {
    if (e == 0.0) return 1.0;
    if (e == floor(e)) {
        float r = pow(abs(x), e);
        return (x < 0.0 && mod(e, 2.0) != 0.0) ? -r : r;
    }
    return pow(x, e);
}

float combine(float x, float z) {
    switch (OP) {
    case 0: return x + z;
    case 1: return x - z;
    case 2: return x * z;
    case 3: return x / z;
    case 4: return power(x, z);
    case 5: return isnan(x) || isnan(z) ? x + z : max(x, z);  // NaN when either is, as the reference
    case 6: return isnan(x) || isnan(z) ? x + z : min(x, z);  // (GLSL's max and min return either)
    case 7: return x < 0.0 ? x * z : x;
    }
    return x;
}

#define STEP(D, SA, SB) { uint c = r % D; r /= D; ia += c * SA; ib += c * SB; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, ia = 0, ib = 0;
    STEP(D5, A5, B5) STEP(D4, A4, B4) STEP(D3, A3, B3) STEP(D2, A2, B2) STEP(D1, A1, B1) STEP(D0, A0, B0)
    y[i] = activate(ACT, combine(a[ia], b[ib]), ACT_ALPHA, ACT_BETA);
}
