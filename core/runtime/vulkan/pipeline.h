// Compute pipelines of one plan: every shader binds up to kMaxBindings storage buffers (binding i of
// set 0) and kMaxTexelBindings uniform texel buffers (bindings kFirstTexelBinding..) and receives its
// static shape as specialization constants 0..N-1 (32-bit each). Pipelines are built once per
// (shader, constants) when the plan is made, texel buffer views once per bound tensor.
#pragma once

#include "core/runtime/vulkan/device.h"
#include "core/runtime/vulkan/ops.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace graphlens::vk {

constexpr uint32_t kMaxBindings = 8;
static_assert(kFirstTexelBinding == kMaxBindings, "texel bindings follow the storage bindings");

class PipelineSet {
public:
    explicit PipelineSet(const Device& device);
    ~PipelineSet();
    PipelineSet(const PipelineSet&) = delete;
    PipelineSet& operator=(const PipelineSet&) = delete;

    /// The pipeline of shaders/<shader>.comp with these specialization constants (built on first
    /// use). Throws ExecutionError.
    VkPipeline get(const std::string& shader, const std::vector<uint32_t>& constants);
    VkPipelineLayout layout() const { return layout_; }
    VkDescriptorSetLayout setLayout() const { return setLayout_; }
    size_t size() const { return pipelines_.size(); }

private:
    VkShaderModule module(const std::string& shader);
    VkDevice device_;
    VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    std::map<std::string, VkShaderModule> modules_;
    std::map<std::pair<std::string, std::vector<uint32_t>>, VkPipeline> pipelines_;
};

/// A descriptor pool with one set (of the PipelineSet's layout) per dispatch of a plan.
class DescriptorSets {
public:
    DescriptorSets(const Device& device, VkDescriptorSetLayout layout, uint32_t count);
    ~DescriptorSets();
    DescriptorSets(const DescriptorSets&) = delete;
    DescriptorSets& operator=(const DescriptorSets&) = delete;
    VkDescriptorSet operator[](size_t i) const { return sets_[i]; }

private:
    VkDevice device_;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets_;
};

/// RGBA32F views of buffer ranges, for uniform texel buffer descriptors; destroyed with the set.
class TexelViews {
public:
    explicit TexelViews(const Device& device) : device_(device.handle()) {}
    ~TexelViews();
    TexelViews(const TexelViews&) = delete;
    TexelViews& operator=(const TexelViews&) = delete;
    /// A view of `bytes` (a multiple of 16) at `offset` of `buffer`. Throws ExecutionError.
    VkBufferView add(VkBuffer buffer, uint64_t offset, uint64_t bytes);

private:
    VkDevice device_;
    std::vector<VkBufferView> views_;
};

/// A pool of 2 timestamp queries per timed node.
class TimestampQueryPool {
public:
    TimestampQueryPool(const Device& device, uint32_t queries);
    ~TimestampQueryPool();
    TimestampQueryPool(const TimestampQueryPool&) = delete;
    TimestampQueryPool& operator=(const TimestampQueryPool&) = delete;
    VkQueryPool handle() const { return pool_; }
    /// Queries [first, first + count) as nanoseconds: masked by the queue's timestampValidBits and
    /// scaled by the device's timestampPeriod.
    std::vector<int64_t> nanoseconds(uint32_t first, uint32_t count) const;

private:
    VkDevice device_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint64_t mask_;
    double period_;
};

} // namespace graphlens::vk
