// Where a Vulkan plan's dispatches find their tensors: each TensorRef located in the arena or the
// weights buffer, one descriptor set per dispatch (storage buffers and RGBA32F texel views, made
// once), the arena ranges a node touches (for the recorder's barriers), and copy-only nodes whose
// output the memory plan put on their input's bytes (nothing to run).
#include "core/runtime/vulkan/vulkan_plan.h"

namespace graphlens::vk {
namespace {

uint64_t alignUp(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

} // namespace

VulkanPlan::Location VulkanPlan::locate(size_t position, const TensorRef& r) const {
    const GpuNode& node = *gpu_[position];
    const Node& n = graph_.node(order_[position]);
    switch (r.kind) {
    case TensorRef::Input:
    case TensorRef::Output: {
        const ValueSlot& s = slots_[size_t(r.kind == TensorRef::Input ? n.input(size_t(r.index)) : n.output(size_t(r.index)))];
        return {s.weights ? weights_.handle() : arena_.handle(), s.offset, s.bytes, !s.weights};
    }
    case TensorRef::Packed:
        return {weights_.handle(), node.packedOffsets[size_t(r.index)], node.packedBytes[size_t(r.index)], false};
    case TensorRef::Scratch:
        return {arena_.handle(), node.scratchOffsets[size_t(r.index)], node.program.scratch[size_t(r.index)], true};
    case TensorRef::Unused: break;
    }
    return {arena_.handle(), 0, 4, false};  // a placeholder the shader does not read
}

bool VulkanPlan::elided(size_t position) const {
    if (!gpu_[position]->program.copyOnly) return false;
    const Location in = locate(position, TensorRef::input(0)), out = locate(position, TensorRef::output(0));
    return in.arena && out.arena && in.offset == out.offset;
}

void VulkanPlan::arenaRanges(size_t position, std::vector<std::pair<uint64_t, uint64_t>>& reads,
                             std::vector<std::pair<uint64_t, uint64_t>>& writes) const {
    if (elided(position)) return;
    for (ValueId v : boundValues(position, false))
        if (slots_[size_t(v)].arena) reads.emplace_back(slots_[size_t(v)].offset, slots_[size_t(v)].offset + slots_[size_t(v)].bytes);
    for (ValueId v : boundValues(position, true))
        writes.emplace_back(slots_[size_t(v)].offset, slots_[size_t(v)].offset + slots_[size_t(v)].bytes);
    const GpuNode& node = *gpu_[position];
    for (size_t i = 0; i < node.scratchOffsets.size(); ++i) {
        const std::pair<uint64_t, uint64_t> range{node.scratchOffsets[i], node.scratchOffsets[i] + node.program.scratch[i]};
        reads.push_back(range);
        writes.push_back(range);
    }
}

void VulkanPlan::createDescriptorSets() {
    pipelines_ = std::make_unique<PipelineSet>(*device_);
    for (const auto& node : gpu_)
        if (node) {
            node->firstSet = setCount_;
            setCount_ += uint32_t(node->program.dispatches.size());
            queryCount_ += 2;
        }
    sets_ = std::make_unique<DescriptorSets>(*device_, pipelines_->setLayout(), setCount_);
    // Texel bindings a dispatch does not use still get a view (some drivers read every descriptor).
    views_ = std::make_unique<TexelViews>(*device_);
    placeholderView_ = views_->add(arena_.handle(), 0, 16);
    for (size_t pos = 0; pos < order_.size(); ++pos)
        if (gpu_[pos])
            for (size_t d = 0; d < gpu_[pos]->program.dispatches.size(); ++d) writeDescriptorSet(pos, d);
    queries_ = std::make_unique<TimestampQueryPool>(*device_, queryCount_);
}

void VulkanPlan::writeDescriptorSet(size_t position, size_t d) {
    const Dispatch& dispatch = gpu_[position]->program.dispatches[d];
    const VkDescriptorSet set = (*sets_)[gpu_[position]->firstSet + d];
    std::array<VkDescriptorBufferInfo, kMaxBindings> infos;
    std::array<VkBufferView, kMaxTexelBindings> texels;
    std::array<VkWriteDescriptorSet, kMaxBindings + kMaxTexelBindings> writes;
    for (uint32_t b = 0; b < kMaxBindings + kMaxTexelBindings; ++b) {
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstSet = set;
        writes[b].dstBinding = b;
        writes[b].descriptorCount = 1;
    }
    for (uint32_t b = 0; b < kMaxBindings; ++b) {
        const Location at = locate(position, b < dispatch.bindings.size() ? dispatch.bindings[b] : TensorRef::none());
        infos[b] = {at.buffer, at.offset, at.bytes};
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
    }
    for (uint32_t t = 0; t < kMaxTexelBindings; ++t) {
        texels[t] = placeholderView_;
        if (t < dispatch.texels.size()) {
            const Location at = locate(position, dispatch.texels[t]);
            texels[t] = views_->add(at.buffer, at.offset, alignUp(at.bytes, 16));
        }
        writes[kMaxBindings + t].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
        writes[kMaxBindings + t].pTexelBufferView = &texels[t];
    }
    vkUpdateDescriptorSets(device_->handle(), uint32_t(writes.size()), writes.data(), 0, nullptr);
}

} // namespace graphlens::vk
