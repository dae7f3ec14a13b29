// The Vulkan backend object: one device, opened once, shared by the plans compiled on it.
#include "core/runtime/vulkan/vulkan_backend.h"
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/vulkan/vulkan_plan.h"

namespace graphlens::vk {
namespace {

class VulkanBackend final : public Backend {
public:
    explicit VulkanBackend(int deviceIndex) : device_(std::make_shared<Device>(deviceIndex)) {}
    std::string name() const override { return "vulkan"; }
    std::unique_ptr<Plan> compilePrepared(PreparedModel prepared, const CompileOptions& options) override {
        dequantizeConstantWeights(prepared);  // float weights for the shaders, QDQ convolutions' too
        return std::make_unique<VulkanPlan>(device_, std::move(prepared), options);
    }

private:
    std::shared_ptr<Device> device_;
};

} // namespace

std::unique_ptr<Backend> makeVulkanBackend(int deviceIndex) { return std::make_unique<VulkanBackend>(deviceIndex); }

std::vector<OpKey> vulkanShaderOps() { return vulkanOps().ops(); }

bool hasVulkanShader(const OpKey& op) { return vulkanOps().has(op); }

} // namespace graphlens::vk
