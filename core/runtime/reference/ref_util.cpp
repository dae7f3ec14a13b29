// Reference-kernel helpers.
#include "core/runtime/reference/ref_util.h"

#include "core/graph/shape.h"
#include "core/runtime/errors.h"
#include "core/runtime/resource_limits.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace graphlens::ref {

int64_t normalizeAxis(int64_t axis, int64_t rank, const char* what) {
    const int64_t normalized = axis < 0 ? axis + rank : axis;
    if (normalized < 0 || normalized >= std::max<int64_t>(rank, 1))
        throw KernelError(std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                          std::to_string(rank));
    return normalized;
}

std::vector<int64_t> stridesOf(const std::vector<int64_t>& dims) {
    std::vector<int64_t> strides(dims.size(), 1);
    // A product past int64 means a tensor with no elements ([0, 2^63 - 1, 6]): nothing is ever
    // indexed with such a stride, so it is 0 rather than undefined (fuzz_run).
    for (size_t i = dims.size(); i-- > 1;)
        if (__builtin_mul_overflow(strides[i], dims[i], &strides[i - 1])) strides[i - 1] = 0;
    return strides;
}

int64_t elementCount(const std::vector<int64_t>& dims) {
    auto n = checkedElementCount(dims);
    if (!n) throw KernelError("the shape " + dimsText(dims) + " is too large");
    return *n;
}

namespace {

void checkMemoryFor(const char* what, const std::vector<int64_t>& dims, uint64_t bytesEach, bool underRunLimit) {
    const auto count = checkedElementCount(dims);
    const bool overflows = !count || (bytesEach && uint64_t(*count) > UINT64_MAX / bytesEach);
    const uint64_t bytes = overflows ? UINT64_MAX : uint64_t(*count) * bytesEach;
    if (underRunLimit && !overflows) checkRunMemoryLimit(bytes, [&] { return std::string(what) + " " + dimsText(dims); });
    constexpr uint64_t kAlwaysAllowed = uint64_t(64) << 20;  // reading /proc/meminfo costs more than this takes
    if (bytes <= kAlwaysAllowed) return;
    const uint64_t available = availableMemoryBytes();
    if (bytes <= available) return;
    throw ResourceError(std::string(what) + " " + dimsText(dims) + " needs " +
                        (overflows ? std::string("more bytes than 64 bits count") : formatBytes(bytes)) + " but " +
                        formatBytes(available) + " are available");
}

} // namespace

void checkWorkingSet(const char* what, const std::vector<int64_t>& dims, uint64_t bytesEach) {
    checkMemoryFor(what, dims, bytesEach, true);
}

void checkAvailableMemory(const char* what, const std::vector<int64_t>& dims, uint64_t bytesEach) {
    checkMemoryFor(what, dims, bytesEach, false);
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
    return out + "]";
}

std::vector<int64_t> broadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    const size_t rank = std::max(a.size(), b.size());
    std::vector<int64_t> out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            throw KernelError("the shapes " + dimsText(a) + " and " + dimsText(b) + " do not broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::vector<int64_t> broadcastIndices(const std::vector<int64_t>& inDims,
                                      const std::vector<int64_t>& outDims) {
    const size_t rank = outDims.size();
    const size_t offset = rank - inDims.size();
    const auto inStrides = stridesOf(inDims);
    std::vector<int64_t> stride(rank, 0);  // 0 along broadcast dims
    for (size_t i = 0; i < inDims.size(); ++i)
        stride[i + offset] = inDims[i] == 1 ? 0 : inStrides[i];
    const int64_t count = elementCount(outDims);
    std::vector<int64_t> indices(static_cast<size_t>(count));
    std::vector<int64_t> counter(rank, 0);
    int64_t current = 0;
    for (int64_t n = 0; n < count; ++n) {
        indices[size_t(n)] = current;
        for (size_t d = rank; d-- > 0;) {  // odometer increment
            if (++counter[d] < outDims[d]) {
                current += stride[d];
                break;
            }
            current -= stride[d] * (outDims[d] - 1);
            counter[d] = 0;
        }
    }
    return indices;
}

std::vector<int64_t> toInt64s(const Tensor& t) {
    std::vector<int64_t> out;
    const int64_t n = std::max<int64_t>(t.numel(), 0);
    out.reserve(size_t(n));
    switch (t.dtype()) {
    case DType::Int64: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<int64_t>(t)[i]); break;
    case DType::Int32: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<int32_t>(t)[i]); break;
    case DType::Int16: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<int16_t>(t)[i]); break;
    case DType::Int8: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<int8_t>(t)[i]); break;
    case DType::UInt8: case DType::Bool:
        for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<uint8_t>(t)[i]);
        break;
    case DType::UInt16: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<uint16_t>(t)[i]); break;
    case DType::UInt32: for (int64_t i = 0; i < n; ++i) out.push_back(dataOf<uint32_t>(t)[i]); break;
    case DType::UInt64:
        for (int64_t i = 0; i < n; ++i) out.push_back(int64_t(dataOf<uint64_t>(t)[i]));
        break;
    default:
        throw KernelError("expected an integer tensor, got " + std::string(dtypeName(t.dtype())));
    }
    return out;
}

Tensor toFloat(const Tensor& t) {
    if (t.dtype() == DType::Float) return t;
    const std::vector<double> values = t.toDoubles();
    Tensor out = Tensor::allocate(DType::Float, t.dims());
    if (values.size() != size_t(std::max<int64_t>(out.numel(), 0)))
        throw KernelError("cannot convert " + std::string(dtypeName(t.dtype())) + " to float");
    float* p = mutableDataOf<float>(out);
    for (size_t i = 0; i < values.size(); ++i) p[i] = float(values[i]);
    return out;
}

uint16_t floatToHalf(float value) {
    const uint32_t x = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow to infinity
    if (absx < 0x38800000u) {  // subnormal half or zero: round to nearest even
        const float scaled = std::bit_cast<float>(absx) * 16777216.0f;  // 2^24
        return uint16_t(sign | uint32_t(std::nearbyint(scaled)));
    }
    uint32_t mantissa = absx & 0x7fffffu;
    uint32_t exponent = (absx >> 23) - 112;
    uint32_t half = (exponent << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return uint16_t(sign | half);
}

uint16_t floatToBFloat16(float value) {
    uint32_t x = std::bit_cast<uint32_t>(value);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // NaN stays NaN
    x += 0x7fffu + ((x >> 16) & 1u);
    return uint16_t(x >> 16);
}

Tensor fromFloat(const Tensor& t, DType target) {
    if (target == DType::Float) return t;
    Tensor out = Tensor::allocate(target, t.dims());
    const float* in = dataOf<float>(t);
    const int64_t n = std::max<int64_t>(t.numel(), 0);
    switch (target) {
    case DType::Double:
        for (int64_t i = 0; i < n; ++i) mutableDataOf<double>(out)[i] = in[i];
        break;
    case DType::Float16:
        for (int64_t i = 0; i < n; ++i) mutableDataOf<uint16_t>(out)[i] = floatToHalf(in[i]);
        break;
    case DType::BFloat16:
        for (int64_t i = 0; i < n; ++i) mutableDataOf<uint16_t>(out)[i] = floatToBFloat16(in[i]);
        break;
    default:
        throw KernelError("cannot convert float to " + std::string(dtypeName(target)));
    }
    return out;
}

} // namespace graphlens::ref
