// The QDQ squeeze-and-excitation patterns of qdq_fusion.h and their rewrites into ONNX Runtime's
// int8 ops (what its QDQ transformer makes of them too):
//   DequantizeLinear(x_q) -> GlobalAveragePool -> QuantizeLinear -> com.microsoft QLinearGlobalAveragePool
//   DequantizeLinear(a_q) * DequantizeLinear(b_q) -> Mul -> QuantizeLinear -> com.microsoft QLinearMul
//     (b of a's shape, or one value per channel: the excitation scaling the squeezed tensor)
// so the tensor an int8 convolution or lookup table wrote channels-last is read in place, instead
// of being dequantized to float for the pooling and the product and quantized again.
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/cpu/qdq_patterns.h"

#include "core/passes/pass_manager.h"
#include "core/passes/rewriter.h"
#include "core/runtime/node_descriptor.h"

#include <cmath>

namespace graphlens {
namespace {

using namespace qdq;

class FuseQdqSqueezeExcitation final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-squeeze-excitation"; }
    std::string title() const override { return "Run QDQ pooling and channel products as int8"; }
    std::string explanation() const override {
        return "DequantizeLinear -> GlobalAveragePool -> QuantizeLinear and DequantizeLinear * DequantizeLinear -> Mul -> "
               "QuantizeLinear (a squeeze-and-excitation block) pool and multiply int8 tensors in float; "
               "QLinearGlobalAveragePool and QLinearMul read the int8 data as it is.";
    }
    std::map<NodeId, NodeId> replaced;
    int64_t pools = 0, products = 0;

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Node& n = rw.graph().node(id);
            if (!n.domain.empty()) continue;
            if (n.opType == "GlobalAveragePool") fusePool(rw, n);
            else if (n.opType == "Mul" && n.inputs().size() == 2) fuseProduct(rw, n);
        }
    }

private:
    void fusePool(Rewriter& rw, const Node& pool) {
        const Graph& g = rw.graph();
        const Node* dq = perTensorDequantizer(g, pool.input(0));
        const auto dims = g.value(pool.input(0)).shape.sizes();
        const Node* q = perTensorQuantizerAfter(g, pool.output(0));
        if (!dq || !q || !dims || dims->size() != 4) return;
        const DType type = valueType(g, dq->input(0));
        if (quantizedType(g, *q) != type) return;
        const std::string name = pool.name.empty() ? "pool" : pool.name;
        std::vector<ValueId> inputs{dq->input(0), dq->input(1), zeroPointOf(rw, *dq, type, name + "_x_zero"), q->input(1),
                                    zeroPointOf(rw, *q, type, name + "_y_zero")};
        std::vector<NodeId> nodes{pool.id};
        if (onlyFeeds(g, *dq, 1)) nodes.push_back(dq->id);
        nodes.push_back(q->id);
        const std::string label = nodeLabel(pool);
        const NodeId reported = pool.id;
        Attributes a;
        a.set("channels_last", int64_t(0));
        const NodeId fused = rw.replaceNodes(nodes, "QLinearGlobalAveragePool", std::move(inputs), std::move(a), "com.microsoft",
                                             Rewriter::KeepName::OfFirst);
        rw.useDomain("com.microsoft", 1);
        replaced[fused] = reported;
        ++pools;
        rw.count("numFused");
        rw.commit("fuse-qdq-global-average-pool", "ran the QDQ " + label + " as an int8 QLinearGlobalAveragePool");
    }

    void fuseProduct(Rewriter& rw, const Node& mul) {
        const Graph& g = rw.graph();
        const Node* da = perTensorDequantizer(g, mul.input(0));
        const Node* db = perTensorDequantizer(g, mul.input(1));
        const Node* q = perTensorQuantizerAfter(g, mul.output(0));
        const auto ya = g.value(mul.input(0)).shape.sizes(), yb = g.value(mul.input(1)).shape.sizes(), y = g.value(mul.output(0)).shape.sizes();
        if (!da || !db || !q || !ya || !yb || !y || y->size() != 4) return;
        const std::vector<int64_t> gate{(*y)[0], (*y)[1], 1, 1};
        const bool fits = (*ya == *y && (*yb == *y || *yb == gate)) || (*yb == *y && *ya == gate);
        if (!fits) return;
        const std::string name = mul.name.empty() ? "mul" : mul.name;
        const DType ta = valueType(g, da->input(0)), tb = valueType(g, db->input(0)), ty = quantizedType(g, *q);
        std::vector<ValueId> inputs{da->input(0), da->input(1), zeroPointOf(rw, *da, ta, name + "_a_zero"),
                                    db->input(0), db->input(1), zeroPointOf(rw, *db, tb, name + "_b_zero"),
                                    q->input(1), zeroPointOf(rw, *q, ty, name + "_y_zero")};
        std::vector<NodeId> nodes{mul.id};
        const size_t readers = da == db ? 2 : 1;  // x * x: one DequantizeLinear read twice
        if (onlyFeeds(g, *da, readers)) nodes.push_back(da->id);
        if (db != da && onlyFeeds(g, *db, 1)) nodes.push_back(db->id);
        nodes.push_back(q->id);
        const std::string label = nodeLabel(mul);
        const NodeId reported = mul.id;
        const NodeId fused = rw.replaceNodes(nodes, "QLinearMul", std::move(inputs), {}, "com.microsoft", Rewriter::KeepName::OfFirst);
        rw.useDomain("com.microsoft", 1);
        replaced[fused] = reported;
        ++products;
        rw.count("numFused");
        rw.commit("fuse-qdq-mul", "ran the QDQ " + label + " as an int8 QLinearMul");
    }
};

} // namespace

size_t fuseQdqSqueezeExcitation(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    FuseQdqSqueezeExcitation pass;
    const size_t fused = runPlanRewrite(pass, prepared, pass.replaced, reportedAs);
    if (fused)
        prepared.steps.push_back("ran " + std::to_string(pass.pools) + " QDQ GlobalAveragePool and " + std::to_string(pass.products) +
                                 " QDQ Mul as int8 QLinearGlobalAveragePool and QLinearMul");
    return fused;
}

} // namespace graphlens
