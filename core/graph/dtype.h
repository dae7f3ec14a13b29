// Element types of tensors: every ONNX TensorProto data type, with the same numbering,
// so converting to and from the file format is a cast.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace graphlens {

enum class DType : int32_t {
    Undefined = 0,
    Float = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    UInt32 = 12,
    UInt64 = 13,
    Complex64 = 14,
    Complex128 = 15,
    BFloat16 = 16,
    Float8E4M3FN = 17,
    Float8E4M3FNUZ = 18,
    Float8E5M2 = 19,
    Float8E5M2FNUZ = 20,
    UInt4 = 21,
    Int4 = 22,
    Float4E2M1 = 23,
};

/// The ONNX spelling of the type ("float", "int64", "float16", ...).
std::string_view dtypeName(DType type);

/// Parses the ONNX spelling back; nullopt for unknown names.
std::optional<DType> dtypeFromName(std::string_view name);

/// Maps a raw ONNX data-type number to a DType; nullopt when the number is not a known type.
std::optional<DType> dtypeFromOnnx(int32_t onnxType);

/// Storage size of one element in bits (4 for int4/uint4/float4, 0 for strings and undefined).
int dtypeBits(DType type);

/// Bytes needed to store `count` elements packed (int4 types pack two per byte); 0 for strings.
uint64_t dtypeStorageBytes(DType type, uint64_t count);

bool isFloatingPoint(DType type);
bool isInteger(DType type);

} // namespace graphlens
