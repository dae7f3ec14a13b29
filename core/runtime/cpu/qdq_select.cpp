// The QDQ patterns of qdq_fusion.h whose op only selects or moves values, so it can run on the
// int8 codes themselves:
//   DequantizeLinear(x_q; s, z) -> op -> QuantizeLinear(s, z) -> op(x_q)
// for MaxPool, GlobalMaxPool and the ops that move values (Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Slice, DepthToSpace, SpaceToDepth), as ONNX Runtime's QDQ transformer drops such
// pairs. Dequantizing with a positive scale keeps the codes' order, so the largest value of a
// window is the largest code's, and quantizing a dequantized code again with the same scale and
// zero point gives it back (v / s is within two float roundings of the integer q - z, far inside
// the half step that rounds to it).
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
#include <set>

namespace graphlens {
namespace {

using namespace qdq;

/// Ops whose output holds values of input 0 (the others are shapes, axes or starts): the
/// maximum of a window, or values moved.
bool selectsValues(const Node& n) {
    static const std::set<std::string> ops{"MaxPool", "GlobalMaxPool", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                           "Transpose", "Slice", "DepthToSpace", "SpaceToDepth"};
    return n.domain.empty() && ops.count(n.opType) > 0;
}

class FuseQdqSelections final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-select"; }
    std::string title() const override { return "Run QDQ pooling, data movement and concatenation on the int8 codes"; }
    std::string explanation() const override {
        return "DequantizeLinear -> MaxPool (or Reshape, Transpose, Slice...) -> QuantizeLinear with the same scale and "
               "zero point on both sides runs on the int8 codes themselves: the largest code dequantizes to the largest "
               "value, and moved codes are the codes of moved values. DequantizeLinear on every input -> Concat -> "
               "QuantizeLinear becomes QLinearConcat, which maps each input's codes to the output's through a 256-entry table.";
    }
    std::map<NodeId, NodeId> replaced;
    std::map<std::string, int64_t> selections;  ///< by op type
    int64_t concats = 0;

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Node& n = rw.graph().node(id);
            if (!n.domain.empty()) continue;
            if (selectsValues(n) && !n.inputs().empty() && n.input(0) != kNoId) fuseSelection(rw, n);
            else if (n.opType == "Concat" && !n.inputs().empty()) fuseConcat(rw, n);
        }
    }

private:
    void fuseSelection(Rewriter& rw, const Node& node) {
        const Graph& g = rw.graph();
        if (node.outputs().size() > 1 && node.output(1) != kNoId) return;  // MaxPool's Indices: positions in the float tensor
        const Node* dq = perTensorDequantizer(g, node.input(0));
        const Node* q = perTensorQuantizerAfter(g, node.output(0));
        if (!dq || !q) return;
        const DType type = valueType(g, dq->input(0));
        if (quantizedType(g, *q) != type) return;
        if (perTensorParams(g, *dq) != perTensorParams(g, *q)) return;
        for (size_t i = 1; i < node.inputs().size(); ++i)
            if (node.input(i) == node.input(0)) return;  // the float tensor as a shape or axes too
        std::vector<NodeId> nodes{node.id};
        if (onlyFeeds(g, *dq, 1)) nodes.push_back(dq->id);
        nodes.push_back(q->id);
        std::vector<ValueId> inputs = node.inputs();
        inputs[0] = dq->input(0);
        const std::string label = nodeLabel(node), op = node.opType;
        const NodeId reported = node.id;
        const NodeId fused = rw.replaceNodes(nodes, op, std::move(inputs), node.attributes, "", Rewriter::KeepName::OfFirst);
        replaced[fused] = reported;
        ++selections[op];
        rw.count("numFused");
        rw.commit("fuse-qdq-select", "ran the QDQ " + label + " on its int8 codes");
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

size_t fuseQdqSelections(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    FuseQdqSelections pass;
    const size_t fused = runPlanRewrite(pass, prepared, pass.replaced, reportedAs);
    if (!fused) return 0;
    std::string line = "ran ";
    if (!pass.selections.empty()) {
        int64_t total = 0;
        std::string kinds;
        for (const auto& [op, count] : pass.selections) {
            total += count;
            kinds += (kinds.empty() ? "" : ", ") + std::to_string(count) + " " + op;
        }
        line += std::to_string(total) + " QDQ " + (total == 1 ? "node on its" : "nodes on their") + " int8 codes (" + kinds + ")";
    }
    if (pass.concats > 0)
        line += std::string(pass.selections.empty() ? "" : " and ") + std::to_string(pass.concats) + " QDQ Concat as int8 QLinearConcat";
    prepared.steps.push_back(line);
    return fused;
}

} // namespace graphlens
