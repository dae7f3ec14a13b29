// QLinearLookupTable (the CPU plan's own op, domain ai.graphlens): y[i] = table[x[i]] for a u8/s8
// x and a constant table of 256 u8/s8 values, indexed by x's byte (s8 codes -128..-1 at 128..255).
// The plan makes it of DequantizeLinear -> Sigmoid, HardSigmoid, HardSwish (and the other
// one-input activations, and x * Sigmoid(x)) -> QuantizeLinear with constant parameters, its
// table computed by the reference kernels for the 256 codes (qdq_lookup_table.cpp), as ONNX
// Runtime's QLinearSigmoid and QLinearLeakyRelu do. Element-wise, so any layout x and y share
// works: where the plan passes x or y channels-last (the int8 convolutions' layout), the other
// is reordered to it, as QLinearAdd does.
#include "core/runtime/cpu/byte_table.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/requantize.h"  // hasAvx2

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GRAPHLENS_HAS_SIMD_LOOKUP 1
#endif

namespace graphlens::onednn {

using Table = std::array<uint8_t, 256>;

#ifdef GRAPHLENS_HAS_SIMD_LOOKUP
/// The table as vpshufb reads it on AVX2 machines: row k holds entries 16k..16k+15, and each
/// row is stored as its difference (xor) from the row before it within its half (rows 0 and 8
/// as they are), in both 128-bit lanes.
struct ShuffleRows {
    __m256i rows[16];
    __attribute__((target("avx2"))) explicit ShuffleRows(const Table& t) {
        for (int k = 0; k < 16; ++k) {
            __m128i row = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + 16 * k));
            if (k % 8 != 0) row = _mm_xor_si128(row, _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.data() + 16 * (k - 1))));
            rows[k] = _mm256_broadcastsi128_si256(row);
        }
    }
};
#else
struct ShuffleRows {};
#endif

namespace {

using memory = dnnl::memory;

void lookupScalar(const uint8_t* x, uint8_t* y, int64_t n, const Table& t) {
    for (int64_t i = 0; i < n; ++i) y[i] = t[x[i]];
}

#ifdef GRAPHLENS_HAS_SIMD_LOOKUP
/// 64 bytes at a time: two vpermi2b look up the low and high 128 entries, the top bit of each
/// code picks between them.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookupVbmi(const uint8_t* x, uint8_t* y, int64_t n, const Table& t) {
    const __m512i t0 = _mm512_loadu_si512(t.data()), t1 = _mm512_loadu_si512(t.data() + 64);
    const __m512i t2 = _mm512_loadu_si512(t.data() + 128), t3 = _mm512_loadu_si512(t.data() + 192);
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i v = _mm512_loadu_si512(x + i);
        const __m512i low = _mm512_permutex2var_epi8(t0, v, t1);
        const __m512i high = _mm512_permutex2var_epi8(t2, v, t3);
        const __mmask64 top = _mm512_movepi8_mask(v);
        _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(top, low, high));
    }
    lookupScalar(x + i, y + i, n - i, t);
}

bool hasVbmi() {
    static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
    return has;
}

/// 32 bytes at a time. vpshufb looks up 16 entries by an index's low 4 bits and gives 0 where
/// its top bit is set. For a code v under 128, the index v - 16k is in [0, 127] for the rows k
/// up to v's row and negative after it, so xor-ing the eight lookups of rows 0..7 telescopes
/// to v's entry; codes from 128 do the same on v - 128 with rows 8..15, and v's top bit picks
/// one of the two results.
__attribute__((target("avx2"))) void lookupAvx2(const uint8_t* x, uint8_t* y, int64_t n, const ShuffleRows& t, const Table& table) {
    const __m256i step = _mm256_set1_epi8(16), top = _mm256_set1_epi8(char(0x80));
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
        __m256i low = v, high = _mm256_xor_si256(v, top);
        __m256i fromLow = _mm256_setzero_si256(), fromHigh = _mm256_setzero_si256();
        for (int k = 0; k < 8; ++k) {
            fromLow = _mm256_xor_si256(fromLow, _mm256_shuffle_epi8(t.rows[k], low));
            fromHigh = _mm256_xor_si256(fromHigh, _mm256_shuffle_epi8(t.rows[8 + k], high));
            low = _mm256_sub_epi8(low, step);
            high = _mm256_sub_epi8(high, step);
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_blendv_epi8(fromLow, fromHigh, v));
    }
    lookupScalar(x + i, y + i, n - i, table);
}
#endif

class LookupTableKernel final : public PreparedKernel, public BlockedLayoutKernel {
public:
    LookupTableKernel(const Table& table, DType x, DType y, const std::vector<int64_t>& dims, int threads)
        : table_(table), threads_(threads), n_(elementCount(dims)) {
        const auto type = [](DType t) { return t == DType::Int8 ? memory::data_type::s8 : memory::data_type::u8; };
        channelsLast_ = dims.size() == 4 && dims[1] > 1 && dims[2] * dims[3] > 1;
        if (!channelsLast_) return;
        const Dims d = toDims(dims);
        plain_[0] = memory::desc(d, type(x), plainTag(dims.size()));
        plain_[1] = memory::desc(d, type(y), plainTag(dims.size()));
        last_[0] = memory::desc(d, type(x), memory::format_tag::nhwc);
        last_[1] = memory::desc(d, type(y), memory::format_tag::nhwc);
    }

    std::string name() const override {
        if (!kept_[0] && !kept_[1]) return "cpu:qlinear-lookup-table";
        return std::string("cpu:qlinear-lookup-table[nhwc") + (kept_[0] ? " in" : "") + (kept_[1] ? " out" : "") + "]";
    }
    std::optional<memory::desc> blockedInput(size_t i) const override {
        if (!channelsLast_ || i != 0) return std::nullopt;
        return last_[0];
    }
    std::optional<memory::desc> blockedOutput() const override {
        if (!channelsLast_) return std::nullopt;
        return last_[1];
    }
    void keepBlocked(const std::vector<bool>& inputs, bool output) override {
        kept_[0] = channelsLast_ && !inputs.empty() && inputs[0];
        kept_[1] = channelsLast_ && output;
        if (kept_[0] == kept_[1]) return;  // both plain or both channels-last: no reorder
        const int i = kept_[0] ? 1 : 0;  // the one that stays plain
        const memory plain(plain_[i], engine(), DNNL_MEMORY_NONE), last(last_[i], engine(), DNNL_MEMORY_NONE);
        reorder_ = i == 0 ? dnnl::reorder(plain, last) : dnnl::reorder(last, plain);
    }

    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        ThreadScope threads(threads_);
        const auto* x = static_cast<const uint8_t*>(handleOf(*in[0]));
        auto* y = reinterpret_cast<uint8_t*>(out[0].mutableData());
        dnnl::stream& s = stream();
        if (kept_[0] == kept_[1]) return map(x, y);
        if (!kept_[0]) {  // plain x, channels-last y: reorder x into scratch first
            void* scratch = scratchBuffer(0, last_[0].get_size());
            memory from(plain_[0], engine(), const_cast<uint8_t*>(x)), to(last_[0], engine(), scratch);
            reorder_.execute(s, from, to);
            s.wait();
            return map(static_cast<const uint8_t*>(scratch), y);
        }
        void* scratch = scratchBuffer(0, last_[1].get_size());  // channels-last x, plain y
        map(x, static_cast<uint8_t*>(scratch));
        memory from(last_[1], engine(), scratch), to(plain_[1], engine(), y);
        reorder_.execute(s, from, to);
        s.wait();
    }

private:
    void map(const uint8_t* x, uint8_t* y) const {
        // 16 KiB a chunk: the two threads split MobileNetV3's 14x14 activations too. Their input
        // was written by a convolution on both threads, so a lone thread reads half of it from the
        // other core's cache (mobilenet_v3_small int8 on AVX2: 19 HardSwish 0.19-0.23 -> 0.14-0.19 ms
        // a run against 64 KiB chunks).
        const int64_t chunk = 1 << 14;
        const int64_t chunks = (n_ + chunk - 1) / chunk;
        if (chunks <= 1) return table_.map(x, y, n_);
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < chunks; ++c) table_.map(x + c * chunk, y + c * chunk, std::min(n_, (c + 1) * chunk) - c * chunk);
    }

    ByteTable table_;
    int threads_;
    int64_t n_;
    memory::desc plain_[2], last_[2];
    dnnl::reorder reorder_;
    bool channelsLast_ = false, kept_[2] = {false, false};
};

/// QLinearLookupTable(x u8/s8, table: a constant of 256 values of the output's type).
std::unique_ptr<PreparedKernel> prepareLookupTable(const NodeDescriptor& info) {
    const auto isInt8 = [](DType t) { return t == DType::UInt8 || t == DType::Int8; };
    if (!info.hasInput(0) || !info.hasInput(1) || !info.constants[1] || info.outputTypes.size() != 1) return nullptr;
    const Tensor& t = *info.constants[1];
    if (!isInt8(info.inputTypes[0]) || !isInt8(info.outputTypes[0]) || t.dtype() != info.outputTypes[0] || t.numel() != 256)
        return nullptr;
    if (info.inputDims[0] != info.outputDims[0]) return nullptr;
    Table table;
    std::memcpy(table.data(), t.data(), 256);
    return std::make_unique<LookupTableKernel>(table, info.inputTypes[0], info.outputTypes[0], info.outputDims[0], info.threads);
}

} // namespace

ByteTable::ByteTable(const Table& table) : table_(table) {
#ifdef GRAPHLENS_HAS_SIMD_LOOKUP
    if (!hasVbmi() && hasAvx2()) rows_ = std::make_unique<ShuffleRows>(table);
#endif
}
ByteTable::~ByteTable() = default;
ByteTable::ByteTable(ByteTable&&) noexcept = default;
ByteTable& ByteTable::operator=(ByteTable&&) noexcept = default;

void ByteTable::map(const uint8_t* x, uint8_t* y, int64_t n) const {
#ifdef GRAPHLENS_HAS_SIMD_LOOKUP
    if (hasVbmi()) return lookupVbmi(x, y, n, table_);
    if (rows_) return lookupAvx2(x, y, n, *rows_, table_);
#endif
    lookupScalar(x, y, n, table_);
}

void registerLookupTableKernels(CpuKernelRegistry& registry) {
    registry.add("QLinearLookupTable", prepareLookupTable, "ai.graphlens");
}

} // namespace graphlens::onednn
