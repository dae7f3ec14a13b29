// Building a Vulkan plan: concrete shapes, a shader or a CPU kernel per node (within the device's
// limits), segments, where each value lives, the arena layout and the buffers. Descriptor sets are
// in vulkan_plan_bind.cpp, recording in vulkan_plan_record.cpp, running in vulkan_plan_run.cpp.
#include "core/runtime/vulkan/vulkan_plan.h"
#include "core/onnx/shape_inference.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/executor.h"
#include "core/runtime/vulkan/vulkan_check.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

namespace graphlens::vk {
namespace {

bool hasSubgraph(const Node& n) {
    for (const auto& [name, attr] : n.attributes)
        if (attr.holds<GraphPtr>() || attr.holds<std::vector<GraphPtr>>()) return true;
    return false;
}

bool allShapesStatic(const Graph& g) {
    for (NodeId id : g.nodeIds())
        for (ValueId out : g.node(id).outputs)
            if (!g.value(out).name.empty() && !g.value(out).shape.isStatic()) return false;
    return true;
}

/// True when the caller's input shapes differ from the model's.
bool inputShapesChange(const Graph& g, const CompileOptions& options) {
    for (ValueId v : g.inputs()) {
        auto given = options.inputShapes.find(g.value(v).name);
        if (given != options.inputShapes.end() && g.value(v).shape.sizes() != given->second) return true;
    }
    return false;
}

uint64_t alignUp(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

std::string label(const Node& n) { return n.name.empty() ? n.opType : n.name; }

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

VulkanPlan::VulkanPlan(std::shared_ptr<Device> device, const Model& model, const CompileOptions& options)
    : device_(std::move(device)), traits_(traitsOf(*device_)), opset_(model.opsetVersion()),
      threads_(options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()))) {
    prepareGraph(model, options);
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

void VulkanPlan::prepareGraph(const Model& model, const CompileOptions& options) {
    Model concrete = model;  // a snapshot: weights shared
    if (inputShapesChange(model.graph, options) || !allShapesStatic(model.graph)) {
        try {
            inferShapesForInputs(concrete, options.inputShapes);
        } catch (const std::exception& e) {
            throw ExecutionError(std::string("the vulkan backend needs static shapes, and shape inference failed: ") + e.what());
        }
    }
    graph_ = std::move(concrete.graph);
    try {
        order_ = graph_.topologicalOrder();
    } catch (const GraphError& e) {
        throw ExecutionError(e.what());
    }
    const auto ids = graph_.valueIds();
    slots_.resize(ids.empty() ? 0 : size_t(ids.back()) + 1);
    lastRead_.assign(slots_.size(), -1);
}

std::vector<int64_t> VulkanPlan::dimsOf(ValueId v) const {
    const Value& value = graph_.value(v);
    if (value.initializer) return value.initializer->dims();
    if (const Tensor* t = graph_.constantValue(v)) return t->dims();
    return value.shape.sizes().value_or(std::vector<int64_t>{});
}

DType VulkanPlan::typeOf(ValueId v) const {
    const Value& value = graph_.value(v);
    if (value.initializer) return value.initializer->dtype();
    if (const Tensor* t = graph_.constantValue(v)) return t->dtype();
    return value.dtype;
}

/// The constant a value holds: an initializer (not a graph input), a Constant node's value, or an
/// Identity of either.
const Tensor* VulkanPlan::constantOf(ValueId v) const {
    for (int hops = 0; hops < 16 && v != kNoId && !graph_.isGraphInput(v); ++hops) {
        if (const Tensor* t = graph_.constantValue(v)) return t;
        const NodeId producer = graph_.value(v).producer;
        if (producer == kNoId || graph_.node(producer).opType != "Identity" || graph_.node(producer).inputs.empty())
            return nullptr;
        v = graph_.node(producer).inputs[0];
    }
    return nullptr;
}

std::vector<ValueId> VulkanPlan::boundValues(size_t position, bool outputs) const {
    std::set<ValueId> values;
    const Node& n = graph_.node(order_[position]);
    auto add = [&](const TensorRef& r) {
        if (r.kind == TensorRef::Input && !outputs) values.insert(n.inputs[size_t(r.index)]);
        if (r.kind == TensorRef::Output && outputs) values.insert(n.outputs[size_t(r.index)]);
    };
    for (const Dispatch& d : gpu_[position]->program.dispatches) {
        for (const TensorRef& r : d.bindings) add(r);
        for (const TensorRef& r : d.texels) add(r);
    }
    return {values.begin(), values.end()};
}

void VulkanPlan::chooseKernels() {
    gpu_.resize(order_.size());
    cpu_.resize(order_.size());
    std::set<std::string> missing;
    for (size_t pos = 0; pos < order_.size(); ++pos) {
        const Node& n = graph_.node(order_[pos]);
        if (hasSubgraph(n)) throw ExecutionError("the vulkan backend does not run ops with sub-graphs (" + n.opType + ")");
        NodeShapes s{n, opset_, {}, {}, {}, {}, {}, traits_};
        for (ValueId in : n.inputs) {
            const bool given = in != kNoId;
            s.inputDims.push_back(given ? dimsOf(in) : std::vector<int64_t>{});
            s.inputTypes.push_back(given ? typeOf(in) : DType::Undefined);
            s.constants.push_back(given ? constantOf(in) : nullptr);
            if (given && !graph_.value(in).initializer && !graph_.constantValue(in) && !graph_.value(in).shape.isStatic())
                throw ExecutionError("the vulkan backend needs static shapes; the input '" + graph_.value(in).name +
                                     "' of node '" + label(n) + "' (" + n.opType + ") has none");
            if (given) lastRead_[size_t(in)] = int(pos);
        }
        for (ValueId out : n.outputs) {
            const Value& value = graph_.value(out);
            const bool omitted = value.name.empty() && value.uses.empty() && !graph_.isGraphOutput(out);
            if (!omitted && !value.shape.isStatic())
                throw ExecutionError("the vulkan backend needs static shapes; the output '" + value.name + "' of node '" +
                                     label(n) + "' (" + n.opType + ") has none");
            s.outputDims.push_back(omitted ? std::vector<int64_t>{} : *value.shape.sizes());
            s.outputTypes.push_back(omitted ? DType::Undefined : value.dtype);
        }
        std::string why;
        if (auto program = vulkanOps().build(s)) {
            why = limitPassed(*program, s);
            gpu_[pos] = std::make_unique<GpuNode>(GpuNode{std::move(*program), 0, {}, {}, {}});
            bool usable = true;  // every bound tensor non-empty, every produced output bound
            for (ValueId v : boundValues(pos, false)) usable = usable && numel(dimsOf(v)) > 0;
            const auto outs = boundValues(pos, true);
            for (size_t i = 0; i < n.outputs.size(); ++i)
                if (s.hasOutput(i))
                    usable = usable && numel(s.outputDims[i]) > 0 &&
                             std::find(outs.begin(), outs.end(), n.outputs[i]) != outs.end();
            if (usable && why.empty()) continue;
            gpu_[pos].reset();
        }
        auto cpu = std::make_unique<CpuNode>();
        cpu->why = why;
        bool plain = std::all_of(s.outputTypes.begin(), s.outputTypes.end(), [](DType t) { return t != DType::Undefined; });
        if (plain) {
            const CpuNodeInfo info{graph_, n, opset_, threads_, s.inputDims, s.inputTypes, s.constants, s.outputDims, s.outputTypes};
            cpu->prepared = cpuKernels().prepare(info);
        }
        cpu->reference = referenceKernels().find(n.domain, n.opType);
        if (!cpu->prepared && !cpu->reference) missing.insert(n.domain.empty() ? n.opType : n.domain + ":" + n.opType);
        cpu_[pos] = std::move(cpu);
    }
    if (!missing.empty())
        throw ExecutionError("the vulkan backend does not support these ops of the model: " +
                             joinOpNames({missing.begin(), missing.end()}));
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
        for (ValueId out : graph_.node(order_[pos]).outputs) positionOf[size_t(out)] = int(pos);
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
            for (const Use& use : graph_.value(v).uses) {
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
            if (n.outputs[0] == e.v && !n.inputs.empty())
                if (auto it = indexOf.find(n.inputs[0]); it != indexOf.end()) t.inPlaceOf = it->second;
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
            planned_.push_back({n.id, elided(pos) ? "vulkan:view" : gpu_[pos]->program.kernel});
            continue;
        }
        uint64_t transfer = 0;  // downloads it waits for and uploads it feeds
        for (ValueId in : n.inputs)
            if (in != kNoId && slot(in).download) transfer += slot(in).bytes;
        for (ValueId out : n.outputs)
            if (slot(out).uploadSegment >= 0) transfer += slot(out).bytes;
        std::string kernel = "cpu-fallback:" + n.opType;
        if (cpu_[pos]->prepared) kernel += " [" + cpu_[pos]->prepared->name() + "]";
        if (!cpu_[pos]->why.empty()) kernel += " (" + cpu_[pos]->why + ")";
        if (transfer) kernel += " (transfer " + humanBytes(transfer) + ")";
        planned_.push_back({n.id, kernel});
    }
}

} // namespace graphlens::vk
