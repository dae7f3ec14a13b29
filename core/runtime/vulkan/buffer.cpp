// Buffer allocation and memory-type choice.
#include "core/runtime/vulkan/buffer.h"
#include "core/runtime/vulkan/vulkan_check.h"

#include <utility>

namespace graphlens::vk {

uint32_t chooseMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) {
    int fallback = -1;
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        const VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
        if (!(typeBits & (1u << i)) || (flags & required) != required) continue;
        if ((flags & preferred) == preferred) return i;
        if (fallback < 0) fallback = int(i);
    }
    if (fallback < 0) throw ExecutionError("the Vulkan device has no memory type usable for a storage buffer");
    return uint32_t(fallback);
}

Buffer::Buffer(const Device& device, uint64_t bytes, MemoryUse use) : device_(device.handle()), bytes_(bytes) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = std::max<uint64_t>(bytes, 256);
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(device_, &info, nullptr, &buffer_), "vkCreateBuffer");
    try {
        VkMemoryRequirements needs;
        vkGetBufferMemoryRequirements(device_, buffer_, &needs);
        const bool staging = use == MemoryUse::Staging;
        const VkMemoryPropertyFlags required =
            staging ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT : 0;
        const VkMemoryPropertyFlags preferred =
            staging ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        alloc.allocationSize = needs.size;
        alloc.memoryTypeIndex = chooseMemoryType(device.memory(), needs.memoryTypeBits, required, preferred);
        check(vkAllocateMemory(device_, &alloc, nullptr, &memory_), "vkAllocateMemory");
        check(vkBindBufferMemory(device_, buffer_, memory_, 0), "vkBindBufferMemory");
        if (staging) {
            void* address = nullptr;
            check(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &address), "vkMapMemory");
            mapped_ = static_cast<std::byte*>(address);
        }
    } catch (...) {
        release();
        throw;
    }
}

Buffer::~Buffer() { release(); }

Buffer& Buffer::operator=(Buffer&& other) noexcept {
    if (this != &other) {
        release();
        device_ = std::exchange(other.device_, VK_NULL_HANDLE);
        buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
        bytes_ = std::exchange(other.bytes_, 0);
        mapped_ = std::exchange(other.mapped_, nullptr);
    }
    return *this;
}

void Buffer::release() {
    if (!device_) return;
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps too
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

} // namespace graphlens::vk
