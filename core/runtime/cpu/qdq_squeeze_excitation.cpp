// The QDQ squeeze-and-excitation patterns of qdq_fusion.h and their rewrites into ONNX Runtime's
// int8 ops (what its QDQ transformer makes of them too):
//   DequantizeLinear(x_q) -> GlobalAveragePool -> QuantizeLinear -> com.microsoft QLinearGlobalAveragePool
//   DequantizeLinear(a_q) * DequantizeLinear(b_q) -> Mul -> QuantizeLinear -> com.microsoft QLinearMul
//     (b of a's shape, or one value per channel: the excitation scaling the squeezed tensor)
// so the tensor an int8 convolution or lookup table wrote channels-last is read in place, instead
// of being dequantized to float for the pooling and the product and quantized again.
#include "core/runtime/cpu/qdq_fusion.h"

#include "core/passes/pass_manager.h"
#include "core/passes/rewriter.h"
#include "core/runtime/node_descriptor.h"

#include <cmath>

namespace graphlens {
namespace {

bool isInt8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

/// The producer of `v` when it is a DequantizeLinear of a u8/s8 value with constant per-tensor
/// parameters, or nullptr.
const Node* dequantizerOf(const Graph& g, ValueId v) {
    const NodeId p = g.value(v).producer();
    if (p == kNoId) return nullptr;
    const Node& n = g.node(p);
    if (n.opType != "DequantizeLinear" || !n.domain.empty() || n.inputs().size() < 2 || !isInt8(valueType(g, n.input(0)))) return nullptr;
    const Tensor* s = g.constantValue(n.input(1));
    if (!s || s->dtype() != DType::Float || s->numel() != 1 || !(s->toDoubles()[0] > 0) || !std::isfinite(s->toDoubles()[0])) return nullptr;
    if (n.inputs().size() > 2 && n.input(2) != kNoId && (!g.constantValue(n.input(2)) || g.constantValue(n.input(2))->numel() != 1)) return nullptr;
    return &n;
}

/// The QuantizeLinear to u8/s8 with constant per-tensor parameters alone reading `v`, or nullptr.
const Node* quantizerAfter(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.uses().size() != 1 || g.isGraphOutput(v)) return nullptr;
    const Node& q = g.node(value.uses()[0].node);
    if (q.opType != "QuantizeLinear" || !q.domain.empty() || q.inputs().size() < 2) return nullptr;
    const Tensor* s = g.constantValue(q.input(1));
    if (!s || s->dtype() != DType::Float || s->numel() != 1 || !(s->toDoubles()[0] > 0) || !std::isfinite(s->toDoubles()[0])) return nullptr;
    if (q.inputs().size() > 2 && q.input(2) != kNoId) {
        const Tensor* z = g.constantValue(q.input(2));
        if (!z || z->numel() != 1 || !isInt8(z->dtype())) return nullptr;
    }
    return &q;
}

/// Input 2 of a Q or DQ node, or a new zero of `type` where it has none.
ValueId zeroOf(Rewriter& rw, const Node& n, DType type, const std::string& name) {
    if (n.inputs().size() > 2 && n.input(2) != kNoId) return n.input(2);
    return rw.addInitializer(name, Tensor::allocate(type, {}));
}

DType quantizedType(const Graph& g, const Node& q) {
    return q.inputs().size() > 2 && q.input(2) != kNoId ? g.constantValue(q.input(2))->dtype() : DType::UInt8;
}

/// True when only `reader` reads the DequantizeLinear's output (it can go with the pattern).
bool onlyFeeds(const Graph& g, const Node& dq, size_t readers) {
    return g.value(dq.output(0)).uses().size() == readers && !g.isGraphOutput(dq.output(0));
}

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
        const Node* dq = dequantizerOf(g, pool.input(0));
        const auto dims = g.value(pool.input(0)).shape.sizes();
        const Node* q = quantizerAfter(g, pool.output(0));
        if (!dq || !q || !dims || dims->size() != 4) return;
        const DType type = valueType(g, dq->input(0));
        if (quantizedType(g, *q) != type) return;
        const std::string name = pool.name.empty() ? "pool" : pool.name;
        std::vector<ValueId> inputs{dq->input(0), dq->input(1), zeroOf(rw, *dq, type, name + "_x_zero"), q->input(1),
                                    zeroOf(rw, *q, type, name + "_y_zero")};
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
        const Node* da = dequantizerOf(g, mul.input(0));
        const Node* db = dequantizerOf(g, mul.input(1));
        const Node* q = quantizerAfter(g, mul.output(0));
        const auto ya = g.value(mul.input(0)).shape.sizes(), yb = g.value(mul.input(1)).shape.sizes(), y = g.value(mul.output(0)).shape.sizes();
        if (!da || !db || !q || !ya || !yb || !y || y->size() != 4) return;
        const std::vector<int64_t> gate{(*y)[0], (*y)[1], 1, 1};
        const bool fits = (*ya == *y && (*yb == *y || *yb == gate)) || (*yb == *y && *ya == gate);
        if (!fits) return;
        const std::string name = mul.name.empty() ? "mul" : mul.name;
        const DType ta = valueType(g, da->input(0)), tb = valueType(g, db->input(0)), ty = quantizedType(g, *q);
        std::vector<ValueId> inputs{da->input(0), da->input(1), zeroOf(rw, *da, ta, name + "_a_zero"),
                                    db->input(0), db->input(1), zeroOf(rw, *db, tb, name + "_b_zero"),
                                    q->input(1), zeroOf(rw, *q, ty, name + "_y_zero")};
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
    PassContext context = contextFor(prepared.model);
    FuseQdqSqueezeExcitation pass;
    const PassResult result = runPass(pass, prepared.model, context, false);
    const size_t fused = size_t(result.counter("numFused"));
    if (reportedAs) reportedAs->insert(pass.replaced.begin(), pass.replaced.end());
    if (fused)
        prepared.steps.push_back("ran " + std::to_string(pass.pools) + " QDQ GlobalAveragePool and " + std::to_string(pass.products) +
                                 " QDQ Mul as int8 QLinearGlobalAveragePool and QLinearMul");
    return fused;
}

} // namespace graphlens
