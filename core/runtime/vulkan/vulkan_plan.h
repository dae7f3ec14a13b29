// A compiled plan of the Vulkan backend. Nodes with a shader run on the GPU, the others on the CPU
// backend's kernels; the execution order is cut into segments of one kind. Each GPU segment is one
// pre-recorded command buffer (uploads, dispatches with barriers where they depend on each other,
// downloads), recorded twice: plain, and with two timestamps per node for observed runs.
// Activations and the nodes' scratch live in one device arena laid out by the runtime's memory
// planner; weights (as the graph holds them, and as the programs packed them) in one device buffer
// uploaded at plan time; inputs, outputs and fallback transfers go through a mapped staging buffer.
// Pipelines, descriptor sets and texel buffer views are all made here, once.
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
    VulkanPlan(std::shared_ptr<Device> device, PreparedModel prepared, const CompileOptions& options);
    ~VulkanPlan() override;

    std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer) override;
    const MemoryPlan& memoryPlan() const override { return memory_; }
    const std::vector<PlannedNode>& nodes() const override { return planned_; }
    const std::vector<std::string>& preparation() const override { return preparation_; }

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
        uint32_t firstSet = 0;                  ///< descriptor set of its first dispatch
        std::vector<uint64_t> packedOffsets;    ///< of program.packed in the weights buffer
        std::vector<uint64_t> packedBytes;      ///< (the host copies are dropped after the upload)
        std::vector<uint64_t> scratchOffsets;   ///< of program.scratch in the arena
    };
    struct CpuNode {
        std::unique_ptr<PreparedKernel> prepared;
        KernelFn reference = nullptr;
        std::string why;                        ///< why it runs on the CPU: no shader, a decline, a device limit
    };
    /// Where a bound tensor lives.
    struct Location {
        VkBuffer buffer = VK_NULL_HANDLE;
        uint64_t offset = 0, bytes = 0;
        bool arena = false;
    };
    struct Segment {
        bool gpu = false;
        std::vector<size_t> positions;  ///< into order_
        std::vector<ValueId> uploads, downloads;
        VkCommandBuffer plain = VK_NULL_HANDLE, timed = VK_NULL_HANDLE;
        uint32_t firstQuery = 0;
    };

    void takeGraph(PreparedModel prepared);
    void chooseKernels();
    void placeValues();
    void planArena();
    void createBuffers();
    void uploadWeights(const std::vector<std::pair<const Tensor*, uint64_t>>& uploads);
    void createDescriptorSets();
    void recordSegments();
    void recordSegment(Segment& segment, VkCommandBuffer commands, bool timed);
    void writeDescriptorSet(size_t position, size_t dispatch);
    Location locate(size_t position, const TensorRef& ref) const;
    /// True for a copy-only node whose output the memory plan put on its input's bytes.
    bool elided(size_t position) const;
    /// The arena byte ranges node `position` reads and writes (its scratch counts as both).
    void arenaRanges(size_t position, std::vector<std::pair<uint64_t, uint64_t>>& reads,
                     std::vector<std::pair<uint64_t, uint64_t>>& writes) const;
    /// Empty when `program` fits the device's limits, else which limit it passes.
    std::string limitPassed(const NodeProgram& program, const NodeShapes& shapes) const;
    void listNodes();
    ValueSlot& slot(ValueId v) { return slots_[size_t(v)]; }
    std::vector<int64_t> dimsOf(ValueId v) const;
    DType typeOf(ValueId v) const;
    const Tensor* constantOf(ValueId v) const;
    std::vector<ValueId> boundValues(size_t position, bool outputs) const;
    void runCpuNode(size_t position, std::vector<Tensor>& host, ExecutionObserver* observer);
    void emitGpuEvents(const Segment& segment, ExecutionObserver& observer) const;

    std::shared_ptr<Device> device_;
    DeviceTraits traits_;
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
    std::unique_ptr<TexelViews> views_;          ///< of the dispatches' texel bindings
    VkBufferView placeholderView_ = VK_NULL_HANDLE;  ///< for texel bindings a dispatch does not use
    std::vector<PlannedNode> planned_;
    std::vector<std::string> preparation_;
};

} // namespace graphlens::vk
