// The registry of Vulkan op factories and the helpers the op files share.
#include "core/runtime/vulkan/ops.h"

#include "core/graph/activation_kinds.h"

#include <algorithm>
#include <utility>

namespace graphlens::vk {

std::array<uint32_t, 3> flatGroups(uint64_t count, uint32_t local) {
    const uint64_t groups = std::max<uint64_t>(1, (count + local - 1) / local);
    if (groups <= 65535) return {uint32_t(groups), 1, 1};
    const uint64_t rows = (groups + 65534) / 65535;
    return {65535, uint32_t(rows), 1};
}

bool fitsGroups(const DeviceTraits& device, const std::array<uint32_t, 3>& groups) {
    for (size_t i = 0; i < 3; ++i)
        if (groups[i] == 0 || groups[i] > device.maxGroups[i]) return false;
    return true;
}

void VulkanOpRegistry::add(const std::string& op, VulkanOpFactory factory, const std::string& domain) {
    factories_[OpKey(domain, op)].push_back(factory);
}

std::optional<NodeProgram> VulkanOpRegistry::build(const NodeShapes& node, std::string* why) const {
    auto it = factories_.find(OpKey::of(node.node));
    if (it == factories_.end()) return std::nullopt;
    for (VulkanOpFactory factory : it->second) {
        auto program = factory(node);
        if (program && program->declined.empty()) return program;
        if (program && why && why->empty()) *why = program->declined;
    }
    return std::nullopt;
}

bool VulkanOpRegistry::has(const OpKey& key) const { return factories_.count(key) > 0; }

std::vector<OpKey> VulkanOpRegistry::ops() const {
    std::vector<OpKey> keys;
    for (const auto& entry : factories_) keys.push_back(entry.first);
    return keys;
}

const VulkanOpRegistry& vulkanOps() {
    static const VulkanOpRegistry registry = [] {
        VulkanOpRegistry r;
        registerElementwiseOps(r);
        registerConvOps(r);
        registerMatMulOps(r);
        registerPoolOps(r);
        registerNormalizationOps(r);
        registerLayoutOps(r);
        registerLogicOps(r);
        registerConstantOps(r);
        registerGatherOps(r);
        registerLossOps(r);
        registerAxisOps(r);
        registerPadOps(r);
        registerResizeOps(r);
        registerConvTransposeOps(r);
        registerChannelNormOps(r);
        registerScatterOps(r);
        registerTopKOps(r);
        return r;
    }();
    return registry;
}

int64_t numel(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

std::vector<int64_t> stridesOf(const std::vector<int64_t>& dims) {
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

std::optional<ActivationCode> activationCode(const std::string& name, const std::vector<float>& params) {
    if (name.empty()) return ActivationCode{activationKind(ActivationId::Identity).code()};
    const ActivationKind* kind = activationKindNamed(name);
    if (!kind || !kind->has(kActUnaryOp)) return std::nullopt;  // activate() has no such function
    const ActivationParams p = activationParams(*kind, params);
    return ActivationCode{kind->code(), p[0], p[1]};
}

} // namespace graphlens::vk
