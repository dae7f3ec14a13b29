// Running a Vulkan plan: feeds checked and staged, GPU segments submitted (timed ones when an
// observer listens), CPU fallback nodes run between them on the CPU backend's kernels.
#include "core/runtime/vulkan/vulkan_plan.h"
#include "core/runtime/executor.h"

#include <omp.h>

#include <chrono>
#include <cstring>

namespace graphlens::vk {
namespace {

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string label(const Node& n) { return n.name.empty() ? n.opType : n.name; }

Tensor copyOf(const Tensor& t) {
    Tensor copy = Tensor::allocate(t.dtype(), t.dims());
    if (t.byteSize()) std::memcpy(copy.mutableData(), t.data(), t.byteSize());
    return copy;
}

} // namespace

std::vector<Tensor> VulkanPlan::run(const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer) {
    std::vector<Tensor> host(slots_.size());
    for (const auto& [name, tensor] : feeds) {
        auto v = graph_.findValue(name);
        if (!v || !graph_.isGraphInput(*v)) throw ExecutionError("the model has no input named '" + name + "'", ErrorKind::BadFeeds);
        const Value& input = graph_.value(*v);
        if (input.dtype != DType::Undefined && tensor.dtype() != input.dtype)
            throw ExecutionError("the input '" + name + "' is " + std::string(dtypeName(tensor.dtype())) +
                                 " but the model expects " + std::string(dtypeName(input.dtype)), ErrorKind::BadFeeds);
        if (input.shape.sizes() && tensor.dims() != *input.shape.sizes())
            throw ExecutionError("the input '" + name + "' has the shape " + Shape::ofSizes(tensor.dims()).toString() +
                                 " but the plan was made for " + input.shape.toString(), ErrorKind::BadFeeds);
        host[size_t(*v)] = tensor;
    }
    for (ValueId v : graph_.inputs()) {
        if (!host[size_t(v)].empty()) continue;
        if (!graph_.value(v).initializer) throw ExecutionError("the model input '" + graph_.value(v).name + "' was not given", ErrorKind::BadFeeds);
        host[size_t(v)] = *graph_.value(v).initializer;
    }
    omp_set_num_threads(threads_);
    for (const Segment& segment : segments_) {
        if (!segment.gpu) {
            for (size_t pos : segment.positions) runCpuNode(pos, host, observer);
            continue;
        }
        for (ValueId v : segment.uploads) {
            const Tensor& t = host[size_t(v)];
            if (t.byteSize() != dtypeStorageBytes(typeOf(v), uint64_t(numel(dimsOf(v)))))
                throw ExecutionError("the value '" + graph_.value(v).name + "' does not have its planned size");
            std::memcpy(staging_.mapped() + slot(v).staging, t.data(), t.byteSize());
        }
        device_->submitAndWait(observer ? segment.timed : segment.plain);
        if (observer) emitGpuEvents(segment, *observer);
        for (ValueId v : segment.downloads)
            host[size_t(v)] = Tensor::view(typeOf(v), dimsOf(v), staging_.mapped() + slot(v).staging,
                                           dtypeStorageBytes(typeOf(v), uint64_t(numel(dimsOf(v)))), nullptr);
    }
    std::vector<Tensor> outputs;
    for (ValueId v : graph_.outputs()) {
        if (const Tensor* t = constantOf(v)) outputs.push_back(*t);
        else if (slot(v).download) outputs.push_back(copyOf(host[size_t(v)]));
        else outputs.push_back(host[size_t(v)]);
    }
    return outputs;
}

void VulkanPlan::runCpuNode(size_t position, std::vector<Tensor>& host, ExecutionObserver* observer) {
    const Node& n = graph_.node(order_[position]);
    const std::string where = "node '" + label(n) + "' (" + n.opType + ")";
    std::vector<const Tensor*> inputs;
    uint64_t bytesRead = 0;
    for (ValueId in : n.inputs()) {
        const Tensor* t = in == kNoId ? nullptr : constantOf(in);
        if (in != kNoId && !t) t = &host[size_t(in)];
        if (t && t->empty() && typeOf(in) != DType::Undefined && numel(dimsOf(in)) != 0 && !graph_.value(in).opaqueType.size())
            throw ExecutionError(where + ": its input '" + graph_.value(in).name + "' has no value");
        inputs.push_back(t);
        if (t) bytesRead += t->byteSize();
    }
    const int64_t begin = observer ? nowNs() : 0;
    std::vector<Tensor> outputs(n.outputs().size());
    try {
        CpuNode& kernel = *cpu_[position];
        if (kernel.prepared) {
            for (size_t i = 0; i < n.outputs().size(); ++i) outputs[i] = Tensor::allocate(typeOf(n.output(i)), dimsOf(n.output(i)));
            kernel.prepared->run(inputs, outputs);
        } else {
            KernelContext ctx(n, opset_, std::move(inputs), threads_);
            kernel.reference(ctx);
            outputs = std::move(ctx.outputs());
        }
    } catch (const KernelError& e) {
        throw ExecutionError(where + ": " + e.what());
    } catch (const ExecutionError& e) {
        throw ExecutionError(where + ": " + e.what(), e.kind());
    }
    uint64_t bytesWritten = 0;
    for (size_t i = 0; i < n.outputs().size() && i < outputs.size(); ++i) {
        bytesWritten += outputs[i].byteSize();
        host[size_t(n.output(i))] = std::move(outputs[i]);
    }
    if (observer) observer->nodeFinished({n.id, begin, nowNs(), bytesRead, bytesWritten, 0});
}

void VulkanPlan::emitGpuEvents(const Segment& segment, ExecutionObserver& observer) const {
    const std::vector<int64_t> ns = queries_->nanoseconds(segment.firstQuery, 2 * uint32_t(segment.positions.size()));
    for (size_t i = 0; i < segment.positions.size(); ++i) {
        const size_t pos = segment.positions[i];
        const Node& n = graph_.node(order_[pos]);
        uint64_t bytesRead = 0, bytesWritten = 0;
        for (ValueId v : boundValues(pos, false)) bytesRead += slots_[size_t(v)].bytes;
        for (ValueId v : boundValues(pos, true)) bytesWritten += slots_[size_t(v)].bytes;
        observer.nodeFinished({n.id, ns[2 * i], std::max(ns[2 * i], ns[2 * i + 1]), bytesRead, bytesWritten, kGpuQueueTrack});
    }
}

} // namespace graphlens::vk
