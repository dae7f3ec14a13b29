// Recording a Vulkan plan's command buffers: per GPU segment, uploads from staging, the dispatches
// with a barrier only where a node touches arena bytes an earlier unsynchronized node wrote (or
// writes bytes one read) and between a node's dependent dispatches (a pack, then its product),
// per-node timestamps in the timed variant, and downloads to staging.
#include "core/runtime/vulkan/vulkan_plan.h"
#include "core/runtime/vulkan/vulkan_check.h"

namespace graphlens::vk {
namespace {

using Range = std::pair<uint64_t, uint64_t>;  ///< [first, second) bytes of the arena

bool overlaps(const std::vector<Range>& set, const std::vector<Range>& ranges) {
    for (const Range& a : set)
        for (const Range& b : ranges)
            if (a.first < b.second && b.first < a.second) return true;
    return false;
}

void memoryBarrier(VkCommandBuffer commands, VkPipelineStageFlags from, VkAccessFlags fromAccess,
                   VkPipelineStageFlags to, VkAccessFlags toAccess) {
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = fromAccess;
    barrier.dstAccessMask = toAccess;
    vkCmdPipelineBarrier(commands, from, to, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

constexpr VkAccessFlags kShaderAccess = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;

/// Dispatches after it see what dispatches before it wrote.
void computeBarrier(VkCommandBuffer commands) {
    memoryBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderAccess, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderAccess);
}
constexpr VkAccessFlags kTransferAccess = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
constexpr VkPipelineStageFlags kWorkStages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;

} // namespace

void VulkanPlan::recordSegments() {
    uint32_t gpuSegments = 0;
    for (const Segment& s : segments_) gpuSegments += s.gpu;
    if (gpuSegments == 0) return;
    commandBuffers_.resize(2 * gpuSegments);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = device_->commandPool();
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = uint32_t(commandBuffers_.size());
    const VkResult r = vkAllocateCommandBuffers(device_->handle(), &alloc, commandBuffers_.data());
    if (r != VK_SUCCESS) commandBuffers_.clear();
    check(r, "vkAllocateCommandBuffers");
    uint32_t next = 0, query = 0;
    for (Segment& s : segments_) {
        if (!s.gpu) continue;
        s.plain = commandBuffers_[next++];
        s.timed = commandBuffers_[next++];
        s.firstQuery = query;
        query += 2 * uint32_t(s.positions.size());
        recordSegment(s, s.plain, false);
        recordSegment(s, s.timed, true);
    }
}

void VulkanPlan::recordSegment(Segment& segment, VkCommandBuffer commands, bool timed) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
    if (timed) vkCmdResetQueryPool(commands, queries_->handle(), segment.firstQuery, 2 * uint32_t(segment.positions.size()));
    // Work of earlier submissions (the arena reused) completes before this segment touches it.
    memoryBarrier(commands, kWorkStages, kShaderAccess | kTransferAccess, kWorkStages, kShaderAccess | kTransferAccess);
    for (ValueId v : segment.uploads) {
        const VkBufferCopy region{slot(v).staging, slot(v).offset, slot(v).bytes};
        vkCmdCopyBuffer(commands, staging_.handle(), arena_.handle(), 1, &region);
    }
    if (!segment.uploads.empty())
        memoryBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, kShaderAccess);
    std::vector<Range> written, read;
    uint32_t query = segment.firstQuery;
    for (size_t pos : segment.positions) {
        std::vector<Range> reads, writes;
        arenaRanges(pos, reads, writes);
        if (overlaps(written, reads) || overlaps(written, writes) || overlaps(read, writes)) {
            computeBarrier(commands);
            written.clear();
            read.clear();
        }
        if (timed) vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_->handle(), query);
        const GpuNode& node = *gpu_[pos];
        for (size_t d = 0; d < node.program.dispatches.size() && !elided(pos); ++d) {
            const Dispatch& dispatch = node.program.dispatches[d];
            if (dispatch.waits && d > 0) computeBarrier(commands);
            const VkDescriptorSet set = (*sets_)[node.firstSet + d];
            vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_->get(dispatch.shader, dispatch.constants));
            vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_->layout(), 0, 1, &set, 0, nullptr);
            vkCmdDispatch(commands, dispatch.groups[0], dispatch.groups[1], dispatch.groups[2]);
        }
        if (timed) vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queries_->handle(), query + 1);
        query += 2;
        written.insert(written.end(), writes.begin(), writes.end());
        read.insert(read.end(), reads.begin(), reads.end());
    }
    if (!segment.downloads.empty()) {
        memoryBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        for (ValueId v : segment.downloads) {
            const VkBufferCopy region{slot(v).offset, slot(v).staging, slot(v).bytes};
            vkCmdCopyBuffer(commands, arena_.handle(), staging_.handle(), 1, &region);
        }
        memoryBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_HOST_READ_BIT);
    }
    check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
}

} // namespace graphlens::vk
