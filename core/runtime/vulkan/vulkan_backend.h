// The Vulkan compute backend's entry points (built only when GRAPHLENS_VULKAN is ON; callers go
// through core/runtime/backend_registry.h).
#pragma once

#include "core/graph/op_key.h"
#include "core/runtime/backend.h"

namespace graphlens::vk {

/// A backend on device `deviceIndex` (-1: the preferred one). Throws ExecutionError when there is
/// no Vulkan driver or device.
std::unique_ptr<Backend> makeVulkanBackend(int deviceIndex);

/// Ops with a shader, sorted.
std::vector<OpKey> vulkanShaderOps();

/// True when a shader serves the op.
bool hasVulkanShader(const OpKey& op);

} // namespace graphlens::vk
