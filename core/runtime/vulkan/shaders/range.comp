// Range: element i is start + i * delta, start and delta read from their scalar tensors: floats
// as float32 (like numpy), integers wrapping in their width (64-bit ones over both words).
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const uint COUNT = 1;
layout(constant_id = 1) const int TY = TY_F32;

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer Start { uint start[]; };
layout(binding = 2) readonly buffer Delta { uint delta[]; };

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    if (TY == TY_F32) {
        y[i] = floatBitsToUint(uintBitsToFloat(start[0]) + float(i) * uintBitsToFloat(delta[0]));
    } else if (elementBytes(TY) == 8u) {  // (hi, lo) = start + i * delta modulo 2^64
        uint carry, productHi, productLo;
        umulExtended(i, delta[0], productHi, productLo);
        productHi += i * delta[1];
        uint lo = uaddCarry(start[0], productLo, carry);
        y[2u * i] = lo;
        y[2u * i + 1u] = start[1] + productHi + carry;
    } else {
        int v = LOAD_INT(start, TY, 0u) + int(i) * LOAD_INT(delta, TY, 0u);
        STORE_INT(y, TY, i, v)
    }
}
