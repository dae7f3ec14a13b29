// The CPU backend: compiles a model into a plan: concrete shapes, an optimized kernel for every
// node that has one (reference kernels for the rest), and one activation arena laid out by the
// memory planner. Threads are OpenMP's, shared with oneDNN.
#include "core/runtime/backend.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/executor.h"
#include "core/runtime/op_validation.h"
#include "core/runtime/resource_limits.h"
#include "core/onnx/shape_inference.h"

#include <omp.h>
#include <xmmintrin.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
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

/// The constant a value holds: an initializer, a Constant node, or an Identity of either (PyTorch
/// exports shared initializers that way).
const Tensor* constantThroughIdentity(const Graph& g, ValueId v) {
    for (int hops = 0; hops < 16 && v != kNoId && !g.isGraphInput(v); ++hops) {
        if (const Tensor* t = g.constantValue(v)) return t;
        const NodeId producer = g.value(v).producer;
        if (producer == kNoId || g.node(producer).opType != "Identity" || g.node(producer).inputs.empty())
            return nullptr;
        v = g.node(producer).inputs[0];
    }
    return nullptr;
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
        info.constants.push_back(constantThroughIdentity(g, in));
    }
    for (ValueId out : n.outputs) {
        auto dims = staticDims(g, out);
        if (!dims || g.value(out).dtype == DType::Undefined) return std::nullopt;
        info.outputDims.push_back(*dims);
        info.outputTypes.push_back(g.value(out).dtype);
    }
    return info;
}

/// Whether the node's data (input 0) has no elements. Other inputs may be empty on purpose
/// (Resize's roi and scales when sizes are given), and so may outputs (a Split size of 0).
bool hasEmptyTensor(const CpuNodeInfo& info) {
    return !info.inputDims.empty() && std::find(info.inputDims[0].begin(), info.inputDims[0].end(), 0) != info.inputDims[0].end();
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

/// Ops whose value is not a function of their inputs: never evaluated at plan time.
bool isNondeterministic(const Node& n) {
    return n.opType.rfind("Random", 0) == 0 || n.opType == "Multinomial" || n.opType == "Dropout";
}

bool hasSubgraph(const Node& n) {
    for (const auto& [name, attr] : n.attributes)
        if (attr.holds<GraphPtr>() || attr.holds<std::vector<GraphPtr>>()) return true;
    return false;
}

/// The outputs of `n` computed by its reference kernel, when every input it has is a constant of
/// at most `maxInputElements` elements; nullopt otherwise, or when the kernel fails (the error is
/// then reported at run time, with the node's name).
std::optional<std::vector<Tensor>> evaluateOnConstants(const Graph& g, const Node& n, int64_t opset,
                                                       int64_t maxInputElements) {
    const KernelFn kernel = referenceKernels().find(OpKey::of(n));
    if (n.inputs.empty() || !kernel) return std::nullopt;
    std::vector<const Tensor*> inputs;
    for (ValueId in : n.inputs) {
        const Tensor* t = in == kNoId ? nullptr : constantThroughIdentity(g, in);
        if (in != kNoId && (!t || t->numel() > maxInputElements)) return std::nullopt;
        inputs.push_back(t);
    }
    KernelContext ctx(n, opset, std::move(inputs));
    try {
        kernel(ctx);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return std::move(ctx.outputs());
}

/// Removes node `id` and turns its outputs into initializers holding `outputs`.
void replaceByInitializers(Graph& g, NodeId id, std::vector<Tensor> outputs) {
    const std::vector<ValueId> outs = g.node(id).outputs;
    g.removeNode(id);
    for (size_t i = 0; i < outs.size(); ++i) {
        g.value(outs[i]).dtype = outputs[i].dtype();
        g.value(outs[i]).shape = Shape::ofSizes(outputs[i].dims());
        g.setInitializer(outs[i], std::move(outputs[i]));
    }
}

/// Shape folding at plan time: Shape of a value with a static shape, and any small node whose
/// inputs are all constants (the Gather/Concat/Div arithmetic PyTorch exports around Reshape),
/// become initializers, so shape inference can see through them. Returns whether it folded.
bool foldShapeComputations(Graph& g, int64_t opset) {
    constexpr int64_t kMaxFoldedElements = 4096;
    bool folded = false;
    for (NodeId id : g.topologicalOrder()) {
        const Node& n = g.node(id);
        if (!n.domain.empty() || isNondeterministic(n) || hasSubgraph(n) || n.opType == "Constant") continue;
        std::vector<Tensor> outputs;
        if (n.opType == "Shape" && n.inputs.size() == 1 && g.value(n.inputs[0]).shape.isStatic()) {
            const auto dims = *g.value(n.inputs[0]).shape.sizes();
            const auto rank = int64_t(dims.size());
            auto clampAxis = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t(0), rank); };
            const int64_t start = clampAxis(n.attributes.getInt("start", 0));
            const int64_t end = clampAxis(n.attributes.getInt("end", rank));
            std::vector<int64_t> slice(dims.begin() + start, dims.begin() + std::max(start, end));
            outputs.push_back(Tensor::int64s({int64_t(slice.size())}, slice));
        } else {
            // A ConstantOfShape, Expand or Tile of a few constant bytes may ask for gigabytes.
            if (auto bytes = predictedOutputBytes(g, n); bytes && *bytes > uint64_t(kMaxFoldedElements) * 8) continue;
            auto computed = evaluateOnConstants(g, n, opset, kMaxFoldedElements);
            if (!computed) continue;
            outputs = std::move(*computed);
            bool small = true;
            for (const Tensor& t : outputs) small = small && !t.empty() && t.numel() <= kMaxFoldedElements;
            if (!small) continue;
        }
        replaceByInitializers(g, id, std::move(outputs));
        folded = true;
    }
    return folded;
}

/// Weights stored as int8 behind a DequantizeLinear (what quantize-int8-weights writes) are
/// dequantized once here, whatever their size, so convolutions and products see float32
/// constants and run on their fast kernels instead of dequantizing every run.
void dequantizeConstantWeights(Graph& g, int64_t opset) {
    for (NodeId id : g.topologicalOrder()) {
        const Node& n = g.node(id);
        if (n.opType != "DequantizeLinear" || !n.domain.empty()) continue;
        if (auto outputs = evaluateOnConstants(g, n, opset, std::numeric_limits<int64_t>::max()))
            replaceByInitializers(g, id, std::move(*outputs));
    }
}

bool allShapesStatic(const Graph& g) {
    for (NodeId id : g.nodeIds())
        for (ValueId out : g.node(id).outputs)
            if (!g.value(out).shape.isStatic()) return false;
    return true;
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

/// Whether the loader's shape inference disagreed with shapes declared in the file (a graph
/// output declared [1,1,20,24] that computes [1,1,118,24]): kernels sized by the declared shapes
/// would then write past their buffers, so the plan infers every shape afresh.
bool shapesMayBeStale(const Model& model) {
    for (const std::string& warning : model.warnings)
        if (warning.rfind("ONNX shape inference:", 0) == 0 && warning.find("existing shape differ") != std::string::npos)
            return true;
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
    CpuPlan(const Model& model, const CompileOptions& options, bool memoryCheckOnly = false);

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
    std::map<ValueId, uint64_t> keepBlockedLayouts(int64_t opset);
    bool arenaHolds(ValueId v) const;
    std::vector<TensorLifetime> lifetimes(const std::map<ValueId, uint64_t>& bytesOf, std::vector<ValueId>& planned) const;
    void checkMemory(const std::vector<TensorLifetime>& lifetimes, const MemoryPlan* plan) const;
    void planArena(const std::map<ValueId, uint64_t>& bytesOf);
    void listKernels();

    Graph graph_;
    int threads_;
    bool flushDenormals_;
    bool subgraphs_ = false;  ///< sub-graphs read values by name: every value stays on the heap
    std::unique_ptr<GraphExecutor> executor_;
    MemoryPlan memory_;
    Tensor arena_;
    std::vector<PlannedNode> nodes_;
    MemoryBudget budget_;
};

CpuPlan::CpuPlan(const Model& model, const CompileOptions& options, bool memoryCheckOnly)
    : threads_(options.threads > 0 ? options.threads : int(std::max(1u, std::thread::hardware_concurrency()))),
      flushDenormals_(options.flushDenormals), budget_(MemoryBudget::of(options.maxMemory)) {
    // Attributes out of range would reach divisions in shape inference and the kernels.
    validateGraph(model.graph, model.opsetVersion());
    Model concrete = model;  // a snapshot: weights shared
    bool inferred = true;
    try {
        if (shapesMayBeStale(model) || needsShapeInference(model.graph, options) || !allShapesStatic(concrete.graph))
            inferShapesForInputs(concrete, options.inputShapes);
    } catch (const std::exception& e) {
        // Static dims that cannot broadcast fail at run time too, after every node before them
        // ran on the slow run-time-shape path (minutes for a 2^20-token input): say so now.
        if (std::string(e.what()).find("Incompatible dimensions") != std::string::npos) throw ExecutionError(e.what());
        forgetIntermediateShapes(concrete.graph, options.inputShapes);  // run it with run-time shapes
        inferred = false;
    }
    for (int round = 0; inferred && round < 4 && !allShapesStatic(concrete.graph); ++round) {
        Model attempt = concrete;
        if (!foldShapeComputations(attempt.graph, model.opsetVersion())) break;
        try {
            inferShapesForInputs(attempt, {});
            concrete = std::move(attempt);
        } catch (const std::exception&) {
            break;
        }
    }
    validateGraph(concrete.graph, model.opsetVersion());  // now with the concrete ranks and sizes
    dequantizeConstantWeights(concrete.graph, model.opsetVersion());
    graph_ = std::move(concrete.graph);
    executor_ = std::make_unique<GraphExecutor>(graph_, referenceKernels(), model.opsetVersion(), threads_);
    const auto missing = executor_->unsupportedOps();
    if (!missing.empty())
        throw ExecutionError("the cpu backend does not support these ops of the model: " + joinOpNames(missing));
    {
        // Before any kernel is prepared (oneDNN sizes its scratch buffers from the shapes): the
        // arena without in-place reuse, an upper bound of the one planned below.
        std::vector<ValueId> planned;
        checkMemory(lifetimes({}, planned), nullptr);
    }
    if (memoryCheckOnly) return;
    prepareKernels(model.opsetVersion(), options.referenceOnly);
    planArena(options.referenceOnly ? std::map<ValueId, uint64_t>() : keepBlockedLayouts(model.opsetVersion()));
    listKernels();
}

void CpuPlan::prepareKernels(int64_t opset, bool referenceOnly) {
    for (NodeId id : executor_->order()) {
        const Node& n = graph_.node(id);
        subgraphs_ = subgraphs_ || hasSubgraph(n);
        if (referenceOnly) continue;
        auto info = describeNode(graph_, n, opset, threads_);
        // Empty data (a zero batch) runs on the reference kernels, which handle it; the
        // optimized ones divide by its sizes.
        if (info && hasEmptyTensor(*info)) continue;
        if (info)
            if (auto kernel = cpuKernels().prepare(*info)) executor_->setPreparedKernel(id, std::move(kernel));
    }
}

/// Activations passed between oneDNN kernels stay in their blocked layout where the arena holds
/// them; returns the bytes each such value takes (see onednn_layout.h).
std::map<ValueId, uint64_t> CpuPlan::keepBlockedLayouts(int64_t opset) {
    const onednn::LayoutPlanInputs inputs{
        graph_, *executor_, [this](ValueId v) { return arenaHolds(v); },
        [this, opset](NodeId id) { return describeNode(graph_, graph_.node(id), opset, threads_); }};
    return onednn::keepActivationsBlocked(inputs);
}

/// Every intermediate with a static shape gets a slot in the arena; graph outputs, values read
/// from sub-graphs and strings stay on the heap.
bool CpuPlan::arenaHolds(ValueId v) const {
    const Value& value = graph_.value(v);
    return value.producer != kNoId && value.shape.sizes() && !graph_.isGraphOutput(v) && !subgraphs_ &&
           value.dtype != DType::String && value.dtype != DType::Undefined && !value.uses.empty();
}

/// The lifetime and size of every value the arena holds, in the order they are produced
/// (`planned`); `bytesOf` overrides the size of values not stored as plain tensors.
std::vector<TensorLifetime> CpuPlan::lifetimes(const std::map<ValueId, uint64_t>& bytesOf,
                                               std::vector<ValueId>& planned) const {
    const auto& order = executor_->order();
    std::map<ValueId, int> producedAt, lastRead;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const Node& n = graph_.node(order[pos]);
        for (ValueId in : n.inputs)
            if (in != kNoId) lastRead[in] = int(pos);
        for (ValueId out : n.outputs) producedAt[out] = int(pos);
    }
    std::vector<TensorLifetime> result;
    std::map<ValueId, int> indexOf;
    std::vector<std::pair<int, ValueId>> byPosition;
    for (const auto& [v, pos] : producedAt) byPosition.emplace_back(pos, v);
    std::sort(byPosition.begin(), byPosition.end());
    for (const auto& [pos, v] : byPosition) {
        if (!arenaHolds(v)) continue;
        const Value& value = graph_.value(v);
        const auto bytes = checkedTensorBytes(value.dtype, *value.shape.sizes());
        if (!bytes)
            throw ResourceError("node '" + graph_.node(value.producer).name + "' (" + graph_.node(value.producer).opType +
                                "): its output '" + value.name + "' of shape " + value.shape.toString() +
                                " has more bytes than 64 bits can count");
        TensorLifetime t;
        t.bytes = *bytes;
        if (auto it = bytesOf.find(v); it != bytesOf.end()) t.bytes = std::max(t.bytes, it->second);
        t.firstStep = pos;
        t.lastStep = std::max(pos, lastRead.count(v) ? lastRead[v] : pos);
        const PreparedKernel* kernel = executor_->preparedKernel(value.producer);
        const Node& producer = graph_.node(value.producer);
        if (kernel && kernel->writesInPlace() && value.producerOutput == 0 && !producer.inputs.empty())
            if (auto it = indexOf.find(producer.inputs[0]); it != indexOf.end()) t.inPlaceOf = it->second;
        indexOf[v] = int(result.size());
        planned.push_back(v);
        result.push_back(t);
    }
    return result;
}

/// Refuses the plan when its arena (planned in `plan`, or all of `lifetimes` side by side when
/// there is no plan yet) plus the weights exceed the memory budget.
void CpuPlan::checkMemory(const std::vector<TensorLifetime>& lifetimes, const MemoryPlan* plan) const {
    uint64_t weights = 0;
    for (ValueId v : graph_.valueIds())
        if (const Value& value = graph_.value(v); value.initializer)
            weights = saturatingAdd(weights, checkedTensorBytes(value.initializer->dtype(), value.initializer->dims()).value_or(0));
    uint64_t arena = 0;
    if (plan) {
        arena = plan->arenaBytes;
    } else {
        for (const TensorLifetime& t : lifetimes) arena = saturatingAdd(arena, t.bytes);
        if (arena <= budget_.bytes || arena == UINT64_MAX) {
            // Fits side by side, or too large to plan safely: nothing more to learn.
            checkPlanMemory(arena, weights, budget_, arena == UINT64_MAX);
            return;
        }
        arena = planMemory(lifetimes).arenaBytes;  // sizes below 2^64 in all: the planner's sums cannot wrap
    }
    checkPlanMemory(arena, weights, budget_);
}

void CpuPlan::planArena(const std::map<ValueId, uint64_t>& bytesOf) {
    std::vector<ValueId> planned;
    const std::vector<TensorLifetime> lifetimes = this->lifetimes(bytesOf, planned);
    memory_ = planMemory(lifetimes);
    checkMemory(lifetimes, &memory_);
    arena_ = Tensor::allocate(DType::UInt8, {int64_t(memory_.arenaBytes)});
    executor_->setArena(arena_);
    for (size_t i = 0; i < planned.size(); ++i) {
        const Value& value = graph_.value(planned[i]);
        executor_->reserveBuffer(planned[i], Tensor::view(value.dtype, *value.shape.sizes(),
                                                          arena_.data() + memory_.offsets[i],
                                                          lifetimes[i].bytes, std::shared_ptr<const void>(arena_.sharedStorage())));
    }
}

void CpuPlan::listKernels() {
    for (NodeId id : executor_->order()) {
        const PreparedKernel* kernel = executor_->preparedKernel(id);
        nodes_.push_back({id, kernel ? kernel->name() : "reference"});
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

void checkCpuPlanFits(const Model& model, const CompileOptions& options) { CpuPlan(model, options, true); }

std::string cpuBackendMachine() {
    return onednn::cpuIsaName() + ", activations blocked by " + std::to_string(onednn::channelBlock()) + " channels";
}

} // namespace graphlens
