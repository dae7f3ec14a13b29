// The registry of Vulkan op factories and the helpers the op files share.
#include "core/runtime/vulkan/ops.h"

#include <algorithm>
#include <set>

namespace graphlens::vk {
namespace {

std::string canonicalDomain(std::string_view domain) { return domain == "ai.onnx" ? "" : std::string(domain); }

} // namespace

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
    factories_[{canonicalDomain(domain), op}].push_back(factory);
}

std::optional<NodeProgram> VulkanOpRegistry::build(const NodeShapes& node) const {
    auto it = factories_.find(std::make_pair(canonicalDomain(node.node.domain), node.node.opType));
    if (it == factories_.end()) return std::nullopt;
    for (VulkanOpFactory factory : it->second)
        if (auto program = factory(node)) return program;
    return std::nullopt;
}

bool VulkanOpRegistry::has(std::string_view domain, std::string_view op) const {
    return factories_.count(std::make_pair(canonicalDomain(domain), std::string(op))) > 0;
}

std::vector<std::string> VulkanOpRegistry::ops() const {
    std::set<std::string> names;
    for (const auto& [key, list] : factories_) names.insert(key.first.empty() ? key.second : key.first + ":" + key.second);
    return {names.begin(), names.end()};
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

std::optional<ActivationCode> activationCode(const std::string& name, const std::vector<float>& p) {
    auto param = [&](size_t i, float fallback) { return i < p.size() && p[i] == p[i] ? p[i] : fallback; };
    constexpr float big = 3.402823466e38f;
    if (name.empty()) return ActivationCode{0};
    if (name == "Relu") return ActivationCode{1};
    if (name == "Sigmoid") return ActivationCode{2};
    if (name == "Tanh") return ActivationCode{3};
    if (name == "LeakyRelu") return ActivationCode{4, param(0, 0.01f)};
    if (name == "Clip") return ActivationCode{5, param(0, -big), param(1, big)};
    if (name == "HardSigmoid") return ActivationCode{6, param(0, 0.2f), param(1, 0.5f)};
    if (name == "HardSwish") return ActivationCode{7};
    if (name == "Elu") return ActivationCode{8, param(0, 1.0f)};
    if (name == "QuickGelu") return ActivationCode{9, param(0, 1.702f)};
    return std::nullopt;
}

} // namespace graphlens::vk
