// The QDQ patterns of qdq_fusion.h whose op only selects or moves values, so it can run on the
// int8 codes themselves:
//   DequantizeLinear(x_q; s, z) -> MaxPool -> QuantizeLinear(s, z) -> MaxPool(x_q)
// as ONNX Runtime's QDQ transformer drops such pairs. Dequantizing with a positive scale keeps
// the codes' order, so the largest value of a window is the largest code's, and quantizing it
// again with the same scale and zero point gives that code back (v / s is within two float
// roundings of the integer q - z, far inside the half step that rounds to it).
//   DequantizeLinear(x_k; s_k, z_k) for every input -> Concat -> QuantizeLinear(s, z)
//     -> com.microsoft QLinearConcat(s, z, x_1, s_1, z_1, ...)
// whose kernel maps each input's codes to the output's through a table (qlinear_concat.cpp).
// Both then read the u8/s8 tensors int8 convolutions wrote channels-last, instead of float copies.
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/cpu/qdq_patterns.h"

#include "core/passes/pass_manager.h"
#include "core/passes/rewriter.h"
#include "core/runtime/node_descriptor.h"

#include <algorithm>

namespace graphlens {
namespace {

using namespace qdq;

/// The zero point a QuantizeLinear or DequantizeLinear applies (0 without one).
double zeroPointValue(const Graph& g, const Node& n) {
    return n.inputs().size() > 2 && n.input(2) != kNoId ? g.constantValue(n.input(2))->toDoubles()[0] : 0.0;
}

class FuseQdqPoolsAndConcats final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-pool-concat"; }
    std::string title() const override { return "Run QDQ max pooling and concatenation on the int8 codes"; }
    std::string explanation() const override {
        return "DequantizeLinear -> MaxPool -> QuantizeLinear with the same scale and zero point on both sides pools "
               "the int8 codes themselves: the largest code dequantizes to the largest value. DequantizeLinear on "
               "every input -> Concat -> QuantizeLinear becomes QLinearConcat, which maps each input's codes to the "
               "output's through a 256-entry table.";
    }
    std::map<NodeId, NodeId> replaced;
    int64_t pools = 0, concats = 0;

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Node& n = rw.graph().node(id);
            if (!n.domain.empty()) continue;
            if (n.opType == "MaxPool" || n.opType == "GlobalMaxPool") fusePool(rw, n);
            else if (n.opType == "Concat" && !n.inputs().empty()) fuseConcat(rw, n);
        }
    }

private:
    void fusePool(Rewriter& rw, const Node& pool) {
        const Graph& g = rw.graph();
        if (pool.outputs().size() > 1 && pool.output(1) != kNoId) return;  // Indices: positions in the float tensor
        const Node* dq = perTensorDequantizer(g, pool.input(0));
        const Node* q = perTensorQuantizerAfter(g, pool.output(0));
        if (!dq || !q) return;
        const DType type = valueType(g, dq->input(0));
        if (quantizedType(g, *q) != type) return;
        const float dqScale = float(g.constantValue(dq->input(1))->toDoubles()[0]);
        const float qScale = float(g.constantValue(q->input(1))->toDoubles()[0]);
        if (dqScale != qScale || zeroPointValue(g, *dq) != zeroPointValue(g, *q)) return;
        std::vector<NodeId> nodes{pool.id};
        if (onlyFeeds(g, *dq, 1)) nodes.push_back(dq->id);
        nodes.push_back(q->id);
        const std::string label = nodeLabel(pool);
        const NodeId reported = pool.id;
        const NodeId fused = rw.replaceNodes(nodes, pool.opType, {dq->input(0)}, pool.attributes, "", Rewriter::KeepName::OfFirst);
        replaced[fused] = reported;
        ++pools;
        rw.count("numFused");
        rw.commit("fuse-qdq-max-pool", "ran the QDQ " + label + " on its int8 codes");
    }

    void fuseConcat(Rewriter& rw, const Node& concat) {
        const Graph& g = rw.graph();
        const Node* q = perTensorQuantizerAfter(g, concat.output(0));
        if (!q) return;
        const DType type = quantizedType(g, *q);
        const std::string name = concat.name.empty() ? "concat" : concat.name;
        std::vector<const Node*> dqs;
        for (ValueId v : concat.inputs()) {
            const Node* dq = v == kNoId ? nullptr : perTensorDequantizer(g, v);
            if (!dq || valueType(g, dq->input(0)) != type) return;
            dqs.push_back(dq);
        }
        std::vector<ValueId> inputs{q->input(1), zeroPointOf(rw, *q, type, name + "_y_zero")};
        std::vector<NodeId> nodes{concat.id};
        for (size_t k = 0; k < dqs.size(); ++k) {
            const Node& dq = *dqs[k];
            inputs.insert(inputs.end(), {dq.input(0), dq.input(1), zeroPointOf(rw, dq, type, name + "_x" + std::to_string(k) + "_zero")});
            const size_t readers = size_t(std::count(dqs.begin(), dqs.end(), &dq));
            if (std::find(nodes.begin(), nodes.end(), dq.id) == nodes.end() && onlyFeeds(g, dq, readers)) nodes.push_back(dq.id);
        }
        nodes.push_back(q->id);
        const std::string label = nodeLabel(concat);
        const NodeId reported = concat.id;
        Attributes a;
        a.set("axis", concat.attributes.getInt("axis", 0));
        const NodeId fused = rw.replaceNodes(nodes, "QLinearConcat", std::move(inputs), std::move(a), "com.microsoft",
                                             Rewriter::KeepName::OfFirst);
        rw.useDomain("com.microsoft", 1);
        replaced[fused] = reported;
        ++concats;
        rw.count("numFused");
        rw.commit("fuse-qdq-concat", "ran the QDQ " + label + " as an int8 QLinearConcat");
    }
};

} // namespace

size_t fuseQdqPoolsAndConcats(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    PassContext context = contextFor(prepared.model);
    FuseQdqPoolsAndConcats pass;
    const PassResult result = runPass(pass, prepared.model, context, false);
    const size_t fused = size_t(result.counter("numFused"));
    if (reportedAs) reportedAs->insert(pass.replaced.begin(), pass.replaced.end());
    if (fused)
        prepared.steps.push_back("ran " + std::to_string(pass.pools) + " QDQ max pools on their int8 codes and " +
                                 std::to_string(pass.concats) + " QDQ Concat as int8 QLinearConcat");
    return fused;
}

} // namespace graphlens
