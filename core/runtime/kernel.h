// The kernel interface shared by every backend's CPU-side kernels: a kernel reads its node's
// inputs and attributes through a KernelContext and writes outputs the context allocates.
#pragma once

#include "core/graph/graph.h"
#include "core/graph/op_key.h"

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace graphlens {

/// A kernel's complaint about its inputs or attributes: one sentence, without the node's name
/// (the executor adds "node 'X' (Op): ").
class KernelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class KernelContext;
using KernelFn = void (*)(KernelContext&);
/// Runs a sub-graph (If/Loop/Scan bodies) with `inputs` for its graph inputs; values it reads
/// from enclosing scopes are looked up by name in the caller's frame.
/// The inputs are moved into the sub-graph's frame, so a value the body consumes (a sequence a
/// Loop carries) has no other holder.
using SubgraphRunner = std::function<std::vector<Tensor>(const Graph&, std::vector<Tensor>)>;

class KernelContext {
public:
    KernelContext(const Node& node, int64_t opset, std::vector<const Tensor*> inputs,
                  int threads = 1, SubgraphRunner subgraphs = {});

    const Node& node() const { return node_; }
    const Attributes& attributes() const { return node_.attributes; }
    int64_t opset() const { return opset_; }
    int threads() const { return threads_; }

    /// Number of input slots, omitted optional inputs included.
    size_t inputCount() const { return inputs_.size(); }
    /// True when input `i` exists and was not omitted.
    bool hasInput(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
    /// Input `i`; throws KernelError when it is missing.
    const Tensor& input(size_t i) const;
    /// Input `i` for keeping: moved out of the caller's frame when this node is its last reader
    /// (input(i) is then empty), else a copy. Sequence kernels take their sequence this way so that
    /// Tensor::releaseElements() can reuse its elements.
    Tensor takeInput(size_t i);
    /// The caller's slots of inputs this node reads last, by input index (null where another
    /// node or slot still reads the value).
    void setLastReads(std::vector<Tensor*> lastReaders) { lastReads_ = std::move(lastReaders); }

    size_t outputCount() const { return node_.outputs().size(); }
    /// A new zero-filled output tensor; fill it through Tensor::mutableData()/mutableSpan().
    /// When the plan reserved a buffer for this output with the same type and shape (in its
    /// arena), that buffer is cleared and returned instead of a new allocation.
    Tensor& allocateOutput(size_t i, DType dtype, std::vector<int64_t> dims);
    /// Buffers the plan reserved for the outputs (empty Tensors where it reserved none).
    void setReservedOutputs(std::vector<Tensor> reserved) { reserved_ = std::move(reserved); }
    /// Sets output `i` to an existing tensor (Identity, Reshape: no copy).
    void setOutput(size_t i, Tensor tensor);
    std::vector<Tensor>& outputs() { return outputs_; }

    std::vector<Tensor> runSubgraph(const Graph& graph, std::vector<Tensor> inputs) const;

private:
    const Node& node_;
    int64_t opset_;
    std::vector<const Tensor*> inputs_;
    std::vector<Tensor*> lastReads_;
    std::vector<Tensor> outputs_;
    std::vector<Tensor> reserved_;
    int threads_;
    SubgraphRunner subgraphs_;
};

/// A kernel prepared for one node with known static shapes (weights already packed): the
/// optimized CPU kernels. Outputs arrive allocated with their planned shapes.
class PreparedKernel {
public:
    virtual ~PreparedKernel() = default;
    virtual std::string name() const = 0;  ///< "onednn:conv", "cpu:binary", ...
    /// True when output 0 may share its buffer with input 0 (element-wise ops).
    virtual bool writesInPlace() const { return false; }
    /// The input whose buffer output 0 may share, -1 for none: input 0 where writesInPlace(),
    /// or another (a convolution's residual, which the result is accumulated onto).
    virtual int inPlaceInput() const { return writesInPlace() ? 0 : -1; }
    /// Where each input lies in output 0 (byte offset and size) when the kernel only copies its
    /// inputs side by side into it (a Concat with one outer row), empty otherwise: the plan may
    /// then place the inputs there, and run() skips the copy of an input it finds in place.
    struct Piece {
        uint64_t offset = 0, bytes = 0;
    };
    virtual std::vector<Piece> inputPieces() const { return {}; }
    virtual void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) = 0;
};

/// Kernels by (domain, op type).
class KernelRegistry {
public:
    void add(std::string op, KernelFn fn, std::string domain = {});
    /// nullptr when no kernel is registered.
    KernelFn find(const OpKey& key) const;
    KernelFn find(std::string_view domain, std::string_view op) const { return find(OpKey(domain, op)); }
    std::vector<OpKey> ops() const;  ///< sorted

private:
    std::map<OpKey, KernelFn> kernels_;
};

/// Every reference kernel: plain, readable loops; the oracle the optimized kernels are tested
/// against.
const KernelRegistry& referenceKernels();

} // namespace graphlens
