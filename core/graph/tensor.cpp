// Tensor storage and element conversion.
#include "core/graph/tensor.h"

#include "core/graph/shape.h"

#include <algorithm>
#include <bit>
#include <new>

#include <unistd.h>

namespace graphlens {

Tensor Tensor::fromBytes(DType type, std::vector<int64_t> dims, std::string bytes) {
    auto owner = std::make_shared<const std::string>(std::move(bytes));
    const auto* data = reinterpret_cast<const std::byte*>(owner->data());
    return view(type, std::move(dims), data, owner->size(), owner);
}

Tensor Tensor::view(DType type, std::vector<int64_t> dims, const std::byte* data, size_t size,
                    std::shared_ptr<const void> owner) {
    Tensor t;
    t.dtype_ = type;
    t.dims_ = std::move(dims);
    t.data_ = std::shared_ptr<const std::byte>(std::move(owner), data);
    t.size_ = size;
    return t;
}

Tensor Tensor::fromStrings(std::vector<int64_t> dims, std::vector<std::string> values) {
    Tensor t;
    t.dtype_ = DType::String;
    t.dims_ = std::move(dims);
    t.strings_ = std::make_shared<const std::vector<std::string>>(std::move(values));
    return t;
}

Tensor Tensor::allocate(DType type, std::vector<int64_t> dims) {
    const int64_t count = checkedElementCount(dims).value_or(-1);
    if (count < 0) throw std::length_error("Tensor::allocate: the shape's element count overflows");
    if (type == DType::String)
        return fromStrings(std::move(dims), std::vector<std::string>(size_t(count)));
    const int bits = dtypeBits(type);
    if (bits > 8 && uint64_t(count) > UINT64_MAX / uint64_t(bits / 8))
        throw std::length_error("Tensor::allocate: the tensor's byte size overflows");
    const size_t bytes = dtypeStorageBytes(type, uint64_t(count));
    static const uint64_t physicalMemory =
        uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    if (bytes > physicalMemory)
        throw std::length_error("a tensor of " + std::to_string(bytes) +
                                " bytes would not fit in this machine's memory");
    constexpr std::align_val_t alignment{64};
    auto* raw = static_cast<std::byte*>(::operator new(std::max<size_t>(bytes, 1), alignment));
    std::memset(raw, 0, bytes);
    std::shared_ptr<const std::byte> owner(raw, [](const std::byte* p) {
        ::operator delete(const_cast<std::byte*>(p), std::align_val_t{64});
    });
    Tensor t;
    t.dtype_ = type;
    t.dims_ = std::move(dims);
    t.data_ = std::move(owner);
    t.size_ = bytes;
    return t;
}

int64_t Tensor::numel() const { return checkedElementCount(dims_).value_or(-1); }

const std::vector<std::string>& Tensor::strings() const {
    static const std::vector<std::string> none;
    return strings_ ? *strings_ : none;
}

float halfToFloat(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else {  // subnormal half: normalize
        exponent = 113;
        while (!(mantissa & 0x400u)) { mantissa <<= 1; --exponent; }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(bits);
}

float bfloat16ToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t(bits) << 16); }

namespace {

template <typename T>
void appendAs(const std::byte* data, size_t count, std::vector<double>& out) {
    for (size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, data + i * sizeof(T), sizeof(T));
        out.push_back(static_cast<double>(v));
    }
}

} // namespace

std::vector<double> Tensor::toDoubles() const {
    std::vector<double> out;
    const int64_t n = numel();
    if (n <= 0 || !data_) return out;
    const auto count = static_cast<size_t>(n);
    if (dtypeStorageBytes(dtype_, count) > size_) return out;
    out.reserve(count);
    const std::byte* p = data_.get();
    switch (dtype_) {
    case DType::Float: appendAs<float>(p, count, out); break;
    case DType::Double: appendAs<double>(p, count, out); break;
    case DType::Int8: appendAs<int8_t>(p, count, out); break;
    case DType::UInt8: case DType::Bool: appendAs<uint8_t>(p, count, out); break;
    case DType::Int16: appendAs<int16_t>(p, count, out); break;
    case DType::UInt16: appendAs<uint16_t>(p, count, out); break;
    case DType::Int32: appendAs<int32_t>(p, count, out); break;
    case DType::UInt32: appendAs<uint32_t>(p, count, out); break;
    case DType::Int64: appendAs<int64_t>(p, count, out); break;
    case DType::UInt64: appendAs<uint64_t>(p, count, out); break;
    case DType::Float16:
    case DType::BFloat16:
        for (size_t i = 0; i < count; ++i) {
            uint16_t h;
            std::memcpy(&h, p + 2 * i, 2);
            out.push_back(dtype_ == DType::Float16 ? halfToFloat(h) : bfloat16ToFloat(h));
        }
        break;
    default: break;
    }
    return out;
}

bool Tensor::sharesStorageWith(const Tensor& other) const {
    return (data_ && data_ == other.data_) || (strings_ && strings_ == other.strings_);
}

Tensor Tensor::sequence(DType elementType, std::vector<Tensor> elements) {
    Tensor t;
    t.kind_ = Kind::Sequence;
    t.dtype_ = elementType;
    // Made non-const so that releaseElements() may move from it when it holds the only reference.
    t.elements_ = std::make_shared<std::vector<Tensor>>(std::move(elements));
    return t;
}

Tensor Tensor::optional(DType elementType, std::optional<Tensor> element) {
    Tensor t;
    t.kind_ = Kind::Optional;
    t.dtype_ = elementType;
    std::vector<Tensor> held;
    if (element) held.push_back(std::move(*element));
    t.elements_ = std::make_shared<std::vector<Tensor>>(std::move(held));
    return t;
}

const std::vector<Tensor>& Tensor::elements() const {
    static const std::vector<Tensor> none;
    return elements_ ? *elements_ : none;
}

std::vector<Tensor> Tensor::releaseElements() && {
    std::shared_ptr<const std::vector<Tensor>> held = std::move(elements_);
    *this = Tensor();
    if (!held) return {};
    // One reference is ours alone: no other holder remains to copy it from, on any thread.
    if (held.use_count() == 1) return std::move(const_cast<std::vector<Tensor>&>(*held));
    return *held;
}

bool Tensor::contentEquals(const Tensor& other) const {
    if (kind_ != other.kind_) return false;
    if (kind_ != Kind::Tensor) {
        if (dtype_ != other.dtype_ || elements().size() != other.elements().size()) return false;
        for (size_t i = 0; i < elements().size(); ++i)
            if (!elements()[i].contentEquals(other.elements()[i])) return false;
        return true;
    }
    if (dtype_ != other.dtype_ || dims_ != other.dims_) return false;
    if (dtype_ == DType::String) return strings() == other.strings();
    if (size_ != other.size_) return false;
    return size_ == 0 || std::memcmp(data_.get(), other.data_.get(), size_) == 0;
}

} // namespace graphlens
