// The CPU backend: plans a prepared model (prepare.h): an optimized kernel for every node one
// accepts, the reference kernel with the reason for the rest, and one activation arena laid out
// by the memory planner. Threads are OpenMP's, shared with oneDNN.
#include "core/runtime/backend.h"
#include "core/runtime/value_observer.h"
#include "core/runtime/cpu/conv_fusion.h"
#include "core/runtime/cpu/conv_tuning.h"
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/node_threads.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/cpu/onednn_layout.h"
#include "core/runtime/cpu/qdq_fusion.h"
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

namespace graphlens {
namespace {

/// Whether the node's data (input 0) has no elements. Other inputs may be empty on purpose
/// (Resize's roi and scales when sizes are given), and so may outputs (a Split size of 0).
bool hasEmptyTensor(const NodeDescriptor& info) {
    return !info.inputDims.empty() && std::find(info.inputDims[0].begin(), info.inputDims[0].end(), 0) != info.inputDims[0].end();
}

/// Whether an input or output of the node has more elements than int64 counts (a file may state
/// [3, 2^63 - 1]): the optimized kernels multiply sizes as they prepare (fuzzing: Softmax's rows
/// overflowed), so such a node goes to the reference kernels, which refuse it when it runs.
bool hasUncountableTensor(const NodeDescriptor& info) {
    const auto uncountable = [](const std::vector<int64_t>& dims) { return !checkedElementCount(dims); };
    return std::any_of(info.inputDims.begin(), info.inputDims.end(), uncountable) ||
           std::any_of(info.outputDims.begin(), info.outputDims.end(), uncountable);
}

/// "float[1,3,224,224], int64[2]": a node's input types and shapes, for a decline's sentence.
std::string inputsText(const NodeDescriptor& d) {
    std::string text;
    for (size_t i = 0; i < d.inputTypes.size(); ++i) {
        if (!text.empty()) text += ", ";
        text += d.hasInput(i) ? std::string(dtypeName(d.inputTypes[i])) + Shape::ofSizes(d.inputDims[i]).toString() : "omitted";
    }
    return text;
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

/// Passes events on with the node ids of the caller's graph (see CpuPlan's `fusions`): a fused
/// kernel's under the node it reports as, then one without time for each node it absorbed.
class ReportingObserver final : public ExecutionObserver {
public:
    ReportingObserver(ExecutionObserver* target, const PlanFusions& fusions) : target_(target), fusions_(fusions) {}
    void nodeFinished(const NodeEvent& event) override {
        NodeEvent e = event;
        if (auto it = fusions_.reportedAs.find(e.node); it != fusions_.reportedAs.end()) e.node = it->second;
        target_->nodeFinished(e);
        const auto absorbed = fusions_.absorbed.find(e.node);
        if (absorbed == fusions_.absorbed.end()) return;
        for (NodeId id : absorbed->second) {
            NodeEvent fused = e;
            fused.node = id;
            fused.beginNs = e.endNs;
            fused.bytesRead = fused.bytesWritten = 0;
            target_->nodeFinished(fused);
        }
    }

private:
    ExecutionObserver* target_;
    const PlanFusions& fusions_;
};

class CpuPlan final : public Plan {
public:
    /// `plainLayouts`: every activation stays in the plain layout, so a ValueObserver can read it.
    /// `fusions`: nodes the plan made (QDQ and kernel fusion), the node of the caller's graph each
    /// reports its events and kernel under, and the nodes each absorbed.
    CpuPlan(PreparedModel prepared, const CompileOptions& options, bool memoryCheckOnly = false, bool plainLayouts = false,
            PlanFusions fusions = {});

    std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds, ExecutionObserver* observer) override {
        omp_set_num_threads(threads_);
        ReportingObserver reporting(observer, fusions_);
        if (observer && (!fusions_.reportedAs.empty() || !fusions_.absorbed.empty())) observer = &reporting;
        std::optional<RunMemoryLimit> limit;
        if (budget_.fromOption) limit.emplace(budget_.bytes);
        if (!flushDenormals_) return executor_->run(feeds, observer);
        DenormalsAsZero scope;
        return executor_->run(feeds, observer);
    }
    const MemoryPlan& memoryPlan() const override { return memory_; }
    const std::vector<PlannedNode>& nodes() const override { return nodes_; }
    const std::vector<std::string>& preparation() const override { return preparation_; }

private:
    void claimNodes(int64_t opset, bool referenceOnly);
    std::map<ValueId, uint64_t> keepBlockedLayouts(int64_t opset);
    bool arenaHolds(ValueId v) const;
    std::vector<TensorLifetime> lifetimes(const std::map<ValueId, uint64_t>& bytesOf, std::vector<ValueId>& planned) const;
    void checkMemory(const std::vector<TensorLifetime>& lifetimes, const MemoryPlan* plan) const;
    void planArena(const std::map<ValueId, uint64_t>& bytesOf);
    void refreshKernelNames();
    void reportFusedNodes();

    Graph graph_;
    int threads_;
    bool flushDenormals_;
    bool subgraphs_ = false;  ///< sub-graphs read values by name: every value stays on the heap
    std::unique_ptr<GraphExecutor> executor_;
    MemoryPlan memory_;
    Tensor arena_;
    std::vector<PlannedNode> nodes_;
    MemoryBudget budget_;
    std::string openShapes_;  ///< why some shapes are known only at run time (PreparedModel)
    PlanFusions fusions_;
    std::vector<std::string> preparation_;
};

CpuPlan::CpuPlan(PreparedModel prepared, const CompileOptions& options, bool memoryCheckOnly, bool plainLayouts,
                 PlanFusions fusions)
    : threads_(options.threadCount()), flushDenormals_(options.flushDenormals), budget_(MemoryBudget::of(options.maxMemory)),
      openShapes_(std::move(prepared.openShapes)), fusions_(std::move(fusions)), preparation_(std::move(prepared.steps)) {
    const int64_t opset = prepared.model.opsetVersion();
    graph_ = std::move(prepared.model.graph);
    if (options.threads == 0 && !options.referenceOnly) {  // the count left to the plan (node_threads.h)
        std::string why;
        threads_ = planThreads(graph_, opset, threads_, &why);
        if (!why.empty()) preparation_.push_back(std::move(why));
    }
    executor_ = std::make_unique<GraphExecutor>(graph_, referenceKernels(), opset, threads_);
    const auto missing = executor_->unsupportedOps();
    if (!missing.empty())
        throw ExecutionError("the cpu backend does not support these ops of the model: " + joinOpNames(missing),
                             ErrorKind::UnsupportedOp);
    {
        // Before any kernel is prepared (oneDNN sizes its scratch buffers from the shapes): the
        // arena without in-place reuse, an upper bound of the one planned below.
        std::vector<ValueId> planned;
        checkMemory(lifetimes({}, planned), nullptr);
    }
    if (memoryCheckOnly) return;
    takeConvTuningCounts();  // what this plan's kernels measure (conv_tuning.h)
    claimNodes(opset, options.referenceOnly);
    planArena(options.referenceOnly || plainLayouts ? std::map<ValueId, uint64_t>() : keepBlockedLayouts(opset));
    if (std::string tuned = convTuningLine(takeConvTuningCounts()); !tuned.empty()) preparation_.push_back(std::move(tuned));
    refreshKernelNames();  // a kernel kept in a blocked layout names it
    reportFusedNodes();
}

/// Each node gets its optimized kernel where one accepts it, else the reference kernel, and the
/// plan says why for each of those.
void CpuPlan::claimNodes(int64_t opset, bool referenceOnly) {
    size_t singleThreaded = 0;
    for (NodeId id : executor_->order()) {
        const Node& n = graph_.node(id);
        subgraphs_ = subgraphs_ || nodeHasSubgraph(n);
        PlannedNode planned{id, "reference", "cpu", {}};
        if (referenceOnly) {
            planned.why = "reference kernels were asked for";
        } else {
            std::string open;
            const auto descriptor = describeNode(graph_, n, opset, cpuNodeThreads(graph_, n, threads_), &open);
            CpuClaim claim = claimOnCpu(descriptor, n, openShapes_.empty() ? open : openShapes_);
            if (claim.kernel) {
                singleThreaded += threads_ > 1 && descriptor && descriptor->threads == 1;
                planned.kernel = claim.kernel->name();
                executor_->setPreparedKernel(id, std::move(claim.kernel));
            }
            planned.why = std::move(claim.why);
        }
        nodes_.push_back(std::move(planned));
    }
    if (singleThreaded > 0)
        preparation_.push_back("ran " + std::to_string(singleThreaded) + " small product" + (singleThreaded == 1 ? "" : "s") +
                               " (under " + std::to_string(smallProductFlops()) + " FLOPs) on one thread");
}

/// Activations passed between oneDNN kernels stay in their blocked layout where the arena holds
/// them; returns the bytes each such value takes (see onednn_layout.h).
std::map<ValueId, uint64_t> CpuPlan::keepBlockedLayouts(int64_t opset) {
    const onednn::LayoutPlanInputs inputs{
        graph_, *executor_, [this](ValueId v) { return arenaHolds(v); },
        [this, opset](NodeId id) {
            const Node& n = graph_.node(id);
            return describeNode(graph_, n, opset, cpuNodeThreads(graph_, n, threads_));
        }};
    return onednn::keepActivationsBlocked(inputs);
}

/// Every intermediate with a static shape gets a slot in the arena; graph outputs, values read
/// from sub-graphs and strings stay on the heap.
bool CpuPlan::arenaHolds(ValueId v) const {
    const Value& value = graph_.value(v);
    return value.producer() != kNoId && value.shape.sizes() && !graph_.isGraphOutput(v) && !subgraphs_ &&
           value.dtype != DType::String && value.dtype != DType::Undefined && !value.uses().empty();
}

/// The lifetime and size of every value the arena holds, in the order they are produced
/// (`planned`); `bytesOf` overrides the size of values not stored as plain tensors.
std::vector<TensorLifetime> CpuPlan::lifetimes(const std::map<ValueId, uint64_t>& bytesOf,
                                               std::vector<ValueId>& planned) const {
    const auto& order = executor_->order();
    std::map<ValueId, int> producedAt, lastRead;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const Node& n = graph_.node(order[pos]);
        for (ValueId in : n.inputs())
            if (in != kNoId) lastRead[in] = int(pos);
        for (ValueId out : n.outputs()) producedAt[out] = int(pos);
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
            throw ResourceError("node '" + graph_.node(value.producer()).name + "' (" + graph_.node(value.producer()).opType +
                                "): its output '" + value.name + "' of shape " + value.shape.toString() +
                                " has more bytes than 64 bits can count");
        TensorLifetime t;
        t.bytes = *bytes;
        if (auto it = bytesOf.find(v); it != bytesOf.end()) t.bytes = std::max(t.bytes, it->second);
        t.firstStep = pos;
        t.lastStep = std::max(pos, lastRead.count(v) ? lastRead[v] : pos);
        const PreparedKernel* kernel = executor_->preparedKernel(value.producer());
        const Node& producer = graph_.node(value.producer());
        // In place on an input other than 0 only where no other input is the same value (a
        // convolution's residual that is also its source would be overwritten while read).
        const int shared = kernel ? kernel->inPlaceInput() : -1;
        const auto& ins = producer.inputs();
        if (shared >= 0 && value.producerOutput() == 0 && size_t(shared) < ins.size() &&
            (shared == 0 || std::count(ins.begin(), ins.end(), ins[size_t(shared)]) == 1))
            if (auto it = indexOf.find(ins[size_t(shared)]); it != indexOf.end()) t.inPlaceOf = it->second;
        indexOf[v] = int(result.size());
        planned.push_back(v);
        result.push_back(t);
    }
    // A Concat that only copies its inputs side by side into its output finds them in place:
    // each input the arena holds, read once by it, of the piece's size and in no other Concat,
    // lives inside the Concat's output (its producer writes there directly).
    for (const auto& [pos, v] : byPosition) {
        const auto owner = indexOf.find(v);
        if (owner == indexOf.end() || graph_.value(v).producerOutput() != 0) continue;
        const NodeId id = graph_.value(v).producer();
        const PreparedKernel* kernel = executor_->preparedKernel(id);
        const std::vector<PreparedKernel::Piece> pieces = kernel ? kernel->inputPieces() : std::vector<PreparedKernel::Piece>();
        const auto& ins = graph_.node(id).inputs();
        if (pieces.size() != ins.size()) continue;
        for (size_t i = 0; i < pieces.size(); ++i) {
            const auto part = indexOf.find(ins[i]);
            if (part == indexOf.end() || std::count(ins.begin(), ins.end(), ins[i]) != 1) continue;
            TensorLifetime& t = result[size_t(part->second)];
            if (t.partOf >= 0 || t.bytes != pieces[i].bytes) continue;
            t.partOf = owner->second;
            t.offsetInOwner = pieces[i].offset;
        }
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

void CpuPlan::refreshKernelNames() {
    for (PlannedNode& planned : nodes_)
        if (const PreparedKernel* kernel = executor_->preparedKernel(planned.node)) planned.kernel = kernel->name();
}

/// Planned nodes in the caller's terms: a node the plan made under the node it reports as, each
/// node it absorbed right after it (the memory alive at that step repeated), fused into it.
void CpuPlan::reportFusedNodes() {
    std::vector<PlannedNode> nodes;
    std::vector<uint64_t> live;
    const std::vector<uint64_t>& planned = memory_.liveBytes;
    for (size_t step = 0; step < nodes_.size(); ++step) {
        PlannedNode n = std::move(nodes_[step]);
        if (auto it = fusions_.reportedAs.find(n.node); it != fusions_.reportedAs.end()) n.node = it->second;
        const NodeId reported = n.node;
        const std::string kernel = "fused into " + n.kernel.substr(0, n.kernel.find('['));  // the layout aside
        nodes.push_back(std::move(n));
        if (step < planned.size()) live.push_back(planned[step]);
        const auto absorbed = fusions_.absorbed.find(reported);
        if (absorbed == fusions_.absorbed.end()) continue;
        for (NodeId id : absorbed->second) {
            nodes.push_back(PlannedNode{id, kernel, "cpu", {}, reported});
            if (step < planned.size()) live.push_back(planned[step]);
        }
    }
    nodes_ = std::move(nodes);
    memory_.liveBytes = std::move(live);
}

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::unique_ptr<Plan> compilePrepared(PreparedModel prepared, const CompileOptions& options) override {
        // QDQ convolutions and products run on the int8 kernels, and convolutions take in the
        // nodes after them (conv_fusion.h); reference plans (the oracle) keep the graph.
        PlanFusions fusions;
        if (!options.referenceOnly) {
            fuseQdqConvolutions(prepared, &fusions.reportedAs);
            fuseQdqMatMuls(prepared, &fusions.reportedAs);
            fuseQdqLookupTables(prepared, &fusions.reportedAs);
            fuseQdqSqueezeExcitation(prepared, &fusions.reportedAs);
            fuseQdqSelections(prepared, &fusions.reportedAs);
        }
        dequantizeConstantWeights(prepared);
        if (!options.referenceOnly && options.fuseKernels) fuseConvolutionKernels(prepared, fusions);
        return std::make_unique<CpuPlan>(std::move(prepared), options, false, false, std::move(fusions));
    }
};

} // namespace

CpuClaim claimOnCpu(const std::optional<NodeDescriptor>& node, const Node& n, const std::string& openShapes) {
    if (!cpuKernels().has(OpKey::of(n)))
        return {nullptr, "no optimized CPU kernel for " + OpKey::of(n).toString()};
    if (!node) return {nullptr, "its shapes are known only when the model runs: " + openShapes};
    // Empty data (a zero batch) runs on the reference kernels, which handle it; the optimized
    // ones divide by its sizes.
    if (hasEmptyTensor(*node)) return {nullptr, "its data has no elements"};
    if (hasUncountableTensor(*node)) return {nullptr, "its data has more elements than 64 bits count"};
    if (!node->allOutputsGiven()) return {nullptr, "an output of it is omitted"};
    if (auto kernel = cpuKernels().prepare(*node)) return {std::move(kernel), {}};
    return {nullptr, "the optimized CPU kernels for " + OpKey::of(n).toString() + " decline these inputs (" +
                         inputsText(*node) + ") or attributes"};
}

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

void checkCpuPlanFits(const Model& model, const CompileOptions& options) {
    CpuPlan(prepareModel(model, options.inputShapes), options, true);
}

std::unique_ptr<Plan> compileObservableCpuPlan(const Model& model, const CompileOptions& options) {
    PreparedModel prepared = prepareModel(model, options.inputShapes);
    dequantizeConstantWeights(prepared);  // every value as the graph computes it, in float
    return std::make_unique<CpuPlan>(std::move(prepared), options, false, true);
}

std::string cpuBackendMachine() {
    return onednn::cpuIsaName() + ", activations blocked by " + std::to_string(onednn::channelBlock()) + " channels";
}

} // namespace graphlens
