// Blocked activations between oneDNN kernels: a plan-time pass decides which values stay in the
// blocked layout oneDNN computes in (nChw8c and the like) from producer to consumers, so the
// kernels on both sides skip their reorders to NCHW and back.
#pragma once

#include "core/runtime/cpu/cpu_kernel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace graphlens {

class GraphExecutor;

namespace onednn {

/// A prepared kernel that can read some inputs and write its output 0 in a blocked layout.
/// By default it exchanges plain (NCHW) tensors and reorders inside run(); the plan may tell it
/// that neighbours pass those values blocked instead.
class BlockedLayoutKernel {
public:
    virtual ~BlockedLayoutKernel() = default;
    /// The blocked layout the kernel would read input `i` in, or nullopt when it reads it plain.
    virtual std::optional<dnnl::memory::desc> blockedInput(size_t i) const = 0;
    /// The blocked layout the kernel would write output 0 in, or nullopt when it writes plain.
    virtual std::optional<dnnl::memory::desc> blockedOutput() const = 0;
    /// The plan's decision: input `i` arrives in blockedInput(i) where `inputs[i]`, and output 0
    /// is left in blockedOutput() when `output`. Called at most once, before any run().
    virtual void keepBlocked(const std::vector<bool>& inputs, bool output) = 0;
};

/// A variant of the node's kernel that computes blocked, for when its neighbours are blocked
/// too: convolutions that alone run faster on NCHW (large 1x1, an image's first conv); pooling,
/// GlobalAveragePool (its [N, C, 1...] output plain), Add/Mul (same shapes or one value per
/// channel) and Concat along channels that are multiples of the block (SqueezeNet's Fire modules),
/// which read the layouts their producers write: `inputs[i]` is the blocked layout
/// input i's producer offers, nullptr when it writes plain. nullptr when there is none. A
/// variant is worth it only when every value it would read or write blocked stays blocked.
std::unique_ptr<PreparedKernel> prepareBlockedVariant(const NodeDescriptor& info,
                                                      const std::vector<const dnnl::memory::desc*>& inputs);

/// What the plan needs from its backend to decide layouts.
struct LayoutPlanInputs {
    const Graph& graph;
    GraphExecutor& executor;  ///< holds each node's prepared kernel; variants replace them
    /// True when the plan gives `value` a buffer of its own in the arena (blocked values need one).
    std::function<bool(ValueId)> inArena;
    /// The node's static shapes and constants, to prepare variants.
    std::function<std::optional<NodeDescriptor>(NodeId)> describe;
};

/// Keeps a value blocked when its producer can write it blocked, every consumer reads that very
/// layout (memory descriptors compare equal) and it lives in the arena (so no graph output and
/// nothing the caller sees). Tells the kernels, installs the variants it chose, and returns the
/// byte size of each blocked value (channel blocks pad: it may exceed the plain tensor's).
std::map<ValueId, uint64_t> keepActivationsBlocked(const LayoutPlanInputs& plan);

} // namespace onednn
} // namespace graphlens
