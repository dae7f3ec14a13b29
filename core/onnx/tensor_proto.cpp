// TensorProto <-> Tensor. ONNX stores elements either as raw little-endian bytes or in typed
// repeated fields (int32_data carries every type of 32 bits or less, and so on); both are read.
#include "core/onnx/tensor_proto.h"

#include "core/graph/shape.h"
#include "core/onnx/external_data.h"
#include "core/onnx/onnx_error.h"

#include <cstddef>
#include <cstring>

namespace graphlens {
namespace {

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string out = "[";
    for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
    return out + "]";
}

/// Packs `count` typed-field values into raw bytes of `dtype`.
template <typename Field>
std::string packField(const Field& field, DType dtype, uint64_t storageBytes) {
    std::string bytes(storageBytes, '\0');
    const int bits = dtypeBits(dtype);
    for (int i = 0; i < field.size(); ++i) {
        const auto v = field.Get(i);
        if (bits == 4) {  // two elements per byte, low nibble first
            auto nibble = static_cast<uint8_t>(uint64_t(v) & 0xf);
            bytes[size_t(i) / 2] = char(uint8_t(bytes[size_t(i) / 2]) | (i % 2 ? nibble << 4 : nibble));
        } else {
            std::memcpy(bytes.data() + size_t(i) * size_t(bits / 8), &v, size_t(bits / 8));
        }
    }
    return bytes;
}

/// The typed field that carries `dtype` and its element count, per onnx.proto.
int typedFieldCount(const onnx::TensorProto& p, DType dtype) {
    switch (dtype) {
    case DType::Float: return p.float_data_size();
    case DType::Complex64: return p.float_data_size() / 2;
    case DType::Double: return p.double_data_size();
    case DType::Complex128: return p.double_data_size() / 2;
    case DType::Int64: return p.int64_data_size();
    case DType::UInt32: case DType::UInt64: return p.uint64_data_size();
    case DType::String: return p.string_data_size();
    default: return p.int32_data_size();
    }
}

std::string packTypedField(const onnx::TensorProto& p, DType dtype, uint64_t bytes) {
    switch (dtype) {
    case DType::Float: case DType::Complex64: return packField(p.float_data(), DType::Float, bytes);
    case DType::Double: case DType::Complex128:
        return packField(p.double_data(), DType::Double, bytes);
    case DType::Int64: return packField(p.int64_data(), DType::Int64, bytes);
    case DType::UInt32: case DType::UInt64: return packField(p.uint64_data(), dtype, bytes);
    default: return packField(p.int32_data(), dtype, bytes);
    }
}

} // namespace

Tensor tensorFromProto(const onnx::TensorProto& proto, const std::shared_ptr<const void>& owner,
                       ExternalDataReader* external, const std::string& label,
                       std::span<const std::byte> liftedRawData) {
    const auto dtype = dtypeFromOnnx(proto.data_type());
    if (!dtype || *dtype == DType::Undefined)
        throw OnnxError(label + " has an unknown element type (" +
                        std::to_string(proto.data_type()) + ")");
    std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
    for (int64_t d : dims)
        if (d < 0) throw OnnxError(label + " has a negative dimension in its shape " + dimsText(dims));
    const auto count = checkedElementCount(dims);
    if (!count)
        throw OnnxError(label + " has the shape " + dimsText(dims) +
                        ", whose element count overflows 64 bits");
    if (proto.has_segment())
        throw OnnxError(label + " is a segment of a larger tensor, which is not supported");
    const uint64_t n = uint64_t(*count);
    if (dtypeBits(*dtype) > 8 && n > UINT64_MAX / uint64_t(dtypeBits(*dtype) / 8))
        throw OnnxError(label + " has the shape " + dimsText(dims) + ", too large to store");
    const uint64_t expected = dtypeStorageBytes(*dtype, n);
    const std::string typeName(dtypeName(*dtype));

    if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
        if (!external)
            throw OnnxError(label + " keeps its data in an external file, which is not allowed here");
        return external->read(proto, *dtype, std::move(dims), expected, label);
    }
    if (*dtype == DType::String) {
        if (uint64_t(proto.string_data_size()) != n)
            throw OnnxError(label + " holds " + std::to_string(proto.string_data_size()) +
                            " strings but its shape " + dimsText(dims) + " needs " +
                            std::to_string(n));
        return Tensor::fromStrings(std::move(dims), {proto.string_data().begin(), proto.string_data().end()});
    }
    if (proto.has_raw_data()) {
        const std::string_view raw = liftedRawData.empty()
                                         ? std::string_view(proto.raw_data())
                                         : std::string_view(reinterpret_cast<const char*>(liftedRawData.data()), liftedRawData.size());
        if (raw.size() != expected)
            throw OnnxError(label + " holds " + std::to_string(raw.size()) + " bytes but its shape " +
                            dimsText(dims) + " of type " + typeName + " needs " +
                            std::to_string(expected));
        const auto* bytes = reinterpret_cast<const std::byte*>(raw.data());
        // Kernels read the elements in place, and a view needs the alignment of a heap block: raw
        // data lifted out of the file buffer lies at any offset (UBSan: misaligned float loads in
        // the LSTM kernel), so such bytes are copied.
        if (reinterpret_cast<uintptr_t>(bytes) % alignof(std::max_align_t) != 0)
            return Tensor::fromBytes(*dtype, std::move(dims), std::string(raw));  // one copy, no zero-fill first
        return Tensor::view(*dtype, std::move(dims), bytes, raw.size(), owner);
    }
    const uint64_t present = uint64_t(typedFieldCount(proto, *dtype));
    if (present != n)
        throw OnnxError(label + " holds " + std::to_string(present) + " values but its shape " +
                        dimsText(dims) + " needs " + std::to_string(n));
    return Tensor::fromBytes(*dtype, std::move(dims), packTypedField(proto, *dtype, expected));
}

void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto) {
    if (tensor.isSequence() || tensor.isOptional())
        throw OnnxError("a sequence or an optional value cannot be written as a tensor");
    proto.set_data_type(static_cast<int32_t>(tensor.dtype()));
    for (int64_t d : tensor.dims()) proto.add_dims(d);
    if (tensor.dtype() == DType::String) {
        for (const std::string& s : tensor.strings()) proto.add_string_data(s);
        return;
    }
    if (tensor.byteSize() == 0) proto.set_raw_data(std::string());
    else proto.set_raw_data(reinterpret_cast<const char*>(tensor.data()), tensor.byteSize());
}

} // namespace graphlens
