// TensorProto decoding with TensorFlow's rules for short value lists.
#include "core/tf/tf_tensor.h"

#include "core/tf/tf_error.h"

#include <cstring>

namespace graphlens::tf {

std::optional<DType> dtypeFromTf(int dataType) {
    if (dataType > 100) dataType -= 100;  // DT_FLOAT_REF and friends
    switch (dataType) {
    case DT_FLOAT: return DType::Float;
    case DT_DOUBLE: return DType::Double;
    case DT_INT32: return DType::Int32;
    case DT_UINT8: return DType::UInt8;
    case DT_INT16: return DType::Int16;
    case DT_INT8: return DType::Int8;
    case DT_STRING: return DType::String;
    case DT_COMPLEX64: return DType::Complex64;
    case DT_INT64: return DType::Int64;
    case DT_BOOL: return DType::Bool;
    case DT_BFLOAT16: return DType::BFloat16;
    case DT_UINT16: return DType::UInt16;
    case DT_COMPLEX128: return DType::Complex128;
    case DT_HALF: return DType::Float16;
    case DT_UINT32: return DType::UInt32;
    case DT_UINT64: return DType::UInt64;
    default: return std::nullopt;
    }
}

std::string tfTypeName(int dataType) {
    if (DataType_IsValid(dataType)) return DataType_Name(static_cast<DataType>(dataType));
    return "DataType " + std::to_string(dataType);
}

Shape shapeFromTf(const TensorShapeProto& proto, const std::string& symbolPrefix) {
    if (proto.unknown_rank()) return Shape();
    std::vector<Dim> dims;
    for (int i = 0; i < proto.dim_size(); ++i) {
        const int64_t size = proto.dim(i).size();
        if (size >= 0) dims.emplace_back(size);
        else dims.emplace_back(symbolPrefix + std::to_string(i));
    }
    return Shape(std::move(dims));
}

std::vector<int64_t> staticSizes(const TensorShapeProto& proto, const std::string& label) {
    if (proto.unknown_rank()) throw TfImportError(label + " has a shape of unknown rank");
    std::vector<int64_t> sizes;
    for (const auto& d : proto.dim()) {
        if (d.size() < 0) throw TfImportError(label + " has a dimension of unknown size");
        sizes.push_back(d.size());
    }
    if (!checkedElementCount(sizes)) throw TfImportError(label + " has too many elements");
    return sizes;
}

namespace {

/// `values` (a typed list of `count` entries) converted to `T` and stretched to `numel` by
/// repeating the last value.
template <typename T, typename List>
std::string filled(const List& values, int64_t numel, const std::string& label) {
    if (int64_t(values.size()) > numel)
        throw TfImportError(label + " holds " + std::to_string(values.size()) + " values but its shape has " +
                            std::to_string(numel) + " elements");
    std::string bytes(size_t(numel) * sizeof(T), '\0');
    T* out = reinterpret_cast<T*>(bytes.data());
    T last{};
    for (int64_t i = 0; i < numel; ++i) {
        if (i < int64_t(values.size())) last = static_cast<T>(values[int(i)]);
        out[i] = last;
    }
    return bytes;
}

std::string typedValues(const TensorProto& p, DType type, int64_t numel, const std::string& label) {
    switch (type) {
    case DType::Float: return filled<float>(p.float_val(), numel, label);
    case DType::Double: return filled<double>(p.double_val(), numel, label);
    case DType::Int32: return filled<int32_t>(p.int_val(), numel, label);
    case DType::Int16: return filled<int16_t>(p.int_val(), numel, label);
    case DType::Int8: return filled<int8_t>(p.int_val(), numel, label);
    case DType::UInt8: return filled<uint8_t>(p.int_val(), numel, label);
    case DType::UInt16: return filled<uint16_t>(p.int_val(), numel, label);
    case DType::Int64: return filled<int64_t>(p.int64_val(), numel, label);
    case DType::UInt32: return filled<uint32_t>(p.uint32_val(), numel, label);
    case DType::UInt64: return filled<uint64_t>(p.uint64_val(), numel, label);
    case DType::Bool: return filled<uint8_t>(p.bool_val(), numel, label);
    case DType::Float16:
    case DType::BFloat16: return filled<uint16_t>(p.half_val(), numel, label);
    default:
        throw TfImportError(label + " has the type " + tfTypeName(p.dtype()) +
                            ", whose values GraphLens cannot read from a value list");
    }
}

} // namespace

Tensor tensorFromTf(const TensorProto& proto, const std::string& label) {
    const auto type = dtypeFromTf(proto.dtype());
    if (!type) throw TfImportError(label + " has the unsupported type " + tfTypeName(proto.dtype()));
    std::vector<int64_t> dims = staticSizes(proto.tensor_shape(), label);
    const int64_t numel = *checkedElementCount(dims);
    // A TensorProto may give fewer values than its shape holds (the last one repeats): a few bytes
    // of file can ask for any size (fuzzing: a Const of 8 GiB). No frozen graph has a constant
    // beyond protobuf's own 2 GiB limit on the file.
    constexpr uint64_t kMaxConstantBytes = uint64_t(2) << 30;
    const uint64_t bytes = *type == DType::String ? uint64_t(numel) * sizeof(std::string) : dtypeStorageBytes(*type, uint64_t(numel));
    if (bytes > kMaxConstantBytes)
        throw TfImportError(label + " would take " + std::to_string(bytes >> 20) + " MiB, more than the " +
                            std::to_string(kMaxConstantBytes >> 20) + " MiB a constant may");
    if (*type == DType::String) {
        std::vector<std::string> values(proto.string_val().begin(), proto.string_val().end());
        if (int64_t(values.size()) > numel)
            throw TfImportError(label + " holds more strings than its shape has elements");
        values.resize(size_t(numel), values.empty() ? std::string() : values.back());
        return Tensor::fromStrings(std::move(dims), std::move(values));
    }
    const uint64_t expected = dtypeStorageBytes(*type, uint64_t(numel));
    if (!proto.tensor_content().empty()) {
        if (proto.tensor_content().size() != expected)
            throw TfImportError(label + " holds " + std::to_string(proto.tensor_content().size()) +
                                " bytes but its shape and type need " + std::to_string(expected));
        return Tensor::fromBytes(*type, std::move(dims), proto.tensor_content());
    }
    return Tensor::fromBytes(*type, std::move(dims), typedValues(proto, *type, numel, label));
}

} // namespace graphlens::tf
