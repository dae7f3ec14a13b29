// Building a Vulkan plan from a prepared model (prepare.h): the claim (a shader or a CPU kernel
// per node, within the device's limits, with the reason for each CPU node), segments, where each
// value lives, the arena layout and the buffers. Descriptor sets are in vulkan_plan_bind.cpp,
// recording in vulkan_plan_record.cpp, running in vulkan_plan_run.cpp.
#include "core/runtime/vulkan/vulkan_plan.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/executor.h"
#include "core/runtime/vulkan/vulkan_check.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

namespace graphlens::vk {
namespace {

uint64_t alignUp(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

/// The device as the op factories see it. Product kernels follow the device type: texel tiles on
/// CPU devices, shared-memory tiles elsewhere, and CPU devices read the inputs of loops through
/// texel views; GRAPHLENS_VULKAN_PRODUCTS=tiles|texels overrides both (tests run both kinds on
/// whatever device there is).
DeviceTraits traitsOf(const Device& device) {
    const VkPhysicalDeviceLimits& l = device.limits();
    DeviceTraits t;
    t.products = device.info().type == "cpu" ? ProductKernels::TexelTiles : ProductKernels::SharedMemoryTiles;
    if (const char* chosen = std::getenv("GRAPHLENS_VULKAN_PRODUCTS")) {
        if (std::string(chosen) == "tiles") t.products = ProductKernels::SharedMemoryTiles;
        if (std::string(chosen) == "texels") t.products = ProductKernels::TexelTiles;
    }
    t.texelLoads = t.products == ProductKernels::TexelTiles;
    t.maxGroups = {l.maxComputeWorkGroupCount[0], l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2]};
    t.maxStorageRange = l.maxStorageBufferRange;
    t.maxTexels = l.maxTexelBufferElements;
    t.sharedBytes = l.maxComputeSharedMemorySize;
    t.maxInvocations = l.maxComputeWorkGroupInvocations;
    // GRAPHLENS_VULKAN_NO_INT64=1 plans as for a device without shaderInt64 (tests of the decline).
    t.int64 = device.shaderInt64() && !std::getenv("GRAPHLENS_VULKAN_NO_INT64");
    return t;
}

std::string humanBytes(uint64_t bytes) {
    char text[32];
    if (bytes >= 1000000) std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / 1e6);
    else if (bytes >= 1000) std::snprintf(text, sizeof text, "%.1f KB", double(bytes) / 1e3);
    else std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    return text;
}

} // namespace

VulkanPlan::VulkanPlan(std::shared_ptr<Device> device, PreparedModel prepared, const CompileOptions& options)
    : device_(std::move(device)), traits_(traitsOf(*device_)), opset_(prepared.model.opsetVersion()),
      threads_(options.threadCount()) {
    takeGraph(std::move(prepared));
    chooseKernels();
    placeValues();
    planArena();
    createBuffers();
    createDescriptorSets();
    recordSegments();
    listNodes();
}

VulkanPlan::~VulkanPlan() {
    vkDeviceWaitIdle(device_->handle());
    if (!commandBuffers_.empty())
        vkFreeCommandBuffers(device_->handle(), device_->commandPool(), uint32_t(commandBuffers_.size()),
                             commandBuffers_.data());
}

/// Every buffer is sized before the plan runs: a shape the preparation could not make static
/// (it names the first) refuses the plan.
void VulkanPlan::takeGraph(PreparedModel prepared) {
    if (!prepared.shapesStatic())
        throw ExecutionError("the vulkan backend needs static shapes; " + prepared.openShapes,
                             ErrorKind::DynamicShapes);
    preparation_ = std::move(prepared.steps);
    graph_ = std::move(prepared.model.graph);
    try {
        order_ = graph_.topologicalOrder();
    } catch (const GraphError& e) {
        throw ExecutionError(e.what(), ErrorKind::InvalidModel);
    }
    const auto ids = graph_.valueIds();
    slots_.resize(ids.empty() ? 0 : size_t(ids.back()) + 1);
    lastRead_.assign(slots_.size(), -1);
}

std::vector<int64_t> VulkanPlan::dimsOf(ValueId v) const { return staticDims(graph_, v).value_or(std::vector<int64_t>{}); }

DType VulkanPlan::typeOf(ValueId v) const { return valueType(graph_, v); }

const Tensor* VulkanPlan::constantOf(ValueId v) const { return constantThroughIdentity(graph_, v); }

std::vector<ValueId> VulkanPlan::boundValues(size_t position, bool outputs) const {
    std::set<ValueId> values;
    const Node& n = graph_.node(order_[position]);
    auto add = [&](const TensorRef& r) {
        if (r.kind == TensorRef::Input && !outputs) values.insert(n.input(size_t(r.index)));
        if (r.kind == TensorRef::Output && outputs) values.insert(n.output(size_t(r.index)));
    };
    for (const Dispatch& d : gpu_[position]->program.dispatches) {
        for (const TensorRef& r : d.bindings) add(r);
        for (const TensorRef& r : d.texels) add(r);
    }
    return {values.begin(), values.end()};
}

/// The claim: each node runs on its shader when one accepts it within the device's limits, else
/// on the CPU (optimized or reference kernel) with the reason.
void VulkanPlan::chooseKernels() {
    gpu_.resize(order_.size());
    cpu_.resize(order_.size());
    std::set<OpKey> missing;
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        const Node& n = graph_.node(order_[pos]);
        if (nodeHasSubgraph(n))
            throw ExecutionError("the vulkan backend does not run ops with sub-graphs (" + nodeLabel(n) + ")",
                                 ErrorKind::UnsupportedOp);
        std::string open;
        auto descriptor = describeNode(graph_, n, opset_, threads_, &open);
        if (!descriptor)
            throw ExecutionError("the vulkan backend needs static shapes; " + open + " (" + nodeLabel(n) + ")",
                                 ErrorKind::DynamicShapes);
        for (ValueId in : n.inputs())
            if (in != kNoId) lastRead_[size_t(in)] = int(pos);
        const NodeShapes s{*descriptor, traits_};
        std::string why, declined;
        if (!vulkanOps().has(OpKey::of(n))) {
            why = "no shader for " + OpKey::of(n).toString();
        } else if (auto program = vulkanOps().build(s, &declined)) {
            why = limitPassed(*program, s);
            gpu_[pos] = std::make_unique<GpuNode>(GpuNode{std::move(*program), 0, {}, {}, {}});
            bool usable = true;  // every bound tensor non-empty, every produced output bound
            for (ValueId v : boundValues(pos, false)) usable = usable && numel(dimsOf(v)) > 0;
            const auto outs = boundValues(pos, true);
            for (size_t i = 0; i < n.outputs().size(); ++i)
                if (s.hasOutput(i))
                    usable = usable && numel(s.outputDims[i]) > 0 &&
                             std::find(outs.begin(), outs.end(), n.output(i)) != outs.end();
            if (usable && why.empty()) continue;
            if (why.empty()) why = "a tensor it reads or writes has no elements, or its shader does not write every output";
            gpu_[pos].reset();
        } else {
            why = declined.empty() ? "its shaders decline these inputs or attributes" : declined;
        }
        auto cpu = std::make_unique<CpuNode>();
        cpu->why = why;
        cpu->prepared = claimOnCpu(descriptor, n, {}).kernel;
        cpu->reference = referenceKernels().find(OpKey::of(n));
        if (!cpu->prepared && !cpu->reference) missing.insert(OpKey::of(n));
        cpu_[pos] = std::move(cpu);
    }
    if (!missing.empty())
        throw ExecutionError("the vulkan backend does not support these ops of the model: " +
                                 joinOpNames({missing.begin(), missing.end()}),
                             ErrorKind::UnsupportedOp);
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        const bool gpu = gpu_[pos] != nullptr;
        if (segments_.empty() || segments_.back().gpu != gpu) segments_.push_back(Segment{gpu, {}, {}, {}});
        segments_.back().positions.push_back(pos);
        segmentOf_.push_back(int(segments_.size()) - 1);
    }
}

std::string VulkanPlan::limitPassed(const NodeProgram& program, const NodeShapes& shapes) const {
    auto bytesOf = [&](const TensorRef& r) -> uint64_t {
        switch (r.kind) {
        case TensorRef::Input:
            return dtypeStorageBytes(shapes.inputTypes[size_t(r.index)], uint64_t(numel(shapes.inputDims[size_t(r.index)])));
        case TensorRef::Output:
            return dtypeStorageBytes(shapes.outputTypes[size_t(r.index)], uint64_t(numel(shapes.outputDims[size_t(r.index)])));
        case TensorRef::Packed: return program.packed[size_t(r.index)].byteSize();
        case TensorRef::Scratch: return program.scratch[size_t(r.index)];
        case TensorRef::Unused: return 0;
        }
        return 0;
    };
    for (const Dispatch& d : program.dispatches) {
        if (!fitsGroups(traits_, d.groups)) return "its grid passes the device's maxComputeWorkGroupCount";
        for (const TensorRef& r : d.bindings)
            if (bytesOf(r) > traits_.maxStorageRange) return "a tensor passes the device's maxStorageBufferRange";
        if (d.texels.size() > kMaxTexelBindings) return "it binds more texel buffers than the backend has";
        for (const TensorRef& r : d.texels)
            if ((bytesOf(r) + 15) / 16 > traits_.maxTexels) return "a tensor passes the device's maxTexelBufferElements";
    }
    return {};
}

void VulkanPlan::placeValues() {
    std::vector<int> positionOf(slots_.size(), -1);  // of each value's producer
    for (size_t pos = 0; pos < order_.size(); ++pos)
        for (ValueId out : graph_.node(order_[pos]).outputs()) positionOf[size_t(out)] = int(pos);
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        if (!gpu_[pos]) continue;
        for (ValueId v : boundValues(pos, false)) {
            ValueSlot& s = slot(v);
            s.bytes = std::max<uint64_t>(4, alignUp(dtypeStorageBytes(typeOf(v), uint64_t(numel(dimsOf(v)))), 4));  // whole words
            if (constantOf(v)) {
                s.weights = true;
            } else if (positionOf[size_t(v)] < 0 || !gpu_[size_t(positionOf[size_t(v)])]) {
                s.arena = true;  // a graph input or a CPU node's output: uploaded before its first GPU reader
                if (s.uploadSegment < 0) {
                    s.uploadSegment = segmentOf_[pos];
                    segments_[size_t(s.uploadSegment)].uploads.push_back(v);
                }
            }
        }
        for (ValueId v : boundValues(pos, true)) {
            ValueSlot& s = slot(v);
            s.arena = true;
            s.bytes = std::max<uint64_t>(4, alignUp(dtypeStorageBytes(typeOf(v), uint64_t(numel(dimsOf(v)))), 4));  // whole words
            bool cpuReads = graph_.isGraphOutput(v);
            for (const Use& use : graph_.value(v).uses()) {
                const auto reader = std::find(order_.begin(), order_.end(), use.node) - order_.begin();
                cpuReads = cpuReads || cpu_[size_t(reader)] != nullptr;
            }
            if (cpuReads && !s.download) {
                s.download = true;
                segments_[size_t(segmentOf_[pos])].downloads.push_back(v);
            }
        }
    }
    for (ValueSlot& s : slots_)
        if (s.uploadSegment >= 0 || s.download) {
            s.staging = stagingBytes_;
            stagingBytes_ = alignUp(stagingBytes_ + s.bytes, 64);
        }
}

void VulkanPlan::planArena() {
    std::vector<int> producedAt(slots_.size(), -1), lastGpuRead(slots_.size(), -1);
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        if (!gpu_[pos]) continue;
        for (ValueId v : boundValues(pos, true)) producedAt[size_t(v)] = int(pos);
        for (ValueId v : boundValues(pos, false)) lastGpuRead[size_t(v)] = int(pos);
    }
    struct Entry { int first; int upload; ValueId v; };
    std::vector<Entry> entries;
    for (size_t v = 0; v < slots_.size(); ++v) {
        const ValueSlot& s = slots_[v];
        if (!s.arena) continue;
        const bool uploaded = s.uploadSegment >= 0;
        const int first = uploaded ? int(segments_[size_t(s.uploadSegment)].positions.front()) : producedAt[v];
        entries.push_back({first, uploaded ? 0 : 1, ValueId(v)});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.first, a.upload, a.v) < std::tie(b.first, b.upload, b.v);
    });
    std::vector<TensorLifetime> lifetimes;
    std::map<ValueId, int> indexOf;
    for (const Entry& e : entries) {
        const ValueSlot& s = slot(e.v);
        TensorLifetime t{s.bytes, e.first, std::max(e.first, lastGpuRead[size_t(e.v)]), -1};
        if (s.download) t.lastStep = std::max(t.lastStep, int(segments_[size_t(segmentOf_[size_t(e.first)])].positions.back()));
        if (e.upload == 1 && gpu_[size_t(e.first)]->program.inPlace) {
            const Node& n = graph_.node(order_[size_t(e.first)]);
            if (n.output(0) == e.v && !n.inputs().empty())
                // A value read back to the host (a graph output) is read after the segment's last
                // node: nothing may write over it in place, even where its last GPU reader runs.
                if (auto it = indexOf.find(n.input(0)); it != indexOf.end() && !slot(n.input(0)).download)
                    t.inPlaceOf = it->second;
        }
        indexOf[e.v] = int(lifetimes.size());
        lifetimes.push_back(t);
    }
    // Scratch lives while its node runs.
    std::vector<std::pair<GpuNode*, size_t>> scratch;
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        if (!gpu_[pos]) continue;
        for (size_t i = 0; i < gpu_[pos]->program.scratch.size(); ++i) {
            scratch.emplace_back(gpu_[pos].get(), lifetimes.size());
            lifetimes.push_back({gpu_[pos]->program.scratch[i], int(pos), int(pos), -1});
        }
    }
    const VkPhysicalDeviceLimits& limits = device_->limits();
    const uint64_t alignment = std::max<uint64_t>(
        {64, limits.minStorageBufferOffsetAlignment, limits.minTexelBufferOffsetAlignment});
    memory_ = planMemory(lifetimes, alignment);
    for (const auto& [v, i] : indexOf) slot(v).offset = memory_.offsets[size_t(i)];
    for (const auto& [node, i] : scratch) node->scratchOffsets.push_back(memory_.offsets[i]);
}

void VulkanPlan::createBuffers() {
    const VkPhysicalDeviceLimits& limits = device_->limits();
    const uint64_t alignment =
        std::max<uint64_t>({256, limits.minStorageBufferOffsetAlignment, limits.minTexelBufferOffsetAlignment});
    std::map<const std::byte*, uint64_t> placed;  // one copy of a constant read by several nodes
    std::vector<std::pair<const Tensor*, uint64_t>> uploads;
    for (size_t v = 0; v < slots_.size(); ++v) {
        ValueSlot& s = slots_[v];
        if (!s.weights) continue;
        const Tensor* t = constantOf(ValueId(v));
        if (auto it = placed.find(t->data()); it != placed.end()) {
            s.offset = it->second;
            continue;
        }
        s.offset = weightBytes_;
        placed[t->data()] = s.offset;
        uploads.emplace_back(t, s.offset);
        weightBytes_ = alignUp(weightBytes_ + t->byteSize(), alignment);
    }
    for (const auto& node : gpu_) {
        if (!node) continue;
        for (const Tensor& t : node->program.packed) {
            node->packedOffsets.push_back(weightBytes_);
            node->packedBytes.push_back(t.byteSize());
            uploads.emplace_back(&t, weightBytes_);
            weightBytes_ = alignUp(weightBytes_ + t.byteSize(), alignment);
        }
    }
    // 16 bytes of slack: a texel view covers a tensor's last bytes with a whole texel.
    arena_ = Buffer(*device_, memory_.arenaBytes + 16, MemoryUse::DeviceLocal);
    weights_ = Buffer(*device_, weightBytes_ + 16, MemoryUse::DeviceLocal);
    staging_ = Buffer(*device_, stagingBytes_, MemoryUse::Staging);
    if (!uploads.empty()) uploadWeights(uploads);
    for (const auto& node : gpu_)
        if (node) node->program.packed.clear();  // on the device now
}

void VulkanPlan::uploadWeights(const std::vector<std::pair<const Tensor*, uint64_t>>& uploads) {
    // Weights travel once, through a temporary staging buffer.
    Buffer transfer(*device_, weightBytes_, MemoryUse::Staging);
    for (const auto& [t, offset] : uploads) std::memcpy(transfer.mapped() + offset, t->data(), t->byteSize());
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = device_->commandPool();
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(device_->handle(), &alloc, &commands), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    try {
        check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
        const VkBufferCopy region{0, 0, weightBytes_};
        vkCmdCopyBuffer(commands, transfer.handle(), weights_.handle(), 1, &region);
        check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
        device_->submitAndWait(commands);
    } catch (...) {
        vkFreeCommandBuffers(device_->handle(), device_->commandPool(), 1, &commands);
        throw;
    }
    vkFreeCommandBuffers(device_->handle(), device_->commandPool(), 1, &commands);
}

void VulkanPlan::listNodes() {
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        const Node& n = graph_.node(order_[pos]);
        if (gpu_[pos]) {
            planned_.push_back({n.id, elided(pos) ? "vulkan:view" : gpu_[pos]->program.kernel, "vulkan", {}});
            continue;
        }
        uint64_t transfer = 0;  // downloads it waits for and uploads it feeds
        for (ValueId in : n.inputs())
            if (in != kNoId && slot(in).download) transfer += slot(in).bytes;
        for (ValueId out : n.outputs())
            if (slot(out).uploadSegment >= 0) transfer += slot(out).bytes;
        std::string kernel = "cpu-fallback:" + n.opType;
        if (cpu_[pos]->prepared) kernel += " [" + cpu_[pos]->prepared->name() + "]";
        if (transfer) kernel += " (transfer " + humanBytes(transfer) + ")";
        planned_.push_back({n.id, kernel, "cpu", cpu_[pos]->why});
    }
}

} // namespace graphlens::vk
