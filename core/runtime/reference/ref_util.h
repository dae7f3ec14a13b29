// Small helpers the reference kernels share: axes, strides, broadcasting, type dispatch.
#pragma once

#include "core/graph/tensor.h"
#include "core/runtime/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace graphlens::ref {

/// Maps a possibly negative axis into [0, rank); KernelError when out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank, const char* what = "axis");
/// Row-major strides, in elements.
std::vector<int64_t> stridesOf(const std::vector<int64_t>& dims);
int64_t elementCount(const std::vector<int64_t>& dims);
std::string dimsText(const std::vector<int64_t>& dims);
/// ResourceError when `count` elements of `bytesEach` bytes (a tensor of `dims`, or `count`
/// positions of it) overflow 64 bits or exceed the memory available now (or the RunMemoryLimit in
/// force): call before allocating
/// what attributes or input values size ("the output [3,1,5,2147483648] of 128.8 GB ...").
void checkWorkingSet(const char* what, const std::vector<int64_t>& dims, uint64_t bytesEach);
/// checkWorkingSet against the memory available only: for an output whose own bytes
/// KernelContext::allocateOutput holds to the RunMemoryLimit, while the working set counted here
/// (an index per element) is larger.
void checkAvailableMemory(const char* what, const std::vector<int64_t>& dims, uint64_t bytesEach);

/// Numpy-style broadcast of two shapes; KernelError when they do not broadcast.
std::vector<int64_t> broadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// For each element of an `outDims` tensor, the linear index of the element of a tensor of
/// `inDims` broadcast to it.
std::vector<int64_t> broadcastIndices(const std::vector<int64_t>& inDims,
                                      const std::vector<int64_t>& outDims);

/// Values of an integer (or bool) tensor as int64; KernelError for other types.
std::vector<int64_t> toInt64s(const Tensor& t);
/// A float tensor with the values of any float16/bfloat16/float/double/integer tensor.
Tensor toFloat(const Tensor& t);
/// `t` (float) converted to `target` (float16, bfloat16, double, float).
Tensor fromFloat(const Tensor& t, DType target);

uint16_t floatToHalf(float value);
uint16_t floatToBFloat16(float value);

/// Calls f.template operator()<T>() with the C++ type of `type` for the numeric types and bool
/// (bool as bool); KernelError naming `op` for anything else.
template <typename F>
void visitNumeric(DType type, const std::string& op, F&& f) {
    switch (type) {
    case DType::Float: f.template operator()<float>(); break;
    case DType::Double: f.template operator()<double>(); break;
    case DType::Int8: f.template operator()<int8_t>(); break;
    case DType::UInt8: f.template operator()<uint8_t>(); break;
    case DType::Int16: f.template operator()<int16_t>(); break;
    case DType::UInt16: f.template operator()<uint16_t>(); break;
    case DType::Int32: f.template operator()<int32_t>(); break;
    case DType::UInt32: f.template operator()<uint32_t>(); break;
    case DType::Int64: f.template operator()<int64_t>(); break;
    case DType::UInt64: f.template operator()<uint64_t>(); break;
    case DType::Bool: f.template operator()<bool>(); break;
    default:
        throw KernelError(op + " does not support the element type " + std::string(dtypeName(type)));
    }
}

/// The DType of a C++ element type.
template <typename T> constexpr DType dtypeOf();
template <> constexpr DType dtypeOf<float>() { return DType::Float; }
template <> constexpr DType dtypeOf<double>() { return DType::Double; }
template <> constexpr DType dtypeOf<int8_t>() { return DType::Int8; }
template <> constexpr DType dtypeOf<uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtypeOf<int16_t>() { return DType::Int16; }
template <> constexpr DType dtypeOf<uint16_t>() { return DType::UInt16; }
template <> constexpr DType dtypeOf<int32_t>() { return DType::Int32; }
template <> constexpr DType dtypeOf<uint32_t>() { return DType::UInt32; }
template <> constexpr DType dtypeOf<int64_t>() { return DType::Int64; }
template <> constexpr DType dtypeOf<uint64_t>() { return DType::UInt64; }
template <> constexpr DType dtypeOf<bool>() { return DType::Bool; }

/// Typed read-only / writable views (bool is stored as one byte).
template <typename T>
const T* dataOf(const Tensor& t) { return reinterpret_cast<const T*>(t.data()); }
template <typename T>
T* mutableDataOf(const Tensor& t) { return reinterpret_cast<T*>(t.mutableData()); }

} // namespace graphlens::ref
