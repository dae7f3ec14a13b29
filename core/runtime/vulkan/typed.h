// Tensors of any element type in shaders (shaders/typed.glsl): element type codes, and the
// broadcast walk of up to three operands over an output, shared by the typed op files.
#pragma once

#include "core/runtime/vulkan/ops.h"

namespace graphlens::vk {

/// The typed.glsl code of an element type (TY_F32 ...), or -1 for types the shaders do not handle
/// (double, 16-bit floats, 4-bit types, strings).
int elementCode(DType type);

/// Bytes of one element of a type elementCode() knows (1, 2, 4 or 8).
int elementSize(DType type);

/// typed.glsl's move type for elements of `type` (U8, U16, U32 or U64, by size), for ops that move
/// elements as bits whatever they mean; -1 for other sizes.
int moveCode(DType type);

/// Output dims and each operand's strides (0 where broadcast), merged where contiguous, padded
/// to 6 dims at the front; nullopt past 6 dims.
struct OperandWalk {
    std::vector<int64_t> dims;
    std::vector<std::vector<int64_t>> strides;  ///< per operand
};
std::optional<OperandWalk> operandWalk(const std::vector<int64_t>& out, const std::vector<std::vector<int64_t>>& operands);

/// A copy walking `dims`, reading element srcBase + idx.src and writing element dstBase + idx.dst.
struct CopyWalk {
    std::vector<int64_t> dims, src, dst;
    int64_t srcBase = 0, dstBase = 0;
};

/// The copy.comp (or copy_narrow.comp) dispatch for a walk over elements of `type`; nullopt for
/// element types that are not whole bytes or walks of more than 6 dims after merging (layout.cpp).
std::optional<Dispatch> copyDispatch(CopyWalk w, TensorRef dst, TensorRef src, DType type);

} // namespace graphlens::vk
