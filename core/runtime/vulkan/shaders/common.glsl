// Shared by the compute shaders: the flat invocation index of a 2-D dispatch of 1-D workgroups,
// element reads from a float tensor bound as RGBA32F texels, and the activation functions (the
// ACT_* codes are generated from core/graph/activations.def into activation_codes.glsl).
#include "activation_codes.glsl"

uint flatIndex() {
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
}

// Element i of a float tensor viewed as RGBA32F texels (4 consecutive elements per texel).
float texelElement(samplerBuffer t, int i) {
    vec4 v = texelFetch(t, i >> 2);
    int c = i & 3;
    return c == 0 ? v.x : (c == 1 ? v.y : (c == 2 ? v.z : v.w));
}

// tanh without overflow for large |x|, and near 0 (where 1 - e^(-2|x|) cancels: tanh(1e-8) came
// out 0, tanh(1e-3) 6e-5 off relative) its series to x^7 (relative error below 1e-10 there).
float stableTanh(float x) {
    float a = abs(x);
    if (a < 0.1) {
        float x2 = x * x;
        return x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
    }
    float t = exp(-2.0 * a);
    float r = (1.0 - t) / (1.0 + t);
    return x < 0.0 ? -r : r;
}

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }

// erf to ~1e-7: Taylor series near 0, Abramowitz-Stegun 7.1.26 elsewhere.
float erfApprox(float x) {
    float a = abs(x);
    if (a < 0.5) {
        float x2 = x * x;
        return x * 1.1283791671 * (1.0 + x2 * (-1.0 / 3.0 + x2 * (0.1 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 + x2 * (-1.0 / 1320.0))))));
    }
    float t = 1.0 / (1.0 + 0.3275911 * a);
    float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
    return x < 0.0 ? -y : y;
}

// log(1 + e^x). Far below 0, 1 + e^x rounds e^x to the ulp of 1 (a 3% error at x = -12.5, as Mish
// multiplies it by x): log1p(u) = log(1 + u) * u / ((1 + u) - 1) divides that rounding out.
float softplus(float x) {
    if (x > 15.0) return x;
    float u = exp(x);
    float onePlusU = 1.0 + u;
    return onePlusU == 1.0 ? u : log(onePlusU) * (u / (onePlusU - 1.0));
}

float activate(int op, float x, float alpha, float beta) {
    switch (op) {
    case ACT_IDENTITY: return x;
    case ACT_RELU: return max(x, 0.0);
    case ACT_SIGMOID: return sigmoid(x);
    case ACT_TANH: return stableTanh(x);
    case ACT_LEAKYRELU: return x < 0.0 ? alpha * x : x;
    case ACT_CLIP: return min(max(x, alpha), beta);  // min, max
    case ACT_HARDSIGMOID: return clamp(alpha * x + beta, 0.0, 1.0);
    case ACT_HARDSWISH: return x * clamp(x / 6.0 + 0.5, 0.0, 1.0);
    case ACT_ELU: return x < 0.0 ? alpha * (exp(x) - 1.0) : x;
    case ACT_QUICKGELU: return x * sigmoid(alpha * x);
    case ACT_EXP: return exp(x);
    case ACT_SQRT: return sqrt(x);
    case ACT_ERF: return erfApprox(x);
    case ACT_GELU: return 0.5 * x * (1.0 + erfApprox(x * 0.70710678118));
    case ACT_ABS: return abs(x);
    case ACT_NEG: return -x;
    case ACT_LOG: return log(x);
    case ACT_RECIPROCAL: return 1.0 / x;
    case ACT_FLOOR: return floor(x);
    case ACT_CEIL: return ceil(x);
    case ACT_SOFTPLUS: return softplus(x);
    case ACT_SELU: return x <= 0.0 ? beta * alpha * (exp(x) - 1.0) : beta * x;  // alpha, gamma
    case ACT_SIGN: return sign(x);
    case ACT_SOFTSIGN: return x / (1.0 + abs(x));
    case ACT_THRESHOLDEDRELU: return x > alpha ? x : 0.0;
    case ACT_CELU: return max(0.0, x) + min(0.0, alpha * (exp(x / alpha) - 1.0));
    case ACT_FASTGELU: return 0.5 * x * (1.0 + stableTanh(0.7978845608 * (x + 0.044715 * x * x * x)));
    case ACT_ROUND: return roundEven(x);
    case ACT_SIN: return sin(x);
    case ACT_COS: return cos(x);
    case ACT_MISH: return x * stableTanh(softplus(x));
    case ACT_PRELU: return x < 0.0 ? alpha * x : x;  // with a scalar slope
    }
    return x;
}
