// The blocked-layout pass of onednn_layout.h: producers offer the blocked layout they write,
// a value stays blocked where every consumer reads exactly that layout, and variants that pay
// off only inside a chain are dropped, with what they read and wrote, until nothing changes.
#include "core/runtime/cpu/onednn_layout.h"

#include "core/graph/activation_kinds.h"
#include "core/graph/op_key.h"
#include "core/runtime/cpu/onednn_internal.h"
#include "core/runtime/executor.h"

#include <algorithm>
#include <set>

namespace graphlens::onednn {

namespace {

bool isConvolution(const Node& n) { return n.opType == "Conv" || n.opType == "FusedConv" || n.opType == "ConvTranspose"; }
bool isWindowPool(const Node& n) { return n.opType == "MaxPool" || n.opType == "AveragePool"; }
bool isChannelwise(const Node& n) { return n.opType == "GlobalAveragePool" || n.opType == "Add" || n.opType == "Mul"; }

/// BatchNormalization and the element-wise activations, blocked in and out.
bool isPerElement(const Node& n) { return n.opType == "BatchNormalization" || activationKindOfOp(n.domain, n.opType); }

bool hasBlockedVariant(const Node& n) {
    const bool known = isDefaultDomain(n.domain) || n.domain == "com.microsoft";
    return known && (isConvolution(n) || isWindowPool(n) || isChannelwise(n) || isPerElement(n) || n.opType == "Concat");
}

} // namespace

std::unique_ptr<PreparedKernel> prepareBlockedVariant(const NodeDescriptor& info,
                                                      const std::vector<const dnnl::memory::desc*>& inputs) {
    const Node& n = info.node;
    if (!hasBlockedVariant(n)) return nullptr;
    if (isConvolution(n)) return prepareBlockedConv(info);
    if (n.opType == "GlobalAveragePool") return inputs.at(0) ? prepareBlockedGlobalAveragePool(info, *inputs[0]) : nullptr;
    if (isChannelwise(n)) return prepareBlockedBinary(info, inputs);
    if (n.opType == "Concat") return prepareBlockedConcat(info, inputs);
    if (!inputs.at(0)) return nullptr;
    if (n.opType == "BatchNormalization") return prepareBlockedBatchNorm(info, *inputs[0]);
    if (isPerElement(n)) return prepareBlockedActivation(info, *inputs[0]);
    return inputs.at(0) ? prepareBlockedPool(info, *inputs[0]) : nullptr;
}

namespace {

/// How one node could exchange blocked activations: through its own kernel, or through a
/// variant that replaces it if chosen (see prepareBlockedVariant).
struct Candidate {
    BlockedLayoutKernel* layout = nullptr;
    std::unique_ptr<PreparedKernel> variant;
};

class LayoutPlanner {
public:
    explicit LayoutPlanner(const LayoutPlanInputs& plan) : plan_(plan), graph_(plan.graph) {}

    std::map<ValueId, uint64_t> decide() {
        for (NodeId id : plan_.executor.order()) findCandidate(id);
        for (const auto& [value, desc] : offered_)
            if (everyConsumerReads(value, desc)) blocked_.insert(value);
        while (dropUnpaidVariants()) continue;
        return apply();
    }

private:
    /// In execution order, so a producer's offer is known when its consumers look for variants.
    void findCandidate(NodeId id) {
        const Node& n = graph_.node(id);
        if (n.outputs().empty() || n.inputs().empty()) return;
        Candidate c;
        auto* own = dynamic_cast<BlockedLayoutKernel*>(plan_.executor.preparedKernel(id));
        if (own && (own->blockedInput(0) || own->blockedOutput())) {
            c.layout = own;
        } else if (auto info = hasBlockedVariant(n) ? plan_.describe(id) : std::nullopt) {
            std::vector<const dnnl::memory::desc*> offers;
            for (ValueId v : n.inputs()) {
                auto in = offered_.find(v);
                offers.push_back(in == offered_.end() ? nullptr : &in->second);
            }
            c.variant = prepareBlockedVariant(*info, offers);
            c.layout = dynamic_cast<BlockedLayoutKernel*>(c.variant.get());
        }
        if (!c.layout) return;
        if (auto out = c.layout->blockedOutput()) offered_.emplace(n.output(0), *out);
        candidates_.emplace(id, std::move(c));
    }

    bool everyConsumerReads(ValueId value, const dnnl::memory::desc& desc) const {
        const Value& v = graph_.value(value);
        if (v.uses().empty() || graph_.isGraphOutput(value) || !plan_.inArena(value)) return false;
        for (const Use& use : v.uses()) {
            auto it = candidates_.find(use.node);
            if (it == candidates_.end() || it->second.layout->blockedInput(size_t(use.input)) != desc) return false;
        }
        return true;
    }

    /// A variant is used only when everything it reads or writes blocked stays blocked;
    /// otherwise the node's own kernel runs, on plain values only.
    bool dropUnpaidVariants() {
        bool changed = false;
        for (const auto& [id, c] : candidates_) {
            const Node& n = graph_.node(id);
            if (!c.variant || variantPaysOff(n, *c.layout)) continue;
            for (const auto* values : {&n.inputs(), &n.outputs()})
                for (ValueId v : *values) changed = blocked_.erase(v) > 0 || changed;
        }
        return changed;
    }

    bool variantPaysOff(const Node& n, const BlockedLayoutKernel& variant) const {
        for (size_t i = 0; i < n.inputs().size(); ++i)
            if (variant.blockedInput(i) && !blocked_.count(n.input(i))) return false;
        return !variant.blockedOutput() || blocked_.count(n.output(0));
    }

    std::map<ValueId, uint64_t> apply() {
        for (auto& [id, c] : candidates_) {
            const Node& n = graph_.node(id);
            std::vector<bool> inputs;
            for (ValueId v : n.inputs()) inputs.push_back(blocked_.count(v) > 0);
            const bool output = blocked_.count(n.output(0)) > 0;
            if (!output && std::find(inputs.begin(), inputs.end(), true) == inputs.end()) continue;
            c.layout->keepBlocked(inputs, output);
            if (c.variant) plan_.executor.setPreparedKernel(id, std::move(c.variant));
        }
        std::map<ValueId, uint64_t> bytes;
        for (ValueId v : blocked_) bytes[v] = uint64_t(offered_.at(v).get_size());
        return bytes;
    }

    const LayoutPlanInputs& plan_;
    const Graph& graph_;
    std::map<NodeId, Candidate> candidates_;
    std::map<ValueId, dnnl::memory::desc> offered_;  ///< the blocked layout each producer can write
    std::set<ValueId> blocked_;
};

} // namespace

std::map<ValueId, uint64_t> keepActivationsBlocked(const LayoutPlanInputs& plan) {
    return LayoutPlanner(plan).decide();
}

} // namespace graphlens::onednn
