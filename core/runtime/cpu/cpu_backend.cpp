// The CPU backend: compiles a model into a plan: concrete shapes, an optimized kernel for every
// node that has one (reference kernels for the rest), and one activation arena laid out by the
// memory planner. Threads are OpenMP's, shared with oneDNN.
#include "core/runtime/backend.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/executor.h"
#include "core/onnx/shape_inference.h"

#include <omp.h>
#include <xmmintrin.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

namespace graphlens {
namespace {

std::optional<std::vector<int64_t>> staticDims(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.initializer) return value.initializer->dims();
    if (const Tensor* t = g.constantValue(v)) return t->dims();
    return value.shape.sizes();
}

DType typeOf(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.initializer) return value.initializer->dtype();
    if (const Tensor* t = g.constantValue(v)) return t->dtype();
    return value.dtype;
}

/// The node's shapes and constants, or nullopt when any shape is not static.
std::optional<CpuNodeInfo> describeNode(const Graph& g, const Node& n, int64_t opset, int threads) {
    CpuNodeInfo info{g, n, opset, threads, {}, {}, {}, {}, {}};
    for (ValueId in : n.inputs) {
        if (in == kNoId) {
            info.inputDims.emplace_back();
            info.inputTypes.push_back(DType::Undefined);
            info.constants.push_back(nullptr);
            continue;
        }
        auto dims = staticDims(g, in);
        if (!dims || typeOf(g, in) == DType::Undefined) return std::nullopt;
        info.inputDims.push_back(*dims);
        info.inputTypes.push_back(typeOf(g, in));
        info.constants.push_back(g.isGraphInput(in) ? nullptr : g.constantValue(in));
    }
    for (ValueId out : n.outputs) {
        auto dims = staticDims(g, out);
        if (!dims || g.value(out).dtype == DType::Undefined) return std::nullopt;
        info.outputDims.push_back(*dims);
        info.outputTypes.push_back(g.value(out).dtype);
    }
    return info;
}

/// Inputs take the given shapes; everything computed loses its shape, so every node runs with
/// shapes found at run time (reference kernels, heap buffers).
void forgetIntermediateShapes(Graph& g, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    for (ValueId v : g.valueIds()) {
        Value& value = g.value(v);
        if (g.isGraphInput(v)) {
            if (auto it = inputShapes.find(value.name); it != inputShapes.end()) value.shape = Shape::ofSizes(it->second);
        } else if (!value.initializer) {
            value.shape = Shape();
        }
    }
}

bool needsShapeInference(const Graph& g, const CompileOptions& options) {
    for (ValueId v : g.inputs()) {
        const Value& input = g.value(v);
        if (input.initializer) continue;
        auto given = options.inputShapes.find(input.name);
        if (given == options.inputShapes.end()) {
            if (!input.shape.isStatic()) return false;  // unknown until run: dynamic plan
            continue;
        }
        if (!input.shape.isStatic() || *input.shape.sizes() != given->second) return true;
    }
    return false;
}

/// Flush-to-zero and denormals-are-zero on every OpenMP thread for the length of a run, the
/// previous state restored afterwards. Denormal floats (below 1.2e-38) are 10-100x slower to
/// compute with and change no result a model is trusted for.
class DenormalsAsZero {
public:
    DenormalsAsZero() {
#pragma omp parallel
        {
            const unsigned int previous = _mm_getcsr();
#pragma omp critical
            saved_ = previous;
            _mm_setcsr(previous | kFlushBits);
        }
    }
    ~DenormalsAsZero() {
#pragma omp parallel
        _mm_setcsr((_mm_getcsr() & ~kFlushBits) | (saved_ & kFlushBits));
    }

private:
    static constexpr unsigned int kFlushBits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
    unsigned int saved_ = 0;
};

class CpuPlan final : public Plan {
public:
    CpuPlan(const Model& model, const CompileOptions& options);

    std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer) override {
        omp_set_num_threads(threads_);
        if (!flushDenormals_) return executor_->run(feeds, observer);
        DenormalsAsZero scope;
        return executor_->run(feeds, observer);
    }
    const MemoryPlan& memoryPlan() const override { return memory_; }
    const std::vector<PlannedNode>& nodes() const override { return nodes_; }

private:
    void prepareKernels(int64_t opset, bool referenceOnly);
    void planArena();

    Graph graph_;
    int threads_;
    bool flushDenormals_;
    std::unique_ptr<GraphExecutor> executor_;
    MemoryPlan memory_;
    Tensor arena_;
    std::vector<PlannedNode> nodes_;
};

CpuPlan::CpuPlan(const Model& model, const CompileOptions& options)
    : threads_(options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()))),
      flushDenormals_(options.flushDenormals) {
    Model concrete = model;  // a snapshot: weights shared
    if (needsShapeInference(model.graph, options)) {
        try {
            inferShapesForInputs(concrete, options.inputShapes);
        } catch (const std::exception&) {
            forgetIntermediateShapes(concrete.graph, options.inputShapes);  // run it dynamically
        }
    }
    graph_ = std::move(concrete.graph);
    executor_ = std::make_unique<GraphExecutor>(graph_, referenceKernels(), model.opsetVersion(), threads_);
    const auto missing = executor_->unsupportedOps();
    if (!missing.empty()) {
        std::string ops;
        for (const auto& op : missing) ops += (ops.empty() ? "" : ", ") + op;
        throw ExecutionError("the cpu backend does not support these ops of the model: " + ops);
    }
    prepareKernels(model.opsetVersion(), options.referenceOnly);
    planArena();
}

void CpuPlan::prepareKernels(int64_t opset, bool referenceOnly) {
    for (NodeId id : executor_->order()) {
        const Node& n = graph_.node(id);
        std::unique_ptr<PreparedKernel> kernel;
        if (!referenceOnly)
            if (auto info = describeNode(graph_, n, opset, threads_)) kernel = cpuKernels().prepare(*info);
        nodes_.push_back({id, kernel ? kernel->name() : "reference"});
        if (kernel) executor_->setPreparedKernel(id, std::move(kernel));
    }
}

/// Every intermediate with a static shape gets a slot in the arena; graph outputs, values read
/// from sub-graphs and strings stay on the heap.
void CpuPlan::planArena() {
    const auto& order = executor_->order();
    std::map<ValueId, int> producedAt, lastRead;
    std::set<ValueId> excluded;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const Node& n = graph_.node(order[pos]);
        for (ValueId in : n.inputs)
            if (in != kNoId) lastRead[in] = int(pos);
        for (ValueId out : n.outputs) producedAt[out] = int(pos);
        for (const auto& [name, attr] : n.attributes)
            if (attr.holds<GraphPtr>() || attr.holds<std::vector<GraphPtr>>())
                for (ValueId v : graph_.valueIds()) excluded.insert(v);  // be safe around sub-graphs
    }
    std::vector<ValueId> planned;
    std::vector<TensorLifetime> lifetimes;
    std::map<ValueId, int> indexOf;
    std::vector<std::pair<int, ValueId>> byPosition;
    for (const auto& [v, pos] : producedAt) byPosition.emplace_back(pos, v);
    std::sort(byPosition.begin(), byPosition.end());
    for (const auto& [pos, v] : byPosition) {
        const Value& value = graph_.value(v);
        auto sizes = value.shape.sizes();
        if (!sizes || graph_.isGraphOutput(v) || excluded.count(v) || value.dtype == DType::String ||
            value.dtype == DType::Undefined || value.uses.empty())
            continue;
        TensorLifetime t;
        t.bytes = dtypeStorageBytes(value.dtype, uint64_t(*value.shape.numel()));
        t.firstStep = pos;
        t.lastStep = std::max(pos, lastRead.count(v) ? lastRead[v] : pos);
        const PreparedKernel* kernel = executor_->preparedKernel(value.producer);
        const Node& producer = graph_.node(value.producer);
        if (kernel && kernel->writesInPlace() && value.producerOutput == 0 && !producer.inputs.empty())
            if (auto it = indexOf.find(producer.inputs[0]); it != indexOf.end()) t.inPlaceOf = it->second;
        indexOf[v] = int(lifetimes.size());
        planned.push_back(v);
        lifetimes.push_back(t);
    }
    memory_ = planMemory(lifetimes);
    arena_ = Tensor::allocate(DType::UInt8, {int64_t(memory_.arenaBytes)});
    executor_->setArena(arena_);
    for (size_t i = 0; i < planned.size(); ++i) {
        const Value& value = graph_.value(planned[i]);
        executor_->reserveBuffer(planned[i], Tensor::view(value.dtype, *value.shape.sizes(),
                                                          arena_.data() + memory_.offsets[i],
                                                          lifetimes[i].bytes, std::shared_ptr<const void>(arena_.sharedStorage())));
    }
}

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::unique_ptr<Plan> compile(const Model& model, const CompileOptions& options) override {
        return std::make_unique<CpuPlan>(model, options);
    }
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace graphlens
