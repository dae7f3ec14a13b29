// The Vulkan compute backend's entry points (built only when GRAPHLENS_VULKAN is ON; callers go
// through core/runtime/backend_registry.h).
#pragma once

#include "core/runtime/backend.h"

namespace graphlens::vk {

/// A backend on device `deviceIndex` (-1: the preferred one). Throws ExecutionError when there is
/// no Vulkan driver or device.
std::unique_ptr<Backend> makeVulkanBackend(int deviceIndex);

/// Op types with a shader ("Op" or "domain:Op"), sorted.
std::vector<std::string> vulkanShaderOps();

/// True when a shader serves (domain, op).
bool hasVulkanShader(std::string_view domain, std::string_view op);

} // namespace graphlens::vk
