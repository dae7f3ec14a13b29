// Tensors with shared, immutable storage: copying a Tensor (or a whole Graph) never copies weights.
#pragma once

#include "core/graph/dtype.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace graphlens {

/// Where a tensor's bytes lived on disk when it was loaded from ONNX external data;
/// kept so that a model can be written back with the same layout.
struct ExternalDataOrigin {
    std::string location;  ///< relative to the model's folder
    uint64_t offset = 0;
    uint64_t length = 0;
};

class Tensor {
public:
    Tensor() = default;

    /// Takes ownership of `bytes` (little-endian, packed as ONNX raw_data).
    static Tensor fromBytes(DType type, std::vector<int64_t> dims, std::string bytes);
    /// Refers to bytes owned by `owner` (a parsed model, a mapped file) without copying them.
    static Tensor view(DType type, std::vector<int64_t> dims, const std::byte* data, size_t size,
                       std::shared_ptr<const void> owner);
    static Tensor fromStrings(std::vector<int64_t> dims, std::vector<std::string> values);
    /// A new zero-filled tensor with 64-byte aligned storage, to be filled through mutableData()
    /// before anyone else sees it (strings: empty strings).
    static Tensor allocate(DType type, std::vector<int64_t> dims);

    template <typename T>
    static Tensor fromVector(DType type, std::vector<int64_t> dims, const std::vector<T>& values) {
        std::string bytes(values.size() * sizeof(T), '\0');
        if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
        return fromBytes(type, std::move(dims), std::move(bytes));
    }
    static Tensor floats(std::vector<int64_t> dims, const std::vector<float>& values) {
        return fromVector(DType::Float, std::move(dims), values);
    }
    static Tensor int64s(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
        return fromVector(DType::Int64, std::move(dims), values);
    }
    static Tensor scalar(float value) { return floats({}, {value}); }

    /// An ONNX sequence value: `elements` (tensors of `elementType`, any shapes; none for an empty
    /// sequence). Sequences flow through the reference kernels (SequenceConstruct, SequenceAt,
    /// ...), Identity, If and Loop; dtype() is the element type, dims() empty, byteSize() 0.
    static Tensor sequence(DType elementType, std::vector<Tensor> elements);
    /// An ONNX optional value: `element` (a tensor or a sequence), or none (of `elementType`).
    static Tensor optional(DType elementType, std::optional<Tensor> element);
    bool isSequence() const { return kind_ == Kind::Sequence; }
    bool isOptional() const { return kind_ == Kind::Optional; }
    /// A sequence's elements, or an optional's one element (none when it holds no value).
    const std::vector<Tensor>& elements() const;
    /// The elements, moved out when this Tensor is their only holder (a sequence a Loop grows by
    /// SequenceInsert then costs one insertion per step, not a copy of every element), else copied.
    /// Leaves this Tensor empty either way.
    std::vector<Tensor> releaseElements() &&;

    DType dtype() const { return dtype_; }
    const std::vector<int64_t>& dims() const { return dims_; }
    size_t rank() const { return dims_.size(); }
    int64_t numel() const;
    size_t byteSize() const { return size_; }
    const std::byte* data() const { return data_.get(); }
    /// True for a default-constructed Tensor (no value); an empty sequence or a None optional is
    /// a value.
    bool empty() const { return !data_ && !strings_ && !elements_; }

    template <typename T>
    std::span<const T> span() const {
        static_assert(std::is_trivially_copyable_v<T>);
        if (dtypeBits(dtype_) != static_cast<int>(sizeof(T) * 8))
            throw std::logic_error("Tensor::span: element type does not match the tensor's dtype");
        return {reinterpret_cast<const T*>(data_.get()), size_ / sizeof(T)};
    }
    /// Writable access for the producer of a tensor made by allocate(); storage is shared by
    /// copies, so nothing may write once the tensor has been handed on.
    std::byte* mutableData() const { return const_cast<std::byte*>(data_.get()); }
    template <typename T>
    std::span<T> mutableSpan() const {
        auto s = span<T>();
        return {const_cast<T*>(s.data()), s.size()};
    }
    std::vector<std::string>& mutableStrings() const {
        return const_cast<std::vector<std::string>&>(*strings_);
    }

    /// Values of a string tensor (empty for other types).
    const std::vector<std::string>& strings() const;

    /// Values converted to double (float, double, float16, bfloat16 and every integer type).
    std::vector<double> toDoubles() const;

    bool sharesStorageWith(const Tensor& other) const;
    /// True when both tensors view the same allocation (e.g. two slices of one arena).
    bool sameAllocation(const Tensor& other) const {
        return data_ && other.data_ && !data_.owner_before(other.data_) && !other.data_.owner_before(data_);
    }
    /// True when both have the same type, dims and bytes (or strings).
    bool contentEquals(const Tensor& other) const;

    /// The storage owner, for views that must keep this tensor's bytes alive.
    std::shared_ptr<const std::byte> sharedStorage() const { return data_; }

    const ExternalDataOrigin* externalOrigin() const { return origin_.get(); }
    void setExternalOrigin(ExternalDataOrigin origin) {
        origin_ = std::make_shared<const ExternalDataOrigin>(std::move(origin));
    }

private:
    enum class Kind : uint8_t { Tensor, Sequence, Optional };
    Kind kind_ = Kind::Tensor;
    std::shared_ptr<const std::vector<Tensor>> elements_;  ///< sequences and optionals
    DType dtype_ = DType::Undefined;
    std::vector<int64_t> dims_;
    std::shared_ptr<const std::byte> data_;
    size_t size_ = 0;
    std::shared_ptr<const std::vector<std::string>> strings_;
    std::shared_ptr<const ExternalDataOrigin> origin_;
};

float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

} // namespace graphlens
