// The QDQ element-wise patterns' common matches (qdq_patterns.h).
#include "core/runtime/cpu/qdq_patterns.h"

#include "core/passes/pass_manager.h"
#include "core/runtime/node_descriptor.h"

#include <cmath>

namespace graphlens::qdq {
namespace {

/// True when `n`'s input 1 is one constant float scale, finite and > 0.
bool perTensorScale(const Graph& g, const Node& n) {
    const Tensor* s = g.constantValue(n.input(1));
    if (!s || s->dtype() != DType::Float || s->numel() != 1) return false;
    const double scale = s->toDoubles()[0];
    return scale > 0 && std::isfinite(scale);
}

/// The constant zero point of `n` (nullptr where it has none); `ok` false when it is not one
/// constant value.
const Tensor* zeroPointConstant(const Graph& g, const Node& n, bool& ok) {
    ok = true;
    if (n.inputs().size() <= 2 || n.input(2) == kNoId) return nullptr;
    const Tensor* z = g.constantValue(n.input(2));
    ok = z && z->numel() == 1;
    return z;
}

} // namespace

const Node* perTensorDequantizer(const Graph& g, ValueId v) {
    const NodeId p = g.value(v).producer();
    if (p == kNoId) return nullptr;
    const Node& n = g.node(p);
    if (n.opType != "DequantizeLinear" || !n.domain.empty() || n.inputs().size() < 2 || !isInt8(valueType(g, n.input(0))))
        return nullptr;
    bool ok = false;
    zeroPointConstant(g, n, ok);
    return perTensorScale(g, n) && ok ? &n : nullptr;
}

const Node* perTensorQuantizerAfter(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.uses().size() != 1 || g.isGraphOutput(v)) return nullptr;
    const Node& q = g.node(value.uses()[0].node);
    if (q.opType != "QuantizeLinear" || !q.domain.empty() || q.inputs().size() < 2 || !perTensorScale(g, q)) return nullptr;
    bool ok = false;
    const Tensor* z = zeroPointConstant(g, q, ok);
    return ok && (!z || isInt8(z->dtype())) ? &q : nullptr;
}

PerTensorParams perTensorParams(const Graph& g, const Node& n) {
    PerTensorParams p;
    p.scale = float(g.constantValue(n.input(1))->toDoubles()[0]);
    if (n.inputs().size() > 2 && n.input(2) != kNoId) p.zero = float(g.constantValue(n.input(2))->toDoubles()[0]);
    return p;
}

ValueId zeroPointOf(Rewriter& rw, const Node& n, DType type, const std::string& name) {
    if (n.inputs().size() > 2 && n.input(2) != kNoId) return n.input(2);
    return rw.addInitializer(name, Tensor::allocate(type, {}));
}

DType quantizedType(const Graph& g, const Node& q) {
    return q.inputs().size() > 2 && q.input(2) != kNoId ? g.constantValue(q.input(2))->dtype() : DType::UInt8;
}

bool onlyFeeds(const Graph& g, const Node& dq, size_t readers) {
    return g.value(dq.output(0)).uses().size() == readers && !g.isGraphOutput(dq.output(0));
}

size_t runPlanRewrite(Pass& pass, PreparedModel& prepared, const std::map<NodeId, NodeId>& replaced,
                      std::map<NodeId, NodeId>* reportedAs) {
    PassContext context = contextFor(prepared.model);
    const PassResult result = runPass(pass, prepared.model, context, false);
    if (reportedAs) reportedAs->insert(replaced.begin(), replaced.end());
    return size_t(result.counter("numFused"));
}

} // namespace graphlens::qdq
