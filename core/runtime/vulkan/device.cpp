// Instance and device creation for the compute backend, and the device list of `graphlens devices`.
#include "core/runtime/vulkan/device.h"
#include "core/runtime/vulkan/vulkan_check.h"

#include <algorithm>

namespace graphlens::vk {
namespace {

constexpr uint32_t kApiVersion = VK_API_VERSION_1_1;

/// An instance that destroys itself unless released (so a failed constructor leaks nothing).
struct InstanceHandle {
    VkInstance instance = VK_NULL_HANDLE;
    ~InstanceHandle() {
        if (instance) vkDestroyInstance(instance, nullptr);
    }
    VkInstance release() { return std::exchange(instance, VK_NULL_HANDLE); }
};

VkInstance createInstance() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "graphlens";
    app.pEngineName = "graphlens";
    app.apiVersion = kApiVersion;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    const VkResult r = vkCreateInstance(&info, nullptr, &instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        throw ExecutionError("no Vulkan driver (ICD) is installed or it does not support Vulkan 1.1", ErrorKind::NoDevice);
    check(r, "vkCreateInstance");
    return instance;
}

std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
    uint32_t count = 0;
    check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(count);
    check(vkEnumeratePhysicalDevices(instance, &count, devices.data()), "vkEnumeratePhysicalDevices");
    devices.resize(count);
    return devices;
}

std::string typeName(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

/// The device's description, or nullopt when it has no compute queue or is older than 1.1.
std::optional<PhysicalDeviceInfo> describe(VkPhysicalDevice device, int index) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(device, &props);
    if (props.apiVersion < kApiVersion) return std::nullopt;
    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
    // Prefer a compute family without graphics (an async compute queue), else any compute family.
    int chosen = -1;
    for (uint32_t i = 0; i < familyCount; ++i) {
        if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        if (chosen < 0 || !(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) chosen = int(i);
    }
    if (chosen < 0) return std::nullopt;
    PhysicalDeviceInfo info;
    info.index = index;
    info.name = props.deviceName;
    info.type = typeName(props.deviceType);
    info.apiVersion = std::to_string(VK_API_VERSION_MAJOR(props.apiVersion)) + "." +
                      std::to_string(VK_API_VERSION_MINOR(props.apiVersion)) + "." +
                      std::to_string(VK_API_VERSION_PATCH(props.apiVersion));
    info.computeQueueFamily = uint32_t(chosen);
    info.timestampValidBits = families[size_t(chosen)].timestampValidBits;
    info.timestampPeriod = props.limits.timestampPeriod;
    return info;
}

std::vector<PhysicalDeviceInfo> describeAll(VkInstance instance, std::vector<VkPhysicalDevice>* handles) {
    std::vector<PhysicalDeviceInfo> list;
    for (VkPhysicalDevice d : physicalDevices(instance))
        if (auto info = describe(d, int(list.size()))) {
            list.push_back(*info);
            if (handles) handles->push_back(d);
        }
    if (list.empty()) throw ExecutionError("the Vulkan driver reports no device with a compute queue and Vulkan 1.1", ErrorKind::NoDevice);
    return list;
}

int preference(const std::string& type) {
    if (type == "discrete") return 0;
    if (type == "integrated") return 1;
    if (type == "virtual") return 2;
    if (type == "cpu") return 3;
    return 4;
}

} // namespace

std::vector<PhysicalDeviceInfo> listPhysicalDevices() {
    InstanceHandle instance{createInstance()};
    return describeAll(instance.instance, nullptr);
}

int choosePhysicalDevice(const std::vector<PhysicalDeviceInfo>& devices, int index) {
    if (index >= int(devices.size()))
        throw ExecutionError("there is no Vulkan device " + std::to_string(index) + " (" +
                             std::to_string(devices.size()) + " found; see `graphlens devices`)", ErrorKind::BadDeviceIndex);
    if (index >= 0) return index;
    const auto best = std::min_element(devices.begin(), devices.end(), [](const auto& a, const auto& b) {
        return preference(a.type) < preference(b.type);
    });
    return best->index;
}

Device::Device(int index) {
    InstanceHandle instance{createInstance()};
    std::vector<VkPhysicalDevice> handles;
    const auto list = describeAll(instance.instance, &handles);
    info_ = list[size_t(choosePhysicalDevice(list, index))];
    physical_ = handles[size_t(info_.index)];
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical_, &props);
    limits_ = props.limits;
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = info_.computeQueueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures supported{}, enabled{};
    vkGetPhysicalDeviceFeatures(physical_, &supported);
    enabled.shaderInt64 = supported.shaderInt64;  // typed64.comp's exact 64-bit integer math
    shaderInt64_ = supported.shaderInt64 == VK_TRUE;
    VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.pEnabledFeatures = &enabled;
    check(vkCreateDevice(physical_, &deviceInfo, nullptr, &device_), "vkCreateDevice");
    instance_ = instance.release();
    vkGetDeviceQueue(device_, info_.computeQueueFamily, 0, &queue_);
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = info_.computeQueueFamily;
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    try {
        check(vkCreateCommandPool(device_, &poolInfo, nullptr, &commandPool_), "vkCreateCommandPool");
        check(vkCreateFence(device_, &fenceInfo, nullptr, &fence_), "vkCreateFence");
    } catch (...) {
        this->~Device();
        throw;
    }
}

Device::~Device() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        if (fence_) vkDestroyFence(device_, fence_, nullptr);
        if (commandPool_) vkDestroyCommandPool(device_, commandPool_, nullptr);
        vkDestroyDevice(device_, nullptr);
        device_ = VK_NULL_HANDLE;
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
}

void Device::submitAndWait(VkCommandBuffer commands) const {
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    check(vkResetFences(device_, 1, &fence_), "vkResetFences");
    check(vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit");
    check(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

std::string resultName(VkResult result) {
    switch (result) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult " + std::to_string(int(result));
    }
}

} // namespace graphlens::vk
