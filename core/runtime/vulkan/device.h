// The Vulkan device of the compute backend: a compute-only instance (no window-system extensions,
// API 1.1), the physical devices it sees, and one logical device with a compute queue.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace graphlens::vk {

/// What `graphlens devices` prints about one physical device.
struct PhysicalDeviceInfo {
    int index = 0;
    std::string name;
    std::string type;        ///< "discrete", "integrated", "virtual", "cpu", "other"
    std::string apiVersion;  ///< "1.3.238"
    uint32_t computeQueueFamily = 0;
    uint32_t timestampValidBits = 0;  ///< of the compute queue family; 0: no timestamps
    float timestampPeriod = 0;        ///< nanoseconds per timestamp tick
};

/// The physical devices with a compute queue, in the instance's order. Throws ExecutionError
/// naming why there are none (no loader, no driver, no device).
std::vector<PhysicalDeviceInfo> listPhysicalDevices();

/// The device `index` of listPhysicalDevices(), or (index < 0) the preferred one: discrete, then
/// integrated, then virtual, then CPU.
int choosePhysicalDevice(const std::vector<PhysicalDeviceInfo>& devices, int index);

/// An instance, a logical device with one compute queue, and a command pool; shared by the plans
/// compiled for it.
class Device {
public:
    /// Opens device `index` (see choosePhysicalDevice). Throws ExecutionError.
    explicit Device(int index);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice handle() const { return device_; }
    VkPhysicalDevice physical() const { return physical_; }
    VkQueue queue() const { return queue_; }
    VkCommandPool commandPool() const { return commandPool_; }
    const PhysicalDeviceInfo& info() const { return info_; }
    const VkPhysicalDeviceLimits& limits() const { return limits_; }
    const VkPhysicalDeviceMemoryProperties& memory() const { return memory_; }
    /// True when the device has shaderInt64 (enabled here): shaders may compute in 64-bit integers.
    bool shaderInt64() const { return shaderInt64_; }

    /// Submits `commands` and waits for it to finish.
    void submitAndWait(VkCommandBuffer commands) const;

private:
    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    VkCommandPool commandPool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    PhysicalDeviceInfo info_;
    VkPhysicalDeviceLimits limits_{};
    VkPhysicalDeviceMemoryProperties memory_{};
    bool shaderInt64_ = false;
};

} // namespace graphlens::vk
