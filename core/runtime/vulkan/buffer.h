// Storage buffers of the compute backend with their memory: the activation arena and the weights
// (device-local), and the staging buffer through which inputs and outputs travel (host-visible).
#pragma once

#include "core/runtime/vulkan/device.h"

#include <cstddef>
#include <cstdint>

namespace graphlens::vk {

enum class MemoryUse {
    DeviceLocal,  ///< device-local preferred (host-visible memory is accepted where that is all there is)
    Staging,      ///< host-visible and coherent, host-cached preferred; mapped for the buffer's life
};

/// A VkBuffer with its own VkDeviceMemory; moves, never copies.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Device& device, uint64_t bytes, MemoryUse use);
    ~Buffer();
    Buffer(Buffer&& other) noexcept { *this = std::move(other); }
    Buffer& operator=(Buffer&& other) noexcept;

    VkBuffer handle() const { return buffer_; }
    uint64_t bytes() const { return bytes_; }
    /// The host address of a mapped (staging) buffer; nullptr otherwise.
    std::byte* mapped() const { return mapped_; }

private:
    void release();
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    uint64_t bytes_ = 0;
    std::byte* mapped_ = nullptr;
};

/// The index of the memory type allowed by `typeBits` with all `required` flags, the one that also
/// has all `preferred` flags when there is one. Throws ExecutionError when none fits.
uint32_t chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred);

} // namespace graphlens::vk
