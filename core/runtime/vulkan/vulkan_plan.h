// A compiled plan of the Vulkan backend. Nodes with a shader run on the GPU, the others on the CPU
// backend's kernels; the execution order is cut into segments of one kind. Each GPU segment is one
// pre-recorded command buffer (uploads, dispatches with barriers where they depend on each other,
// downloads), recorded twice: plain, and with two timestamps per node for observed runs.
// Activations live in one device arena laid out by the runtime's memory planner; weights in one
// device buffer uploaded at plan time; inputs, outputs and fallback transfers go through a mapped
// staging buffer.
#pragma once

#include "core/runtime/backend.h"
#include "core/runtime/kernel.h"
#include "core/runtime/vulkan/buffer.h"
#include "core/runtime/vulkan/ops.h"
#include "core/runtime/vulkan/pipeline.h"

#include <memory>

namespace graphlens::vk {

/// The observer track of GPU events: a queue, distinct from CPU thread numbers.
constexpr int kGpuQueueTrack = 1000;

class VulkanPlan final : public Plan {
public:
    VulkanPlan(std::shared_ptr<Device> device, const Model& model, const CompileOptions& options);
    ~VulkanPlan() override;

    std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer) override;
    const MemoryPlan& memoryPlan() const override { return memory_; }
    const std::vector<PlannedNode>& nodes() const override { return planned_; }

private:
    /// Where a value lives while the plan runs.
    struct ValueSlot {
        bool arena = false;      ///< has a slot in the activation arena
        bool weights = false;    ///< a constant in the weights buffer
        uint64_t offset = 0;     ///< in the arena or the weights buffer
        uint64_t bytes = 0;
        int uploadSegment = -1;  ///< host value copied into the arena when this segment starts
        bool download = false;   ///< GPU value copied out when its segment ends
        uint64_t staging = 0;    ///< its region of the staging buffer (upload or download)
    };
    struct GpuNode {
        NodeProgram program;
        uint32_t firstSet = 0;   ///< descriptor set of its first dispatch
    };
    struct CpuNode {
        std::unique_ptr<PreparedKernel> prepared;
        KernelFn reference = nullptr;
    };
    struct Segment {
        bool gpu = false;
        std::vector<size_t> positions;  ///< into order_
        std::vector<ValueId> uploads, downloads;
        VkCommandBuffer plain = VK_NULL_HANDLE, timed = VK_NULL_HANDLE;
        uint32_t firstQuery = 0;
    };

    void prepareGraph(const Model& model, const CompileOptions& options);
    void chooseKernels();
    void placeValues();
    void planArena();
    void createBuffers();
    void createDescriptorSets();
    void recordSegments();
    void recordSegment(Segment& segment, VkCommandBuffer commands, bool timed);
    void listNodes();
    ValueSlot& slot(ValueId v) { return slots_[size_t(v)]; }
    std::vector<int64_t> dimsOf(ValueId v) const;
    DType typeOf(ValueId v) const;
    const Tensor* constantOf(ValueId v) const;
    std::vector<ValueId> boundValues(size_t position, bool outputs) const;
    void runCpuNode(size_t position, std::vector<Tensor>& host, ExecutionObserver* observer);
    void emitGpuEvents(const Segment& segment, ExecutionObserver& observer) const;

    std::shared_ptr<Device> device_;
    Graph graph_;
    int64_t opset_ = 0;
    int threads_ = 1;
    std::vector<NodeId> order_;
    std::vector<std::unique_ptr<GpuNode>> gpu_;  ///< by position; null for CPU nodes
    std::vector<std::unique_ptr<CpuNode>> cpu_;  ///< by position; null for GPU nodes
    std::vector<int> segmentOf_;                 ///< by position
    std::vector<Segment> segments_;
    std::vector<ValueSlot> slots_;               ///< by value id
    std::vector<int> lastRead_;                  ///< by value id: position of the last reader (-1: none)
    MemoryPlan memory_;
    uint64_t weightBytes_ = 0, stagingBytes_ = 0;
    Buffer arena_, weights_, staging_;
    std::unique_ptr<PipelineSet> pipelines_;
    std::unique_ptr<DescriptorSets> sets_;
    std::unique_ptr<TimestampQueryPool> queries_;
    uint32_t setCount_ = 0, queryCount_ = 0;
    std::vector<VkCommandBuffer> commandBuffers_;
    std::vector<PlannedNode> planned_;
};

} // namespace graphlens::vk
