// typed.comp's integer ops computed exactly over 64 bits (GL_EXT_shader_explicit_arithmetic_types_int64,
// for devices with shaderInt64): operands of any integer type widen to int64 (uint32 and uint64 as
// unsigned), the op runs in int64_t or, for unsigned operands, uint64_t, and the result narrows to
// the output's type (wrapping) or converts to float32. The same specialization constants and op
// codes as typed.comp (core/runtime/vulkan/logic.cpp picks this shader for 64-bit and uint32 integer
// math); FLOAT_MATH must be 0.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
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

bool unsignedType(int t) { return t == TY_U32 || t == TY_U64 || t == TY_U8 || t == TY_U16 || t == TY_BOOL; }

// Element i of type t as 64 bits: 64-bit elements as they are, narrower ones sign- or zero-extended.
uint64_t wide(int t, uint w, uint hi, uint i) {
    if (elementBytes(t) == 8u) return (uint64_t(hi) << 32) | uint64_t(w);
    if (t == TY_U32) return uint64_t(w);
    return uint64_t(int64_t(intFromWord(t, w, i)));
}
#define LOAD_WIDE(buf, T, i) wide(T, buf[wordOf(T, i)], HIGH_WORD(buf, T, i), i)

bool less(uint64_t x, uint64_t z) { return unsignedType(TA) ? x < z : int64_t(x) < int64_t(z); }

uint64_t wideOp(uint64_t x, uint64_t z) {
    bool u = unsignedType(TA);
    switch (OP) {
    case OP_CAST: return x;
    case OP_NOT: return x == 0ul ? 1ul : 0ul;
    case OP_NEG: return uint64_t(-int64_t(x));
    case OP_ABS: return (!u && int64_t(x) < 0l) ? uint64_t(-int64_t(x)) : x;
    case OP_SIGN: return u ? (x != 0ul ? 1ul : 0ul) : uint64_t(int64_t(x) > 0l ? 1l : (int64_t(x) < 0l ? -1l : 0l));
    case OP_EQUAL: return x == z ? 1ul : 0ul;
    case OP_LESS: return less(x, z) ? 1ul : 0ul;
    case OP_GREATER: return less(z, x) ? 1ul : 0ul;
    case OP_LESS_EQUAL: return !less(z, x) ? 1ul : 0ul;
    case OP_GREATER_EQUAL: return !less(x, z) ? 1ul : 0ul;
    case OP_MOD: {
        if (z == 0ul) return 0ul;
        if (u) return x % z;
        int64_t a = int64_t(x), b = int64_t(z);
        int64_t r = a - b * (a / b);                                  // the sign of the dividend
        if (FLAG == 0 && r != 0l && ((r < 0l) != (b < 0l))) r += b;   // Python's: the sign of the divisor
        return uint64_t(r);
    }
    case OP_BITSHIFT: {
        if (z >= 64ul) return 0ul;
        return FLAG == 1 ? x >> z : x << z;
    }
    case OP_ADD: return x + z;
    case OP_SUB: return x - z;
    case OP_MUL: return x * z;
    case OP_DIV: return z == 0ul ? 0ul : (u ? x / z : uint64_t(int64_t(x) / int64_t(z)));
    case OP_MAX: return less(x, z) ? z : x;
    case OP_MIN: return less(z, x) ? z : x;
    }
    return x;
}

#define STEP(D, SA, SB, SC) { uint q = r % D; r /= D; ia += q * SA; ib += q * SB; ic += q * SC; }

void main() {
    uint i = flatIndex();
    if (i >= COUNT) return;
    uint r = i, ia = 0, ib = 0, ic = 0;
    STEP(D5, A5, B5, C5) STEP(D4, A4, B4, C4) STEP(D3, A3, B3, C3) STEP(D2, A2, B2, C2) STEP(D1, A1, B1, C1) STEP(D0, A0, B0, C0)
    uint64_t v;
    if (OP == OP_CLIP) {  // A the values, B the lower bound (FLAG bit 0), C the upper one (bit 1)
        v = LOAD_WIDE(a, TA, ia);
        if ((FLAG & 1) != 0) { uint64_t lo = LOAD_WIDE(b, TB, ib); if (less(v, lo)) v = lo; }
        if ((FLAG & 2) != 0) { uint64_t hi = LOAD_WIDE(c, TC, ic); if (less(hi, v)) v = hi; }
    } else {
        uint64_t x = LOAD_WIDE(a, TA, ia);
        uint64_t z = OP >= OP_EQUAL ? LOAD_WIDE(b, TB, ib) : 0ul;
        v = wideOp(x, z);
    }
    if (TY == TY_F32) {
        bool u = OP >= OP_EQUAL && OP <= OP_GREATER_EQUAL ? false : unsignedType(TA);
        y[i] = floatBitsToUint(u ? float(v) : float(int64_t(v)));
    } else if (TY == TY_BOOL) {
        STORE_BITS(y, TY, i, (v != 0ul ? 1u : 0u), 0u)
    } else {
        STORE_BITS(y, TY, i, uint(v), uint(v >> 32))
    }
}
