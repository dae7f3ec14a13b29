// The compute shaders of the Vulkan backend, compiled to SPIR-V at build time and embedded in the
// binary (see embed_spirv.cmake): looked up by the name of their .comp file.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace graphlens::vk {

/// The SPIR-V words of shaders/<name>.comp; empty when there is no such shader.
std::span<const uint32_t> shaderCode(std::string_view name);

} // namespace graphlens::vk
