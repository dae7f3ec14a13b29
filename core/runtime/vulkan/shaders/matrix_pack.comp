// A matrix operand of gemm_texel.comp rearranged into RGBA32F texels along k (vulkan/texel_gemm.h,
// MatrixPacking): texel ((z * BLOCKS + blk) * K4 + c) * INTERLEAVE + r holds row blk*INTERLEAVE + r,
// k = 4c .. 4c+3 of batch z, zeros past the ends. Rows and k are read through strides, so a
// transposed or broadcast operand is packed the same way.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"

layout(constant_id = 0) const int ROWS = 1;
layout(constant_id = 1) const int K = 1;
layout(constant_id = 2) const int INTERLEAVE = 1;
layout(constant_id = 3) const int ROW_STRIDE = 0;
layout(constant_id = 4) const int K_STRIDE = 1;
layout(constant_id = 5) const int B0 = 1;
layout(constant_id = 6) const int B1 = 1;
layout(constant_id = 7) const int B2 = 1;
layout(constant_id = 8) const int BS0 = 0;
layout(constant_id = 9) const int BS1 = 0;
layout(constant_id = 10) const int BS2 = 0;

layout(binding = 0) writeonly buffer Packed { vec4 T[]; };
layout(binding = 1) readonly buffer In { float S[]; };

const int K4 = (K + 3) / 4, BLOCKS = (ROWS + INTERLEAVE - 1) / INTERLEAVE;

float element(int base, int row, int k) { return k < K ? S[base + row * ROW_STRIDE + k * K_STRIDE] : 0.0; }

void main() {
    int t = int(flatIndex());
    if (t >= B0 * B1 * B2 * BLOCKS * K4 * INTERLEAVE) return;
    int r = t % INTERLEAVE, c = (t / INTERLEAVE) % K4, blk = (t / (INTERLEAVE * K4)) % BLOCKS;
    int z = t / (INTERLEAVE * K4 * BLOCKS);
    int row = blk * INTERLEAVE + r, k = 4 * c;
    int base = (z / (B2 * B1)) * BS0 + ((z / B2) % B1) * BS1 + (z % B2) * BS2;
    vec4 v = vec4(0.0);
    if (row < ROWS) v = vec4(element(base, row, k), element(base, row, k + 1), element(base, row, k + 2), element(base, row, k + 3));
    T[t] = v;
}
