// Choosing a backend by name ("cpu", "vulkan") and a device index, and listing the Vulkan devices.
// The one place that knows whether this build has the Vulkan backend (GRAPHLENS_VULKAN).
#pragma once

#include "core/graph/op_key.h"
#include "core/runtime/backend.h"

#include <memory>
#include <string>
#include <vector>

namespace graphlens {

/// One Vulkan physical device, as `graphlens devices` lists it.
struct ComputeDevice {
    int index = 0;
    std::string name;
    std::string type;        ///< "discrete", "integrated", "virtual", "cpu", "other"
    std::string apiVersion;
    uint32_t timestampValidBits = 0;  ///< of the compute queue family; 0: no timestamps
    float timestampPeriod = 0;        ///< nanoseconds per tick
};

struct DeviceListing {
    std::vector<ComputeDevice> devices;
    std::string problem;  ///< why there are none: "no Vulkan driver (ICD) is installed ..."
};

/// The Vulkan devices of this machine; never throws.
DeviceListing listVulkanDevices();

/// True when this build has the Vulkan backend.
bool vulkanBuilt();

/// The backend `name` on device `deviceIndex` (-1: the preferred one; the CPU backend ignores it).
/// Throws ExecutionError: an unknown name (UnknownBackend); for vulkan, a device index the machine
/// does not have (BadDeviceIndex), or no usable device at all, a sentence starting "no Vulkan
/// device: " (NoDevice).
std::unique_ptr<Backend> makeBackend(const std::string& name, int deviceIndex = -1);

/// The ops of `graph` (sorted, distinct) that have no Vulkan shader: they would run as CPU
/// fallbacks. Every op when the build has no Vulkan backend.
std::vector<OpKey> opsWithoutVulkanShader(const Graph& graph);

} // namespace graphlens
