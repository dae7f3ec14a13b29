// Turning a failed Vulkan call into an ExecutionError: one sentence naming the call and the result.
#pragma once

#include "core/runtime/executor.h"

#include <vulkan/vulkan.h>

#include <string>

namespace graphlens::vk {

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", ... for a message.
std::string resultName(VkResult result);

/// Throws ExecutionError("the Vulkan call <call> failed: <result>") unless `result` is VK_SUCCESS.
inline void check(VkResult result, const char* call) {
    if (result != VK_SUCCESS) throw ExecutionError(std::string("the Vulkan call ") + call + " failed: " + resultName(result));
}

} // namespace graphlens::vk
