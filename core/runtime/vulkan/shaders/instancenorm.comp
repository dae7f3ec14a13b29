// InstanceNormalization: each (n, c) row of INNER elements normalized by its own mean and variance
// (two passes, as the reference), then scaled and shifted per channel. One workgroup of 64 per row:
// strided partial sums, reduced in shared memory.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;

layout(constant_id = 0) const uint ROWS = 1;
layout(constant_id = 1) const uint CHANNELS = 1;
layout(constant_id = 2) const uint INNER = 1;
layout(constant_id = 3) const float EPS = 1e-5;

layout(binding = 0) writeonly buffer Out { float Y[]; };
layout(binding = 1) readonly buffer In { float X[]; };
layout(binding = 2) readonly buffer Scale { float S[]; };
layout(binding = 3) readonly buffer Bias { float B[]; };

shared float partial[64];

// The sum of every lane's `v`, seen by all lanes.
float workgroupSum(float v) {
    uint lane = gl_LocalInvocationID.x;
    partial[lane] = v;
    barrier();
    for (uint step = 32u; step > 0u; step >>= 1) {
        if (lane < step) partial[lane] += partial[lane + step];
        barrier();
    }
    float total = partial[0];
    barrier();
    return total;
}

void main() {
    uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (row >= ROWS) return;  // the whole workgroup: row is uniform
    uint lane = gl_LocalInvocationID.x;
    uint base = row * INNER;
    float sum = 0.0;
    for (uint k = lane; k < INNER; k += 64u) sum += X[base + k];
    float mean = workgroupSum(sum) / float(INNER);
    float sq = 0.0;
    for (uint k = lane; k < INNER; k += 64u) {
        float d = X[base + k] - mean;
        sq += d * d;
    }
    float inv = 1.0 / sqrt(workgroupSum(sq) / float(INNER) + EPS);
    uint c = row % CHANNELS;
    float scale = S[c] * inv, bias = B[c];
    for (uint k = lane; k < INNER; k += 64u) Y[base + k] = (X[base + k] - mean) * scale + bias;
}
