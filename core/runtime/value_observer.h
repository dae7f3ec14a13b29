// Per-value events: an execution observer that also sees each tensor the moment its node produced
// it, before the plan reuses the memory. The comparison engine (core/compare) copies the values it
// needs from here instead of making every intermediate a graph output, which would keep them all
// alive at once and change the plan it means to check.
#pragma once

#include "core/runtime/backend.h"
#include "core/runtime/observer.h"

#include <memory>

namespace graphlens {

class ValueObserver : public ExecutionObserver {
public:
    /// Called after `node` of the plan's graph ran, once for each of its outputs; `tensor` is in
    /// the plain (row-major) layout and valid only during the call. Copy what must outlive it.
    virtual void valueProduced(const Graph& graph, const Node& node, ValueId value, const Tensor& tensor) = 0;
    void nodeFinished(const NodeEvent&) override {}
};

/// A CPU plan whose runs report every computed value to a ValueObserver passed to Plan::run. It is
/// the plan makeCpuBackend() compiles, except that activations between oneDNN kernels stay in the
/// plain layout (a blocked value would reach the observer scrambled). Throws what compile throws.
std::unique_ptr<Plan> compileObservableCpuPlan(const Model& model, const CompileOptions& options);

} // namespace graphlens
