// Shader modules, compute pipelines with specialization constants, descriptor sets, query pools.
#include "core/runtime/vulkan/pipeline.h"
#include "core/runtime/vulkan/shader_library.h"
#include "core/runtime/vulkan/vulkan_check.h"

#include <cmath>

namespace graphlens::vk {

PipelineSet::PipelineSet(const Device& device) : device_(device.handle()) {
    std::vector<VkDescriptorSetLayoutBinding> bindings(kMaxBindings + kMaxTexelBindings);
    for (uint32_t i = 0; i < bindings.size(); ++i)
        bindings[i] = {i, i < kMaxBindings ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1,
                       VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = uint32_t(bindings.size());
    setInfo.pBindings = bindings.data();
    check(vkCreateDescriptorSetLayout(device_, &setInfo, nullptr, &setLayout_), "vkCreateDescriptorSetLayout");
    VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout_;
    const VkResult r = vkCreatePipelineLayout(device_, &layoutInfo, nullptr, &layout_);
    if (r != VK_SUCCESS) vkDestroyDescriptorSetLayout(device_, setLayout_, nullptr);
    check(r, "vkCreatePipelineLayout");
}

PipelineSet::~PipelineSet() {
    for (const auto& [key, pipeline] : pipelines_) vkDestroyPipeline(device_, pipeline, nullptr);
    for (const auto& [name, module] : modules_) vkDestroyShaderModule(device_, module, nullptr);
    vkDestroyPipelineLayout(device_, layout_, nullptr);
    vkDestroyDescriptorSetLayout(device_, setLayout_, nullptr);
}

VkShaderModule PipelineSet::module(const std::string& shader) {
    if (auto it = modules_.find(shader); it != modules_.end()) return it->second;
    const std::span<const uint32_t> code = shaderCode(shader);
    if (code.empty()) throw ExecutionError("the Vulkan backend has no shader named '" + shader + "'");
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = code.size_bytes();
    info.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    check(vkCreateShaderModule(device_, &info, nullptr, &module), "vkCreateShaderModule");
    modules_[shader] = module;
    return module;
}

VkPipeline PipelineSet::get(const std::string& shader, const std::vector<uint32_t>& constants) {
    auto key = std::make_pair(shader, constants);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
    std::vector<VkSpecializationMapEntry> entries(constants.size());
    for (uint32_t i = 0; i < constants.size(); ++i) entries[i] = {i, i * 4, 4};
    VkSpecializationInfo specialization{uint32_t(entries.size()), entries.data(), constants.size() * 4,
                                        constants.data()};
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module(shader);
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &specialization;
    info.layout = layout_;
    VkPipeline pipeline = VK_NULL_HANDLE;
    check(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline), "vkCreateComputePipelines");
    pipelines_.emplace(std::move(key), pipeline);
    return pipeline;
}

DescriptorSets::DescriptorSets(const Device& device, VkDescriptorSetLayout layout, uint32_t count)
    : device_(device.handle()) {
    count = std::max<uint32_t>(count, 1);
    const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, count * kMaxBindings},
                                          {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, count * kMaxTexelBindings}};
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.maxSets = count;
    info.poolSizeCount = 2;
    info.pPoolSizes = sizes;
    check(vkCreateDescriptorPool(device_, &info, nullptr, &pool_), "vkCreateDescriptorPool");
    std::vector<VkDescriptorSetLayout> layouts(count, layout);
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = pool_;
    alloc.descriptorSetCount = count;
    alloc.pSetLayouts = layouts.data();
    sets_.resize(count);
    const VkResult r = vkAllocateDescriptorSets(device_, &alloc, sets_.data());
    if (r != VK_SUCCESS) vkDestroyDescriptorPool(device_, pool_, nullptr);
    check(r, "vkAllocateDescriptorSets");
}

DescriptorSets::~DescriptorSets() { vkDestroyDescriptorPool(device_, pool_, nullptr); }

TexelViews::~TexelViews() {
    for (VkBufferView view : views_) vkDestroyBufferView(device_, view, nullptr);
}

VkBufferView TexelViews::add(VkBuffer buffer, uint64_t offset, uint64_t bytes) {
    VkBufferViewCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    info.buffer = buffer;
    info.format = VK_FORMAT_R32G32B32A32_SFLOAT;
    info.offset = offset;
    info.range = bytes;
    VkBufferView view = VK_NULL_HANDLE;
    check(vkCreateBufferView(device_, &info, nullptr, &view), "vkCreateBufferView");
    views_.push_back(view);
    return view;
}

TimestampQueryPool::TimestampQueryPool(const Device& device, uint32_t queries)
    : device_(device.handle()),
      mask_(device.info().timestampValidBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << device.info().timestampValidBits) - 1),
      period_(device.info().timestampPeriod) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = std::max<uint32_t>(queries, 2);
    check(vkCreateQueryPool(device_, &info, nullptr, &pool_), "vkCreateQueryPool");
}

TimestampQueryPool::~TimestampQueryPool() { vkDestroyQueryPool(device_, pool_, nullptr); }

std::vector<int64_t> TimestampQueryPool::nanoseconds(uint32_t first, uint32_t count) const {
    std::vector<uint64_t> ticks(count);
    if (count == 0) return {};
    check(vkGetQueryPoolResults(device_, pool_, first, count, count * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    std::vector<int64_t> ns(count);
    for (uint32_t i = 0; i < count; ++i) ns[i] = int64_t(std::llround(double(ticks[i] & mask_) * period_));
    return ns;
}

} // namespace graphlens::vk
