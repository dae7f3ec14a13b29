// The one way passes change a graph. The rewriter records each change into the pass result, so
// the rewrite log and provenance come for free: a node made from others carries the union of
// their provenance, and every removed or added node appears in the rewrite that caused it.
#pragma once

#include "core/passes/pass.h"

#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace graphlens {

class Rewriter {
public:
    Rewriter(Graph& graph, PassResult& result);
    ~Rewriter();
    Rewriter(const Rewriter&) = delete;
    Rewriter& operator=(const Rewriter&) = delete;

    /// Read access; mutate only through the rewriter.
    const Graph& graph() const { return graph_; }
    PassResult& result() { return result_; }

    // ---- changes (collected into the pending rewrite until commit) -------------------------
    /// Adds a node computing new values named after `outputNames` (made unique), with the union
    /// of the provenance of `from`.
    NodeId addNode(std::string opType, std::vector<ValueId> inputs,
                   const std::vector<std::string>& outputNames, Attributes attributes,
                   std::span<const NodeId> from, std::string name = {}, std::string domain = {});
    /// Which removed node's name the replacing node carries: the last one's (a sub-graph fusion
    /// is named after the node that wrote its result) or the first one's (a Conv or Gemm that took
    /// in the nodes after it keeps its own name, as it does in ONNX Runtime).
    enum class KeepName { OfLast, OfFirst };
    /// Removes `nodes` and puts one new node in their place that produces the outputs of
    /// `nodes.back()` (so consumers and graph outputs keep their values and names); provenance
    /// says which nodes it came from. Values only the removed nodes used or produced go too.
    /// Returns the new node.
    NodeId replaceNodes(std::span<const NodeId> nodes, std::string opType,
                        std::vector<ValueId> inputs, Attributes attributes,
                        std::string domain = {}, KeepName keep = KeepName::OfLast);
    NodeId replaceNodes(std::initializer_list<NodeId> nodes, std::string opType,
                        std::vector<ValueId> inputs, Attributes attributes,
                        std::string domain = {}, KeepName keep = KeepName::OfLast) {
        return replaceNodes(std::span<const NodeId>(nodes.begin(), nodes.size()), std::move(opType),
                            std::move(inputs), std::move(attributes), std::move(domain), keep);
    }
    /// Removes a single-output node whose output equals its input `input` (Identity, Dropout,
    /// a no-op Reshape...): consumers read the input instead. When the output is a graph output,
    /// the input's producer is made to produce it instead, keeping the model's interface.
    /// False (nothing changed) when neither is possible; `why` then says why.
    bool bypassNode(NodeId node, int input, std::string* why = nullptr);
    /// Removes a node and then every value it leaves dead.
    void removeNode(NodeId node);
    /// Removes `node` and turns each output it had into an initializer holding `tensors[i]`: the
    /// values keep their ids and names, so consumers and graph outputs are unaffected (constant
    /// folding). Outputs nothing reads go, and so do inputs the node leaves dead.
    void replaceByConstants(NodeId node, std::vector<Tensor> tensors);
    /// A new initializer with a unique name derived from `nameHint`.
    ValueId addInitializer(const std::string& nameHint, Tensor tensor);
    void replaceAllUses(ValueId from, ValueId to);
    void setNodeInput(NodeId node, int index, ValueId value);
    void setAttribute(NodeId node, std::string name, Attribute value);
    bool eraseAttribute(NodeId node, std::string_view name);
    /// Removes `value` when nothing reads or produces it and it is no graph input or output.
    bool eraseIfDead(ValueId value);
    /// Sets the type and shape of a value a rewrite made (when the pass knows them).
    void setValueInfo(ValueId value, DType dtype, Shape shape);
    /// Records that an operator of `domain` is now used (for the model's opset imports).
    void useDomain(const std::string& domain, int64_t version);

    /// Closes the pending changes into one rewrite with its kind and sentence.
    void commit(std::string kind, std::string sentence);
    /// Records why a pattern did not fire on `node`.
    void decline(NodeId node, std::string reason);
    void count(const std::string& counter, int64_t delta = 1) { result_.addToCounter(counter, delta); }
    bool hasPendingChanges() const { return !pending_.removed.empty() || !pending_.added.empty() || touched_; }

    std::string uniqueValueName(const std::string& hint) const;

private:
    NodeRef refOf(NodeId node) const;
    std::vector<NodeId> provenanceOf(std::span<const NodeId> nodes) const;

    Graph& graph_;
    PassResult& result_;
    Rewrite pending_;
    bool touched_ = false;  ///< an edit that neither adds nor removes nodes is pending
};

} // namespace graphlens
