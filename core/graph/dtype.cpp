// Names and sizes of ONNX element types.
#include "core/graph/dtype.h"

#include <array>

namespace graphlens {
namespace {

struct DTypeInfo {
    DType type;
    std::string_view name;
    int bits;
};

constexpr std::array kTypes{
    DTypeInfo{DType::Undefined, "undefined", 0},
    DTypeInfo{DType::Float, "float", 32},
    DTypeInfo{DType::UInt8, "uint8", 8},
    DTypeInfo{DType::Int8, "int8", 8},
    DTypeInfo{DType::UInt16, "uint16", 16},
    DTypeInfo{DType::Int16, "int16", 16},
    DTypeInfo{DType::Int32, "int32", 32},
    DTypeInfo{DType::Int64, "int64", 64},
    DTypeInfo{DType::String, "string", 0},
    DTypeInfo{DType::Bool, "bool", 8},
    DTypeInfo{DType::Float16, "float16", 16},
    DTypeInfo{DType::Double, "double", 64},
    DTypeInfo{DType::UInt32, "uint32", 32},
    DTypeInfo{DType::UInt64, "uint64", 64},
    DTypeInfo{DType::Complex64, "complex64", 64},
    DTypeInfo{DType::Complex128, "complex128", 128},
    DTypeInfo{DType::BFloat16, "bfloat16", 16},
    DTypeInfo{DType::Float8E4M3FN, "float8e4m3fn", 8},
    DTypeInfo{DType::Float8E4M3FNUZ, "float8e4m3fnuz", 8},
    DTypeInfo{DType::Float8E5M2, "float8e5m2", 8},
    DTypeInfo{DType::Float8E5M2FNUZ, "float8e5m2fnuz", 8},
    DTypeInfo{DType::UInt4, "uint4", 4},
    DTypeInfo{DType::Int4, "int4", 4},
    DTypeInfo{DType::Float4E2M1, "float4e2m1", 4},
};

const DTypeInfo& info(DType type) {
    const auto index = static_cast<size_t>(type);
    return index < kTypes.size() ? kTypes[index] : kTypes[0];
}

} // namespace

std::string_view dtypeName(DType type) { return info(type).name; }

std::optional<DType> dtypeFromName(std::string_view name) {
    for (const auto& entry : kTypes)
        if (entry.name == name) return entry.type;
    return std::nullopt;
}

std::optional<DType> dtypeFromOnnx(int32_t onnxType) {
    if (onnxType < 0 || static_cast<size_t>(onnxType) >= kTypes.size()) return std::nullopt;
    return kTypes[static_cast<size_t>(onnxType)].type;
}

int dtypeBits(DType type) { return info(type).bits; }

uint64_t dtypeStorageBytes(DType type, uint64_t count) {
    const int bits = dtypeBits(type);
    return bits == 4 ? (count + 1) / 2 : count * static_cast<uint64_t>(bits / 8);
}

bool isFloatingPoint(DType type) {
    switch (type) {
    case DType::Float: case DType::Double: case DType::Float16: case DType::BFloat16:
    case DType::Float8E4M3FN: case DType::Float8E4M3FNUZ: case DType::Float8E5M2:
    case DType::Float8E5M2FNUZ: case DType::Float4E2M1:
        return true;
    default:
        return false;
    }
}

bool isInteger(DType type) {
    switch (type) {
    case DType::UInt8: case DType::Int8: case DType::UInt16: case DType::Int16: case DType::Int32:
    case DType::Int64: case DType::UInt32: case DType::UInt64: case DType::UInt4: case DType::Int4:
        return true;
    default:
        return false;
    }
}

} // namespace graphlens
