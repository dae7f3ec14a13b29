// Runs a graph node by node with kernels from a registry, in topological order, freeing each
// intermediate tensor after its last use. The reference executor is the oracle of the tests; the
// CPU backend builds on it.
#pragma once

#include "core/runtime/errors.h"
#include "core/runtime/kernel.h"
#include "core/runtime/observer.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace graphlens {


class GraphExecutor {
public:
    /// Looks up values of enclosing graphs by name (for sub-graphs).
    using OuterLookup = std::function<const Tensor*(const std::string&)>;

    GraphExecutor(const Graph& graph, const KernelRegistry& kernels, int64_t opset, int threads = 1);

    /// Runs `node` with a prepared kernel instead of the registry's. Its outputs need static
    /// shapes in the graph.
    void setPreparedKernel(NodeId node, std::unique_ptr<PreparedKernel> kernel);
    /// Gives `value` a fixed buffer (a view into the plan's arena `arena`) reused on every run.
    void reserveBuffer(ValueId value, Tensor buffer);
    /// The arena the reserved buffers view: a kernel output that aliases it elsewhere (a
    /// forwarding kernel returning its input) is copied into the output's own buffer.
    void setArena(Tensor arena) { arena_ = std::move(arena); }
    const PreparedKernel* preparedKernel(NodeId node) const;
    PreparedKernel* preparedKernel(NodeId node);  ///< for plan-time decisions (layouts) before any run
    /// The position of each node in execution order, and of each value's last reader.
    const std::vector<NodeId>& order() const { return order_; }

    /// Ops without a kernel, sorted; empty when the graph can run.
    std::vector<OpKey> unsupportedOps() const;

    /// The graph inputs a caller must (or, with an initializer default, may) feed.
    std::vector<ValueId> feedableInputs() const;

    /// Runs with inputs by name; returns the graph outputs in order.
    std::vector<Tensor> run(const std::map<std::string, Tensor>& feeds,
                            ExecutionObserver* observer = nullptr);
    /// Runs with inputs in graph-input order (an empty Tensor takes the initializer default).
    std::vector<Tensor> runPositional(std::vector<Tensor> inputs,
                                      ExecutionObserver* observer = nullptr,
                                      const OuterLookup& outer = {});

private:
    void checkFeed(const Value& input, const Tensor& tensor) const;
    void runNode(const Node& node, std::vector<Tensor>& values, ExecutionObserver* observer,
                 const OuterLookup& lookup);
    void runKernel(const Node& node, std::vector<const Tensor*> inputs, std::vector<Tensor>& values,
                   std::vector<Tensor>& outputs, const OuterLookup& lookup);
    Tensor outputBuffer(ValueId value) const;

    const Graph& graph_;
    const KernelRegistry& kernels_;
    int64_t opset_;
    int threads_;
    std::vector<NodeId> order_;
    std::vector<KernelFn> kernelOf_;          ///< by node id
    std::vector<std::unique_ptr<PreparedKernel>> prepared_;  ///< by node id
    std::vector<Tensor> reserved_;            ///< by value id
    Tensor arena_;
    std::vector<std::vector<ValueId>> freeAfter_;  ///< by position in order_
    std::vector<uint64_t> lastReads_;  ///< by node id: the input slots whose value the node reads last
    std::map<const Graph*, std::unique_ptr<GraphExecutor>> subExecutors_;
};

/// "A, com.microsoft:B, C": ops for a message, each as OpKey::toString() spells it.
std::string joinOpNames(const std::vector<OpKey>& ops);

/// Runs `model`'s graph once with the reference kernels (single thread).
std::vector<Tensor> runReference(const Graph& graph, int64_t opset,
                                 const std::map<std::string, Tensor>& feeds);

} // namespace graphlens
