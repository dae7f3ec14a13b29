// The backend interface: a backend compiles a graph into a plan (a kernel per node, a memory plan,
// pre-packed weights); a plan runs many times. Compiling is two steps: the shared preparation
// (prepare.h: shapes made concrete, shape arithmetic folded, weights dequantized), then the
// backend claims each node of the prepared graph, the way ONNX Runtime's execution providers
// answer GetCapability: it runs a node on its own kernel or says why not, and that node runs on
// the CPU's (optimized or reference) kernel instead. Every planned node carries where it runs
// and why.
#pragma once

#include "core/graph/model.h"
#include "core/runtime/memory_planner.h"
#include "core/runtime/observer.h"
#include "core/runtime/prepare.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graphlens {

struct CompileOptions {
    int threads = 0;  ///< 0: every core
    /// Concrete shapes of the graph inputs; inputs not listed keep the model's static shapes.
    std::map<std::string, std::vector<int64_t>> inputShapes;
    bool referenceOnly = false;  ///< run every node with its reference kernel (the oracle)
    /// Fuse kernels where the graph allows it without a rewrite the caller sees (the CPU plan's
    /// conv_fusion.h); off for tests of the unfused kernels.
    bool fuseKernels = true;
    /// Treat denormal floats as zero while running (x86 FTZ/DAZ), as inference engines do.
    bool flushDenormals = true;
    /// Refuse a plan whose arena plus weights exceed this many bytes; 0: the memory available
    /// now (MemAvailable).
    uint64_t maxMemory = 0;

    /// The threads a plan uses: `threads`, or every core when it is 0.
    int threadCount() const;
};

/// How one node runs in a plan, for `describe`, `bench --by-op`, the profiler and the window.
struct PlannedNode {
    NodeId node = kNoId;
    std::string kernel;          ///< "onednn:conv", "cpu:relu", "reference", "vulkan:conv-gemm", ...
    std::string device = "cpu";  ///< where it runs: "cpu" or "vulkan"
    /// Why it runs there and not on the backend's own fast path ("no shader for Gather", "its
    /// shapes are known only when the model runs: ..."); empty when the backend's own optimized
    /// kernel (a shader on Vulkan) runs it.
    std::string why;
    /// The node whose kernel computes this one too (a BatchNormalization or an activation fused
    /// into a Conv's kernel); kernel then says "fused into ..." and its events take no time.
    NodeId fusedInto = kNoId;
};

class Plan {
public:
    virtual ~Plan() = default;
    /// Runs with inputs by name; returns the graph outputs in order. Throws ExecutionError.
    virtual std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds,
                                    ExecutionObserver* observer = nullptr) = 0;
    virtual const MemoryPlan& memoryPlan() const = 0;
    virtual const std::vector<PlannedNode>& nodes() const = 0;
    /// What the shared preparation did for this plan (PreparedModel::steps).
    virtual const std::vector<std::string>& preparation() const = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    /// Prepares `model` for `options.inputShapes` (prepareModel) and compiles the result. Throws
    /// ExecutionError naming unsupported ops or shapes, with its kind.
    std::unique_ptr<Plan> compile(const Model& model, const CompileOptions& options) {
        return compilePrepared(prepareModel(model, options.inputShapes), options);
    }
    /// Compiles an already prepared model (its input shapes are options.inputShapes').
    virtual std::unique_ptr<Plan> compilePrepared(PreparedModel prepared, const CompileOptions& options) = 0;
};

std::unique_ptr<Backend> makeCpuBackend();
/// Compiles `model` for the CPU only as far as the memory check (validation, shape inference, the
/// arena without in-place reuse plus the weights): throws what compile would throw there
/// (ValidationError, ResourceError), allocates nothing. For callers about to allocate large inputs.
void checkCpuPlanFits(const Model& model, const CompileOptions& options);
/// What the CPU backend's optimized kernels compute with on this machine, for benchmark reports:
/// "AVX-512 with VNNI, activations blocked by 16 channels" (oneDNN's ISA limit, ONEDNN_MAX_CPU_ISA,
/// counts).
std::string cpuBackendMachine();

} // namespace graphlens
