// Backend selection by name and the Vulkan device listing (stubs when the build has no Vulkan).
#include "core/runtime/backend_registry.h"
#include "core/runtime/executor.h"

#if GRAPHLENS_HAVE_VULKAN
#include "core/runtime/vulkan/device.h"
#include "core/runtime/vulkan/vulkan_backend.h"
#endif

#include <algorithm>
#include <set>
#include <thread>

namespace graphlens {

bool vulkanBuilt() {
#if GRAPHLENS_HAVE_VULKAN
    return true;
#else
    return false;
#endif
}

DeviceListing listVulkanDevices() {
    DeviceListing listing;
#if GRAPHLENS_HAVE_VULKAN
    try {
        for (const vk::PhysicalDeviceInfo& d : vk::listPhysicalDevices())
            listing.devices.push_back({d.index, d.name, d.type, d.apiVersion, d.timestampValidBits, d.timestampPeriod});
    } catch (const std::exception& e) {
        listing.problem = e.what();
    }
#else
    listing.problem = "this build of graphlens has no Vulkan backend (GRAPHLENS_VULKAN was OFF)";
#endif
    return listing;
}

int CompileOptions::threadCount() const {
    return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
}

std::unique_ptr<Backend> makeBackend(const std::string& name, int deviceIndex) {
    if (name == "cpu") return makeCpuBackend();
    if (name != "vulkan") throw ExecutionError("the backend '" + name + "' is not known; use cpu or vulkan", ErrorKind::UnknownBackend);
#if GRAPHLENS_HAVE_VULKAN
    try {
        return vk::makeVulkanBackend(deviceIndex);
    } catch (const ExecutionError& e) {
        // A device index the machine does not have is a mistake, not a missing device.
        if (e.kind() == ErrorKind::BadDeviceIndex) throw;
        throw ExecutionError(std::string("no Vulkan device: ") + e.what(), ErrorKind::NoDevice);
    } catch (const std::exception& e) {
        throw ExecutionError(std::string("no Vulkan device: ") + e.what(), ErrorKind::NoDevice);
    }
#else
    (void)deviceIndex;
    throw ExecutionError("no Vulkan device: this build of graphlens has no Vulkan backend", ErrorKind::NoDevice);
#endif
}

std::vector<OpKey> opsWithoutVulkanShader(const Graph& graph) {
    std::set<OpKey> missing;
    for (NodeId id : graph.nodeIds()) {
        const Node& n = graph.node(id);
#if GRAPHLENS_HAVE_VULKAN
        if (vk::hasVulkanShader(OpKey::of(n))) continue;
#endif
        missing.insert(OpKey::of(n));
    }
    return {missing.begin(), missing.end()};
}

} // namespace graphlens
