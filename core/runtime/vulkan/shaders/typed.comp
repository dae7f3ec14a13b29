// Element-wise ops on tensors of any integer or float32 type (typed.glsl), with numpy
// broadcasting of up to three operands over an output of up to 6 dims (after merging): Cast,
// comparisons, logic, Mod, BitShift, integer arithmetic, the float math the unary table lacks,
// Where and Trilu (element moves). Values are computed as floats (FLOAT_MATH) or as 32-bit ints.
#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64) in;
#include "common.glsl"
#include "typed.glsl"

layout(constant_id = 0) const int OP = 0;
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
layout(constant_id = 20) const uint C0 = 0;
layout(constant_id = 21) const uint C1 = 0;
layout(constant_id = 22) const uint C2 = 0;
layout(constant_id = 23) const uint C3 = 0;
layout(constant_id = 24) const uint C4 = 0;
layout(constant_id = 25) const uint C5 = 0;
layout(constant_id = 26) const int TA = 0;
layout(constant_id = 27) const int TB = 0;
layout(constant_id = 28) const int TC = 0;
layout(constant_id = 29) const int TY = 0;
layout(constant_id = 30) const int FLOAT_MATH = 1;  // 1: operands are loaded and combined as floats
layout(constant_id = 31) const float ALPHA = 0.0;
layout(constant_id = 32) const float BETA = 0.0;
layout(constant_id = 33) const int FLAG = 0;        // Mod: fmod; BitShift: right; Trilu: upper, k from B; Clip: bounds
layout(constant_id = 34) const int K = 0;           // Trilu: the diagonal
layout(constant_id = 35) const uint ROWS = 1;       // Trilu: the matrices' rows and columns
layout(constant_id = 36) const uint COLS = 1;

layout(binding = 0) buffer Out { uint y[]; };
layout(binding = 1) readonly buffer InA { uint a[]; };
layout(binding = 2) readonly buffer InB { uint b[]; };
layout(binding = 3) readonly buffer InC { uint c[]; };

// Op codes (elementwiseCode in core/runtime/vulkan/logic.cpp).
#define OP_CAST 0
#define OP_ACOS 1
#define OP_ACOSH 2
#define OP_ASIN 3
#define OP_ASINH 4
#define OP_ATAN 5
#define OP_ATANH 6
#define OP_COSH 7
#define OP_SINH 8
#define OP_TAN 9
#define OP_ISNAN 10
#define OP_ISINF 11
#define OP_SHRINK 12
#define OP_NOT 13
#define OP_NEG 14
#define OP_ABS 15
#define OP_SIGN 16
#define OP_SCALE 17
#define OP_EQUAL 20
#define OP_LESS 21
#define OP_GREATER 22
#define OP_LESS_EQUAL 23
#define OP_GREATER_EQUAL 24
#define OP_AND 25
#define OP_OR 26
#define OP_XOR 27
#define OP_MOD 28
#define OP_BITSHIFT 29
#define OP_ADD 30
#define OP_SUB 31
#define OP_MUL 32
#define OP_DIV 33
#define OP_MAX 34
#define OP_MIN 35
#define OP_WHERE 40
#define OP_TRILU 41
#define OP_MOVE 42
#define OP_DEQUANTIZE 43
#define OP_QUANTIZE 44
#define OP_CLIP 45

float floatOp(float x, float z) {
    switch (OP) {
    case OP_CAST: return x;
    case OP_ACOS: return atan(sqrt((1.0 - x) * (1.0 + x)), x);  // lavapipe's acos and asin are off by 1e-4
    case OP_ACOSH: return log(x + sqrt(x * x - 1.0));
    case OP_ASIN: return atan(x, sqrt((1.0 - x) * (1.0 + x)));
    case OP_ASINH: return sign(x) * log(abs(x) + sqrt(x * x + 1.0));
    case OP_ATAN: return atan(x);
    case OP_ATANH: return 0.5 * log((1.0 + x) / (1.0 - x));
    case OP_COSH: return 0.5 * (exp(x) + exp(-x));
    case OP_SINH: return 0.5 * (exp(x) - exp(-x));
    case OP_TAN: return tan(x);
    case OP_ISNAN: return isnan(x) ? 1.0 : 0.0;
    case OP_ISINF: return (isinf(x) && ((x > 0.0 && BETA != 0.0) || (x < 0.0 && ALPHA != 0.0))) ? 1.0 : 0.0;
    case OP_SHRINK: return x < -ALPHA ? x + BETA : (x > ALPHA ? x - BETA : 0.0);
    case OP_NEG: return -x;
    case OP_ABS: return abs(x);
    case OP_SIGN: return sign(x);
    case OP_SCALE: return x * ALPHA;
    case OP_EQUAL: return x == z ? 1.0 : 0.0;
    case OP_LESS: return x < z ? 1.0 : 0.0;
    case OP_GREATER: return x > z ? 1.0 : 0.0;
    case OP_LESS_EQUAL: return x <= z ? 1.0 : 0.0;
    case OP_GREATER_EQUAL: return x >= z ? 1.0 : 0.0;
    case OP_MOD: return x - z * trunc(x / z);  // fmod: the sign of the dividend
    case OP_ADD: return x + z;
    case OP_SUB: return x - z;
    case OP_MUL: return x * z;
    case OP_DIV: return x / z;
    case OP_MAX: return max(x, z);
    case OP_MIN: return min(x, z);
    }
    return x;
}

int intOp(int x, int z) {
    switch (OP) {
    case OP_CAST: return x;
    case OP_NOT: return x == 0 ? 1 : 0;
    case OP_NEG: return -x;
    case OP_ABS: return abs(x);
    case OP_SIGN: return sign(x);
    case OP_EQUAL: return x == z ? 1 : 0;
    case OP_LESS: return (TA == TY_U32 ? uint(x) < uint(z) : x < z) ? 1 : 0;
    case OP_GREATER: return (TA == TY_U32 ? uint(x) > uint(z) : x > z) ? 1 : 0;
    case OP_LESS_EQUAL: return (TA == TY_U32 ? uint(x) <= uint(z) : x <= z) ? 1 : 0;
    case OP_GREATER_EQUAL: return (TA == TY_U32 ? uint(x) >= uint(z) : x >= z) ? 1 : 0;
    case OP_AND: return (x != 0 && z != 0) ? 1 : 0;
    case OP_OR: return (x != 0 || z != 0) ? 1 : 0;
    case OP_XOR: return ((x != 0) != (z != 0)) ? 1 : 0;
    case OP_MOD: {
        if (z == 0) return 0;
        int r = x - z * (x / z);                           // the sign of the dividend
        if (FLAG == 0 && r != 0 && ((r < 0) != (z < 0))) r += z;  // Python's: the sign of the divisor
        return r;
    }
    case OP_BITSHIFT: {
        uint s = uint(z);
        if (s >= 32u) return 0;
        return int(FLAG == 1 ? uint(x) >> s : uint(x) << s);
    }
    case OP_ADD: return x + z;
    case OP_SUB: return x - z;
    case OP_MUL: return x * z;
    case OP_DIV: return z == 0 ? 0 : x / z;
    case OP_MAX: return max(x, z);
    case OP_MIN: return min(x, z);
    }
    return x;
}

#define STEP(D, SA, SB, SC) { uint q = r % D; r /= D; ia += q * SA; ib += q * SB; ic += q * SC; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, ia = 0, ib = 0, ic = 0;
    STEP(D5, A5, B5, C5) STEP(D4, A4, B4, C4) STEP(D3, A3, B3, C3) STEP(D2, A2, B2, C2) STEP(D1, A1, B1, C1) STEP(D0, A0, B0, C0)
    if (OP == OP_WHERE || OP == OP_TRILU || OP == OP_MOVE) {  // element moves: the bits as they are
        bool first = true;
        if (OP == OP_WHERE) {
            first = LOAD_INT(a, TA, ia) != 0;
        } else if (OP == OP_TRILU) {
            int row = int((i / COLS) % ROWS), col = int(i % COLS);
            int k = (FLAG & 2) != 0 ? LOAD_INT(b, TB, 0u) : K;  // FLAG bit 1: k read from B
            first = (FLAG & 1) == 1 ? col - row >= k : col - row <= k;
        }
        uint v = 0u, hi = 0u;
        if (OP == OP_WHERE) {
            if (first) { v = bitsFromWord(TB, b[wordOf(TB, ib)], ib); hi = HIGH_WORD(b, TB, ib); }
            else { v = bitsFromWord(TC, c[wordOf(TC, ic)], ic); hi = HIGH_WORD(c, TC, ic); }
        } else if (first) {
            v = bitsFromWord(TA, a[wordOf(TA, ia)], ia); hi = HIGH_WORD(a, TA, ia);
        }
        STORE_BITS(y, TY, i, v, hi)
        return;
    }
    if (OP == OP_CLIP) {  // A the values, B the lower bound (FLAG bit 0), C the upper one (bit 1)
        if (FLOAT_MATH == 1) {
            float v = LOAD_FLOAT(a, TA, ia);
            if ((FLAG & 1) != 0) v = max(v, LOAD_FLOAT(b, TB, ib));
            if ((FLAG & 2) != 0) v = min(v, LOAD_FLOAT(c, TC, ic));
            STORE_FLOAT(y, TY, i, v)
        } else {
            int v = LOAD_INT(a, TA, ia);
            if ((FLAG & 1) != 0) v = max(v, LOAD_INT(b, TB, ib));
            if ((FLAG & 2) != 0) v = min(v, LOAD_INT(c, TC, ic));
            STORE_INT(y, TY, i, v)
        }
        return;
    }
    if (OP == OP_DEQUANTIZE || OP == OP_QUANTIZE) {  // A the values, B the scale, C the zero point (FLAG)
        float v = LOAD_FLOAT(a, TA, ia), scale = LOAD_FLOAT(b, TB, ib);
        float zero = FLAG == 1 ? LOAD_FLOAT(c, TC, ic) : 0.0;
        if (OP == OP_DEQUANTIZE) {
            y[i] = floatBitsToUint((v - zero) * scale);
        } else {
            int q = int(clamp(roundEven(v / scale) + zero, ALPHA, BETA));  // saturated to the type's range
            STORE_INT(y, TY, i, q)
        }
        return;
    }
    if (OP >= OP_EQUAL && OP <= OP_GREATER_EQUAL && elementBytes(TA) == 8u) {  // 64-bit: both words
        uint la = a[wordOf(TA, ia)], lb = b[wordOf(TB, ib)], ha = HIGH_WORD(a, TA, ia), hb = HIGH_WORD(b, TB, ib);
        bool equal = ha == hb && la == lb;
        bool less = ha != hb ? (TA == TY_U64 ? ha < hb : int(ha) < int(hb)) : la < lb;
        bool r = OP == OP_EQUAL ? equal : OP == OP_LESS ? less : OP == OP_GREATER ? !less && !equal
               : OP == OP_LESS_EQUAL ? less || equal : !less;
        STORE_BITS(y, TY, i, r ? 1u : 0u, 0u)
        return;
    }
    if (FLOAT_MATH == 1) {
        float x = LOAD_FLOAT(a, TA, ia);
        float z = OP >= OP_EQUAL ? LOAD_FLOAT(b, TB, ib) : 0.0;
        float v = floatOp(x, z);
        STORE_FLOAT(y, TY, i, v)
    } else {
        int x = LOAD_INT(a, TA, ia);
        int z = OP >= OP_EQUAL ? LOAD_INT(b, TB, ib) : 0;
        int v = intOp(x, z);
        if (TY == TY_F32) { y[i] = floatBitsToUint(float(v)); }
        else if (TY == TY_U32 || TY == TY_U64) { STORE_BITS(y, TY, i, uint(v), 0u) }
        else { STORE_INT(y, TY, i, v) }
    }
}
