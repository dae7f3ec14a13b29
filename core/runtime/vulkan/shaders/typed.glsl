// Tensors of any element type bound as arrays of 32-bit words: the element types (codes of
// elementCode() in core/runtime/vulkan/typed.h), loads that widen an element to an int or a float,
// and stores that narrow it back. 64-bit integers are two words (low first); an int load takes the
// low word, a store sign-extends. 8- and 16-bit elements share words, so their stores are atomic
// read-modify-writes of their own bits (buffers written that way must not be writeonly).

#define TY_F32 0
#define TY_I32 1
#define TY_I64 2
#define TY_U8 3
#define TY_I8 4
#define TY_U16 5
#define TY_I16 6
#define TY_U32 7
#define TY_U64 8
#define TY_BOOL 9

uint elementBytes(int t) {
    return (t == TY_I64 || t == TY_U64) ? 8u : (t == TY_U8 || t == TY_I8 || t == TY_BOOL) ? 1u
         : (t == TY_U16 || t == TY_I16) ? 2u : 4u;
}

// The word holding element i (the low word of a 64-bit element).
uint wordOf(int t, uint i) {
    uint b = elementBytes(t);
    return b == 8u ? 2u * i : b == 4u ? i : b == 2u ? i >> 1 : i >> 2;
}

// Element i's bits, zero-extended (the low word of a 64-bit element).
uint bitsFromWord(int t, uint w, uint i) {
    uint b = elementBytes(t);
    if (b == 1u) return (w >> (8u * (i & 3u))) & 0xFFu;
    if (b == 2u) return (w >> (16u * (i & 1u))) & 0xFFFFu;
    return w;
}

int intFromWord(int t, uint w, uint i) {
    if (t == TY_F32) return int(uintBitsToFloat(w));
    if (t == TY_I8) return bitfieldExtract(int(w), int(8u * (i & 3u)), 8);
    if (t == TY_I16) return bitfieldExtract(int(w), int(16u * (i & 1u)), 16);
    return int(bitsFromWord(t, w, i));
}

float floatFromWord(int t, uint w, uint hi, uint i) {
    if (t == TY_F32) return uintBitsToFloat(w);
    if (t == TY_U32) return float(w);
    if (t == TY_I64 && int(hi) != (int(w) >> 31)) return float(int(hi)) * 4294967296.0 + float(w);
    if (t == TY_U64 && hi != 0u) return float(hi) * 4294967296.0 + float(w);
    return float(intFromWord(t, w, i));
}

#define HIGH_WORD(buf, T, i) (elementBytes(T) == 8u ? buf[2u * (i) + 1u] : 0u)
#define LOAD_INT(buf, T, i) intFromWord(T, buf[wordOf(T, i)], i)
#define LOAD_FLOAT(buf, T, i) floatFromWord(T, buf[wordOf(T, i)], HIGH_WORD(buf, T, i), i)

// Stores element i of type T from its low bits `v` and, for 64-bit types, its high word `hi`.
#define STORE_BITS(buf, T, i, v, hi) {                                                        \
    uint b_ = elementBytes(T);                                                                 \
    if (b_ == 4u) buf[i] = (v);                                                                \
    else if (b_ == 8u) { buf[2u * (i)] = (v); buf[2u * (i) + 1u] = (hi); }                     \
    else {                                                                                     \
        uint sh_ = b_ == 1u ? 8u * ((i) & 3u) : 16u * ((i) & 1u);                              \
        uint m_ = (b_ == 1u ? 0xFFu : 0xFFFFu) << sh_;                                         \
        uint w_ = b_ == 1u ? (i) >> 2 : (i) >> 1;                                              \
        atomicAnd(buf[w_], ~m_);                                                               \
        atomicOr(buf[w_], ((v) << sh_) & m_);                                                  \
    } }
#define STORE_INT(buf, T, i, x) STORE_BITS(buf, T, i, ((T) == TY_BOOL ? uint((x) != 0) : uint(x)), ((x) < 0 ? 0xFFFFFFFFu : 0u))
// A float as signed integer type t (8 to 64 bits), as the reference's Cast: truncated toward zero,
// saturated at t's range, NaN 0. Its low word `lo` and, for int64, its high word `hi`.
void floatToInt(int t, float x, out uint lo, out uint hi) {
    float v = isnan(x) ? 0.0 : trunc(x);
    if (t == TY_I64 && abs(v) >= 2147483648.0) {  // past 32 bits: the words of an integer float, exactly
        if (v >= 9223372036854775807.0) { lo = 0xFFFFFFFFu; hi = 0x7FFFFFFFu; return; }
        if (v <= -9223372036854775808.0) { lo = 0u; hi = 0x80000000u; return; }
        float h = floor(v * (1.0 / 4294967296.0));  // scaling by powers of two is exact
        lo = uint(v - h * 4294967296.0);
        hi = uint(int(h));
        return;
    }
    int n;
    if (t == TY_U8) n = int(clamp(v, 0.0, 255.0));
    else if (t == TY_I8) n = int(clamp(v, -128.0, 127.0));
    else if (t == TY_U16) n = int(clamp(v, 0.0, 65535.0));
    else if (t == TY_I16) n = int(clamp(v, -32768.0, 32767.0));
    else n = v >= 2147483648.0 ? 0x7FFFFFFF : v <= -2147483648.0 ? int(0x80000000u) : int(v);
    lo = uint(n);
    hi = n < 0 ? 0xFFFFFFFFu : 0u;
}

// A float stored as type T: its bits for floats, != 0 for bool, truncated and saturated for
// integers (floatToInt).
#define STORE_FLOAT(buf, T, i, x) {                                                            \
    if ((T) == TY_F32) { buf[i] = floatBitsToUint(x); }                                        \
    else if ((T) == TY_BOOL) { STORE_BITS(buf, T, i, ((x) != 0.0 ? 1u : 0u), 0u) }             \
    else if ((T) == TY_U32 || (T) == TY_U64) { STORE_BITS(buf, T, i, uint(x), 0u) }            \
    else { uint lo_, hi_; floatToInt(T, x, lo_, hi_); STORE_BITS(buf, T, i, lo_, hi_) } }
