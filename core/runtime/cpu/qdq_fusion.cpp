// The QDQ convolution pattern of qdq_fusion.h and its rewrite into QLinearConv.
//   DequantizeLinear(x_q, x_s, x_z) ─┐
//   DequantizeLinear(w_q, w_s, w_z) ─┼─ Conv ─ [Relu|Clip] ─ QuantizeLinear(y_s, y_z) -> y_q
//   bias: float, or DequantizeLinear(b_i32, x_s * w_s) ┘
// -> QLinearConv(x_q, x_s, x_z, w_q, w_s, w_z, y_s, y_z, b_i32)
// Relu goes only where it changes nothing: Q(relu(v)) = max(Q(v), y_z), which saturation already
// gives when y_z is the type's lowest value (what ONNX Runtime writes for ReLU outputs); Clip(lo,
// hi) (ReLU6) goes where y_s * (q_min - y_z) >= lo and y_s * (q_max - y_z) <= hi within float
// epsilon (ONNX Runtime's ClipQuantFusion test; quantize-int8 writes its ranges so).
// Matrix products the same way (FuseQdqProducts): DQ(x) x DQ(w) -> MatMul | Gemm -> [Relu] -> Q
// -> QLinearMatMul | com.microsoft QGemm(.., C as int32, y_scale, y_zero); with no Q after it,
// com.microsoft MatMulIntegerToFloat | QGemm without y_scale (int8 sums scaled to float).
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/cpu/qdq_patterns.h"

#include "core/passes/fused_activation.h"
#include "core/passes/pass_manager.h"
#include "core/passes/rewriter.h"
#include "core/runtime/node_descriptor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace graphlens {
namespace {

using qdq::isInt8;
using qdq::zeroPointOf;

/// The node producing `v` when it is `op` of the default domain.
const Node* producerOf(const Graph& g, ValueId v, const char* op) {
    if (v == kNoId) return nullptr;
    const NodeId p = g.value(v).producer();
    if (p == kNoId) return nullptr;
    const Node& n = g.node(p);
    return n.opType == op && n.domain.empty() ? &n : nullptr;
}

/// The single node reading `v` (not a graph output), or nullptr.
const Node* onlyConsumer(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    if (value.uses().size() != 1 || g.isGraphOutput(v)) return nullptr;
    return &g.node(value.uses()[0].node);
}

/// Constant scale (float, > 0) and zero point (u8/s8 or absent) inputs 1 and 2 of a Q or DQ node;
/// `perAxis`: the scale may have more than one value.
bool constantParameters(const Graph& g, const Node& n, bool perAxis) {
    if (n.inputs().size() < 2) return false;
    const Tensor* s = g.constantValue(n.input(1));
    if (!s || s->dtype() != DType::Float || (!perAxis && s->numel() != 1)) return false;
    for (double v : s->toDoubles())
        if (!(v > 0) || !std::isfinite(v)) return false;
    if (n.inputs().size() > 2 && n.input(2) != kNoId) {
        const Tensor* z = g.constantValue(n.input(2));
        if (!z || z->numel() != s->numel()) return false;
    }
    return true;
}

/// The Relu, or Clip with constant bounds, that alone reads `v`, or nullptr.
const Node* activationAfter(const Graph& g, ValueId v) {
    const Node* next = onlyConsumer(g, v);
    if (!next || !next->domain.empty()) return nullptr;
    if (next->opType == "Relu") return next;
    if (next->opType != "Clip") return nullptr;
    const auto clip = fusableActivation(g, *next);
    return clip && clip->params.size() == 2 ? next : nullptr;
}

/// True when quantizing with `q`'s constant scale and zero point (of `type`) saturates at least
/// as tightly as `activation` (a Relu or Clip of activationAfter), so Q(activation(t)) = Q(t).
bool impliedByQuantize(const Graph& g, const Node& activation, const Node& q, DType type) {
    const auto [scale, zero] = qdq::perTensorParams(g, q);
    const float qmin = type == DType::UInt8 ? 0.f : -128.f, qmax = type == DType::UInt8 ? 255.f : 127.f;
    if (activation.opType == "Relu") return zero == qmin;
    const std::vector<float> bounds = fusableActivation(g, activation)->params;
    return clipImpliedByQuantization(scale, zero, qmin, qmax, bounds[0], bounds[1]);
}

} // namespace

bool clipImpliedByQuantization(float scale, float zeroPoint, float qmin, float qmax, float lo, float hi) {
    const float eps = std::numeric_limits<float>::epsilon();
    const float lower = scale * (qmin - zeroPoint), upper = scale * (qmax - zeroPoint);
    return !(lo - lower > eps) && !(upper - hi > eps);
}

namespace {

/// The bias of a product of DequantizeLinear(x) and DequantizeLinear(w) with `channels` output
/// channels (one bias value each) as int32 in units of x_scale * w_scale[c]: a dequantized int32
/// bias (`biasDq`) whose scale is that product as it is, any other (or the float constant `bias`)
/// rounded to it (an error of at most half a unit of the accumulator, far below one output step).
ValueId int32Bias(Rewriter& rw, const Node& inputDq, const Node& weightDq, const Node* biasDq, ValueId bias, int64_t channels,
                  const std::string& name) {
    const Graph& g = rw.graph();
    const float xs = float(g.constantValue(inputDq.input(1))->toDoubles()[0]);
    const std::vector<double> ws = g.constantValue(weightDq.input(1))->toDoubles();
    const auto unit = [&](int64_t c) { return double(xs * float(ws[ws.size() == 1 ? 0 : size_t(c)])); };
    if (biasDq) {
        const Tensor* b = g.constantValue(biasDq->input(0));
        const std::vector<double> bs = g.constantValue(biasDq->input(1))->toDoubles();
        bool same = b->dtype() == DType::Int32 && b->numel() == channels;
        if (biasDq->inputs().size() > 2 && biasDq->input(2) != kNoId)
            for (double z : g.constantValue(biasDq->input(2))->toDoubles()) same = same && z == 0;
        for (int64_t c = 0; same && c < channels; ++c)
            same = std::fabs(bs[bs.size() == 1 ? 0 : size_t(c)] - unit(c)) <= 1e-6 * unit(c);
        if (same) return biasDq->input(0);
    }
    // Float bias (or a dequantized one of another scale): its float values, rounded.
    std::vector<double> values;
    if (biasDq) {
        const std::vector<double> q = g.constantValue(biasDq->input(0))->toDoubles();
        const std::vector<double> s = g.constantValue(biasDq->input(1))->toDoubles();
        std::vector<double> z(s.size(), 0.0);
        if (biasDq->inputs().size() > 2 && biasDq->input(2) != kNoId) z = g.constantValue(biasDq->input(2))->toDoubles();
        for (size_t i = 0; i < q.size(); ++i) values.push_back((q[i] - z[s.size() == 1 ? 0 : i]) * s[s.size() == 1 ? 0 : i]);
    } else {
        values = g.constantValue(bias)->toDoubles();
    }
    std::vector<int32_t> b(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) b[size_t(c)] = int32_t(std::nearbyint(values[size_t(c)] / unit(c)));
    return rw.addInitializer(name + "_bias_int32", Tensor::fromVector<int32_t>(DType::Int32, {channels}, b));
}

/// The matched nodes of one QDQ convolution.
struct QdqConv {
    const Node* inputDq = nullptr;
    const Node* weightDq = nullptr;
    const Node* biasDq = nullptr;  ///< nullptr: float or no bias
    const Node* conv = nullptr;
    const Node* activation = nullptr;  ///< a Relu or Clip between it and the QuantizeLinear
    const Node* quantize = nullptr;
};

/// The pattern rooted at `conv`, or nullopt with `why`.
std::optional<QdqConv> matchAt(const Graph& g, const Node& conv, std::string& why) {
    QdqConv m;
    m.conv = &conv;
    if (conv.opType != "Conv" || !conv.domain.empty() || conv.inputs().size() < 2) return std::nullopt;
    m.inputDq = producerOf(g, conv.input(0), "DequantizeLinear");
    m.weightDq = producerOf(g, conv.input(1), "DequantizeLinear");
    if (!m.inputDq || !m.weightDq) {
        why = "its input or its weights do not come from a DequantizeLinear";
        return std::nullopt;
    }
    if (!isInt8(valueType(g, m.inputDq->input(0))) || !constantParameters(g, *m.inputDq, false)) {
        why = "its input is not u8/s8 dequantized with one constant scale and zero point";
        return std::nullopt;
    }
    const Tensor* w = g.constantValue(m.weightDq->input(0));
    if (!w || !isInt8(w->dtype()) || !constantParameters(g, *m.weightDq, true) ||
        g.value(conv.input(1)).uses().size() != 1) {
        why = "its weights are not constant u8/s8 with constant scales";
        return std::nullopt;
    }
    const Tensor* ws = g.constantValue(m.weightDq->input(1));
    if (ws->numel() > 1 && (m.weightDq->attributes.getInt("axis", 1) != 0 || ws->numel() != w->dims()[0])) {
        why = "its weight scales are not per output channel (axis 0)";
        return std::nullopt;
    }
    if (conv.inputs().size() > 2 && conv.input(2) != kNoId) {
        m.biasDq = producerOf(g, conv.input(2), "DequantizeLinear");
        const bool constantBias = m.biasDq ? g.constantValue(m.biasDq->input(0)) && constantParameters(g, *m.biasDq, true)
                                           : g.constantValue(conv.input(2)) != nullptr;
        if (!constantBias) {
            why = "its bias is not constant";
            return std::nullopt;
        }
    }
    const Node* next = onlyConsumer(g, conv.output(0));
    if (const Node* a = activationAfter(g, conv.output(0))) {
        m.activation = a;
        next = onlyConsumer(g, a->output(0));
    }
    if (!next || next->opType != "QuantizeLinear" || !next->domain.empty() || !constantParameters(g, *next, false)) {
        why = "its output is not read by one QuantizeLinear with constant parameters (a Relu or Clip between may be)";
        return std::nullopt;
    }
    m.quantize = next;
    return m;
}

/// The matched nodes of one QDQ matrix product (MatMul, or Gemm with alpha = beta = 1 and A not
/// transposed); `quantize` nullptr: a float output, which no QuantizeLinear reads.
struct QdqProduct {
    const Node* inputDq = nullptr;
    const Node* weightDq = nullptr;
    const Node* biasDq = nullptr;  ///< Gemm: nullptr for a float or no bias
    const Node* product = nullptr;
    const Node* activation = nullptr;  ///< a Relu or Clip between it and the QuantizeLinear
    const Node* quantize = nullptr;
    bool gemm = false, transB = false;
    int64_t columns = 0;
};

/// The QDQ product pattern rooted at `p`, or nullopt with `why`.
std::optional<QdqProduct> matchProductAt(const Graph& g, const Node& p, std::string& why) {
    QdqProduct m;
    m.product = &p;
    m.gemm = p.opType == "Gemm";
    if ((p.opType != "MatMul" && !m.gemm) || !p.domain.empty() || p.inputs().size() < 2) return std::nullopt;
    if (m.gemm && (p.attributes.getInt("transA", 0) != 0 || p.attributes.getFloat("alpha", 1.f) != 1.f ||
                   p.attributes.getFloat("beta", 1.f) != 1.f)) {
        why = "it is a Gemm with transA, or alpha or beta other than 1";
        return std::nullopt;
    }
    m.transB = m.gemm && p.attributes.getInt("transB", 0) != 0;
    m.inputDq = producerOf(g, p.input(0), "DequantizeLinear");
    m.weightDq = producerOf(g, p.input(1), "DequantizeLinear");
    if (!m.inputDq || !m.weightDq) {
        why = "its input or its weights do not come from a DequantizeLinear";
        return std::nullopt;
    }
    const auto inputDims = g.value(p.input(0)).shape.sizes();
    if (!isInt8(valueType(g, m.inputDq->input(0))) || !constantParameters(g, *m.inputDq, false) || (inputDims && inputDims->size() < 2)) {
        why = "its input is not a u8/s8 matrix dequantized with one constant scale and zero point";
        return std::nullopt;
    }
    const Tensor* w = g.constantValue(m.weightDq->input(0));
    if (!w || !isInt8(w->dtype()) || w->rank() != 2 || !constantParameters(g, *m.weightDq, true) ||
        g.value(p.input(1)).uses().size() != 1) {
        why = "its weights are not a constant u8/s8 matrix with constant scales";
        return std::nullopt;
    }
    const int64_t columnAxis = m.transB ? 0 : 1;
    m.columns = w->dims()[size_t(columnAxis)];
    const Tensor* ws = g.constantValue(m.weightDq->input(1));
    int64_t axis = m.weightDq->attributes.getInt("axis", 1);
    if (axis < 0) axis += 2;
    if (ws->numel() > 1 && (axis != columnAxis || ws->numel() != m.columns)) {
        why = "its weight scales are not per output column (axis " + std::to_string(columnAxis) + ")";
        return std::nullopt;
    }
    // The int8 kernel takes s8 weights w - w_zero (onednn_int8.cpp); others would leave the
    // product to the reference kernel's loops, slower than the float product.
    if (m.weightDq->inputs().size() > 2 && m.weightDq->input(2) != kNoId) {
        const std::vector<double> z = g.constantValue(m.weightDq->input(2))->toDoubles();
        const bool s8AroundZero = w->dtype() == DType::Int8 && std::all_of(z.begin(), z.end(), [](double v) { return v == 0; });
        const std::vector<double> values = s8AroundZero ? std::vector<double>{} : w->toDoubles();
        const int64_t k = w->dims()[m.transB ? 1 : 0];
        for (size_t i = 0; i < values.size(); ++i) {
            const double centered = values[i] - z[z.size() == 1 ? 0 : size_t(m.transB ? int64_t(i) / k : int64_t(i) % m.columns)];
            if (centered < -128 || centered > 127) {
                why = "its weights minus their zero point leave [-128, 127], which the int8 kernel takes";
                return std::nullopt;
            }
        }
    }
    if (m.gemm && p.inputs().size() > 2 && p.input(2) != kNoId) {
        m.biasDq = producerOf(g, p.input(2), "DequantizeLinear");
        const bool constantBias = m.biasDq ? g.constantValue(m.biasDq->input(0)) && constantParameters(g, *m.biasDq, true)
                                           : g.constantValue(p.input(2)) != nullptr;
        const auto biasDims = g.value(p.input(2)).shape.sizes();
        int64_t biasCount = 1;
        if (biasDims)
            for (int64_t d : *biasDims) biasCount *= d;
        const bool perColumn = biasDims && !biasDims->empty() && biasDims->back() == m.columns && biasCount == m.columns;
        if (!constantBias || !perColumn) {
            why = "its bias is not a constant of one value per output column";
            return std::nullopt;
        }
    }
    const Node* next = onlyConsumer(g, p.output(0));
    if (const Node* a = activationAfter(g, p.output(0))) {
        m.activation = a;
        next = onlyConsumer(g, a->output(0));
    }
    if (next && next->opType == "QuantizeLinear" && next->domain.empty() && constantParameters(g, *next, false)) {
        m.quantize = next;
        return m;
    }
    // No QuantizeLinear reads the output (a classifier's logits, a float residual): int8 sums
    // scaled to float. One that reads it with parameters the int8 kernel cannot take keeps it float.
    m.activation = nullptr;
    for (const Use& use : g.value(p.output(0)).uses())
        if (g.node(use.node).opType == "QuantizeLinear") {
            why = "its output is read by a QuantizeLinear with per-axis or non-constant parameters";
            return std::nullopt;
        }
    return m;
}

class FuseQdqConvolutions final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-conv"; }
    std::string title() const override { return "Run QDQ convolutions as QLinearConv"; }
    std::string explanation() const override {
        return "DequantizeLinear -> Conv -> [Relu] -> QuantizeLinear computes an int8 convolution in float: "
               "QLinearConv computes it in int32 and requantizes with x_scale * w_scale / y_scale, so the "
               "int8 activations pass between quantized convolutions as they are.";
    }
    std::map<NodeId, NodeId> replacedConv;  ///< QLinearConv made -> the Conv it replaced

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Graph& g = rw.graph();
            const Node& conv = g.node(id);
            if (conv.opType != "Conv") continue;
            std::string why;
            const auto m = matchAt(g, conv, why);
            if (!m) {
                rw.decline(id, "kept in float: " + why);
                continue;
            }
            const Tensor* yz = m->quantize->inputs().size() > 2 && m->quantize->input(2) != kNoId
                                   ? g.constantValue(m->quantize->input(2)) : nullptr;
            const DType yType = yz ? yz->dtype() : DType::UInt8;
            if (!isInt8(yType)) {
                rw.decline(id, "kept in float: its QuantizeLinear writes neither u8 nor s8");
                continue;
            }
            if (m->activation && !impliedByQuantize(g, *m->activation, *m->quantize, yType)) {
                rw.decline(id, "kept in float: the " + m->activation->opType + " after it is not implied by its output's quantization range");
                continue;
            }
            fuse(rw, *m, yType);
        }
    }

private:
    void fuse(Rewriter& rw, const QdqConv& m, DType yType) {
        const Graph& g = rw.graph();
        const std::string name = m.conv->name.empty() ? "conv" : m.conv->name;
        const DType xType = valueType(g, m.inputDq->input(0));
        const DType wType = g.constantValue(m.weightDq->input(0))->dtype();
        std::vector<ValueId> inputs{m.inputDq->input(0), m.inputDq->input(1), zeroPointOf(rw, *m.inputDq, xType, name + "_x_zero"),
                                    m.weightDq->input(0), m.weightDq->input(1), zeroPointOf(rw, *m.weightDq, wType, name + "_w_zero"),
                                    m.quantize->input(1), zeroPointOf(rw, *m.quantize, yType, name + "_y_zero")};
        if (m.conv->inputs().size() > 2 && m.conv->input(2) != kNoId)
            inputs.push_back(int32Bias(rw, *m.inputDq, *m.weightDq, m.biasDq, m.conv->input(2),
                                       g.constantValue(m.weightDq->input(0))->dims()[0], name));
        // The Conv first (the fused node keeps its name), the QuantizeLinear last (its output
        // stays); the DequantizeLinear nodes go with them where nothing else reads them.
        std::vector<NodeId> replaced{m.conv->id};
        if (g.value(m.inputDq->output(0)).uses().size() == 1 && !g.isGraphOutput(m.inputDq->output(0))) replaced.push_back(m.inputDq->id);
        replaced.push_back(m.weightDq->id);
        if (m.biasDq && g.value(m.biasDq->output(0)).uses().size() == 1) replaced.push_back(m.biasDq->id);
        if (m.activation) replaced.push_back(m.activation->id);
        replaced.push_back(m.quantize->id);
        // The matched nodes are gone after the rewrite: what the sentence says is read before it.
        const std::string label = nodeLabel(*m.conv) + (m.activation ? " with its " + m.activation->opType : "");
        const NodeId conv = m.conv->id;
        const NodeId fused = rw.replaceNodes(replaced, "QLinearConv", std::move(inputs), m.conv->attributes, {}, Rewriter::KeepName::OfFirst);
        replacedConv[fused] = conv;
        rw.count("numFused");
        rw.commit("fuse-qdq-conv", "ran the QDQ " + label + " as an int8 QLinearConv");
    }
};

/// DequantizeLinear(x) x DequantizeLinear(w) -> MatMul or Gemm -> [Relu] -> QuantizeLinear
/// -> QLinearMatMul (MatMul) or com.microsoft QGemm (Gemm, with its bias as int32 in units of
/// x_scale * w_scale); without a QuantizeLinear after it, com.microsoft MatMulIntegerToFloat or
/// QGemm without y_scale: int8 sums scaled to float (ONNX Runtime's ops for the same patterns).
class FuseQdqProducts final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-matmul"; }
    std::string title() const override { return "Run QDQ matrix products as int8"; }
    std::string explanation() const override {
        return "DequantizeLinear -> MatMul or Gemm -> [Relu] -> QuantizeLinear computes an int8 product in float: "
               "QLinearMatMul and QGemm compute it in int32 and requantize with x_scale * w_scale / y_scale; "
               "without a QuantizeLinear after it, MatMulIntegerToFloat and QGemm scale the int32 sums to float.";
    }
    std::map<NodeId, NodeId> replaced;  ///< fused node -> the MatMul or Gemm it replaced
    std::map<std::string, int64_t> made;  ///< how many of each kind

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Graph& g = rw.graph();
            const Node& p = g.node(id);
            if ((p.opType != "MatMul" && p.opType != "Gemm") || !p.domain.empty()) continue;
            std::string why;
            const auto m = matchProductAt(g, p, why);
            if (!m) {
                if (!why.empty()) rw.decline(id, "kept in float: " + why);
                continue;
            }
            const Tensor* yz = m->quantize && m->quantize->inputs().size() > 2 && m->quantize->input(2) != kNoId
                                   ? g.constantValue(m->quantize->input(2)) : nullptr;
            const DType yType = yz ? yz->dtype() : DType::UInt8;
            if (m->quantize && !isInt8(yType)) {
                rw.decline(id, "kept in float: its QuantizeLinear writes neither u8 nor s8");
                continue;
            }
            if (m->activation && !impliedByQuantize(g, *m->activation, *m->quantize, yType)) {
                rw.decline(id, "kept in float: the " + m->activation->opType + " after it is not implied by its output's quantization range");
                continue;
            }
            fuse(rw, *m, yType);
        }
    }

private:
    void fuse(Rewriter& rw, const QdqProduct& m, DType yType) {
        const Graph& g = rw.graph();
        const std::string name = m.product->name.empty() ? (m.gemm ? "gemm" : "matmul") : m.product->name;
        const DType xType = valueType(g, m.inputDq->input(0));
        const DType wType = g.constantValue(m.weightDq->input(0))->dtype();
        const ValueId x = m.inputDq->input(0), xs = m.inputDq->input(1), xz = zeroPointOf(rw, *m.inputDq, xType, name + "_x_zero");
        const ValueId w = m.weightDq->input(0), ws = m.weightDq->input(1), wz = zeroPointOf(rw, *m.weightDq, wType, name + "_w_zero");
        const bool hasBias = m.gemm && m.product->inputs().size() > 2 && m.product->input(2) != kNoId;
        const ValueId bias = hasBias ? int32Bias(rw, *m.inputDq, *m.weightDq, m.biasDq, m.product->input(2), m.columns, name) : kNoId;
        std::string op, domain;
        std::vector<ValueId> inputs;
        Attributes attributes;
        if (m.gemm) {
            op = "QGemm";
            domain = "com.microsoft";
            inputs = {x, xs, xz, w, ws, wz, bias};
            if (m.quantize) {
                inputs.push_back(m.quantize->input(1));
                inputs.push_back(zeroPointOf(rw, *m.quantize, yType, name + "_y_zero"));
            } else if (bias == kNoId) {
                inputs.pop_back();
            }
            attributes.set("transB", int64_t(m.transB ? 1 : 0));
        } else if (m.quantize) {
            op = "QLinearMatMul";
            inputs = {x, xs, xz, w, ws, wz, m.quantize->input(1), zeroPointOf(rw, *m.quantize, yType, name + "_y_zero")};
        } else {
            op = "MatMulIntegerToFloat";
            domain = "com.microsoft";
            inputs = {x, w, xs, ws, xz, wz};
        }
        // The product first (the fused node keeps its name) and the QuantizeLinear last (its
        // output stays), or, for a float output, the product last; the DequantizeLinear nodes go
        // where nothing else reads them.
        const bool floatOutput = !m.quantize;
        std::vector<NodeId> nodes;
        if (!floatOutput) nodes.push_back(m.product->id);
        if (g.value(m.inputDq->output(0)).uses().size() == 1 && !g.isGraphOutput(m.inputDq->output(0))) nodes.push_back(m.inputDq->id);
        nodes.push_back(m.weightDq->id);
        if (m.biasDq && g.value(m.biasDq->output(0)).uses().size() == 1) nodes.push_back(m.biasDq->id);
        if (m.activation) nodes.push_back(m.activation->id);
        nodes.push_back(floatOutput ? m.product->id : m.quantize->id);
        // The matched nodes are gone after the rewrite: what the sentence says is read before it.
        const std::string label = nodeLabel(*m.product) + (m.activation ? " with its " + m.activation->opType : "");
        const NodeId product = m.product->id;
        const NodeId fused = rw.replaceNodes(nodes, op, std::move(inputs), std::move(attributes), domain,
                                             floatOutput ? Rewriter::KeepName::OfLast : Rewriter::KeepName::OfFirst);
        if (!domain.empty()) rw.useDomain(domain, 1);
        replaced[fused] = product;
        const std::string kind = op + (m.gemm && floatOutput ? " with a float output" : "");
        ++made[kind];
        rw.count("numFused");
        rw.commit("fuse-qdq-matmul", "ran the QDQ " + label + " as an int8 " + kind);
    }
};

/// DequantizeLinear(a_q) + DequantizeLinear(b_q) -> Add -> [Relu] -> QuantizeLinear
/// -> com.microsoft QLinearAdd (ONNX Runtime's op), for same-shaped u8/s8 operands: the residual
/// additions between int8 convolutions, which then stay int8 (and channels-last) too.
class FuseQdqAdds final : public Pass {
public:
    std::string id() const override { return "fuse-qdq-add"; }
    std::string title() const override { return "Run QDQ additions as QLinearAdd"; }
    std::string explanation() const override {
        return "DequantizeLinear -> Add -> [Relu] -> QuantizeLinear adds two int8 tensors in float; QLinearAdd "
               "computes the same float sum and quantizes it in one pass over the int8 data.";
    }
    std::map<NodeId, NodeId> replacedAdd;

    void run(Rewriter& rw, PassContext&) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Graph& g = rw.graph();
            const Node& add = g.node(id);
            if (add.opType != "Add" || !add.domain.empty() || add.inputs().size() != 2) continue;
            const Node* da = producerOf(g, add.input(0), "DequantizeLinear");
            const Node* db = producerOf(g, add.input(1), "DequantizeLinear");
            const auto dims = [&](ValueId v) { return g.value(v).shape.sizes(); };
            if (!da || !db || !constantParameters(g, *da, false) || !constantParameters(g, *db, false) ||
                !isInt8(valueType(g, da->input(0))) || !isInt8(valueType(g, db->input(0)))) {
                rw.decline(id, "kept in float: its operands are not both dequantized u8/s8 with constant parameters");
                continue;
            }
            if (!dims(add.input(0)) || !dims(add.output(0)) || dims(add.input(0)) != dims(add.input(1)) ||
                dims(add.input(0)) != dims(add.output(0))) {
                rw.decline(id, "kept in float: its operands do not have the same static shape");
                continue;
            }
            const Node* next = onlyConsumer(g, add.output(0));
            const Node* relu = nullptr;
            if (next && next->opType == "Relu" && next->domain.empty()) {
                relu = next;
                next = onlyConsumer(g, next->output(0));
            }
            if (!next || next->opType != "QuantizeLinear" || !next->domain.empty() || !constantParameters(g, *next, false)) {
                rw.decline(id, "kept in float: its output is not read by one QuantizeLinear (a Relu between may be)");
                continue;
            }
            const Tensor* yz = next->inputs().size() > 2 && next->input(2) != kNoId ? g.constantValue(next->input(2)) : nullptr;
            const DType yType = yz ? yz->dtype() : DType::UInt8;
            const DType aType = valueType(g, da->input(0)), bType = valueType(g, db->input(0));
            if (!isInt8(yType) || ((aType == DType::UInt8) != (bType == DType::UInt8) && yType != DType::Int8)) {
                rw.decline(id, "kept in float: its types are not ones QLinearAdd's kernel takes");
                continue;
            }
            if (relu && (yz ? yz->toDoubles()[0] : 0.0) != (yType == DType::UInt8 ? 0.0 : -128.0)) {
                rw.decline(id, "kept in float: the Relu after it is not implied by its output zero point");
                continue;
            }
            const std::string name = add.name.empty() ? "add" : add.name;
            std::vector<ValueId> inputs{da->input(0), da->input(1), zeroPointOf(rw, *da, aType, name + "_a_zero"),
                                        db->input(0), db->input(1), zeroPointOf(rw, *db, bType, name + "_b_zero"),
                                        next->input(1), zeroPointOf(rw, *next, yType, name + "_y_zero")};
            std::vector<NodeId> replaced{add.id};
            for (const Node* dq : {da, db})
                if (dq != da || da != db)
                    if (g.value(dq->output(0)).uses().size() == 1 && !g.isGraphOutput(dq->output(0))) replaced.push_back(dq->id);
            if (relu) replaced.push_back(relu->id);
            replaced.push_back(next->id);
            const std::string label = nodeLabel(add);
            const NodeId fused = rw.replaceNodes(replaced, "QLinearAdd", std::move(inputs), {}, "com.microsoft", Rewriter::KeepName::OfFirst);
            replacedAdd[fused] = id;
            rw.useDomain("com.microsoft", 1);
            rw.count("numFused");
            rw.commit("fuse-qdq-add", "ran the QDQ " + label + (relu ? " with its Relu" : "") + " as a QLinearAdd");
        }
    }
};

} // namespace

bool isQdqWeight(const Graph& g, NodeId dq) {
    const Node& n = g.node(dq);
    if (n.opType != "DequantizeLinear" || n.outputs().empty()) return false;
    const Value& w = g.value(n.output(0));
    if (w.uses().size() != 1 || (w.uses()[0].input != 1 && w.uses()[0].input != 2)) return false;  // weights or bias
    const Node& reader = g.node(w.uses()[0].node);
    std::string why;
    return matchAt(g, reader, why).has_value() || matchProductAt(g, reader, why).has_value();
}

size_t fuseQdqConvolutions(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    FuseQdqConvolutions pass;
    const size_t fused = qdq::runPlanRewrite(pass, prepared, pass.replacedConv, reportedAs);
    if (fused)
        prepared.steps.push_back("ran " + std::to_string(fused) + " QDQ convolution" + (fused == 1 ? "" : "s") +
                                 " as int8 QLinearConv (int8 activations between them)");
    FuseQdqAdds adds;
    if (const size_t n = qdq::runPlanRewrite(adds, prepared, adds.replacedAdd, reportedAs); n > 0)
        prepared.steps.push_back("ran " + std::to_string(n) + " QDQ addition" + (n == 1 ? "" : "s") + " as int8 QLinearAdd");
    return fused;
}

size_t fuseQdqMatMuls(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs) {
    FuseQdqProducts pass;
    const size_t fused = qdq::runPlanRewrite(pass, prepared, pass.replaced, reportedAs);
    if (fused) {
        std::string kinds;
        for (const char* kind : {"QLinearMatMul", "QGemm", "MatMulIntegerToFloat", "QGemm with a float output"})
            if (const auto it = pass.made.find(kind); it != pass.made.end())
                kinds += (kinds.empty() ? "" : ", ") + std::to_string(it->second) + " " + kind;
        prepared.steps.push_back("ran " + std::to_string(fused) + " QDQ matrix product" + (fused == 1 ? "" : "s") +
                                 " (MatMul, Gemm) as int8: " + kinds);
    }
    return fused;
}

} // namespace graphlens
