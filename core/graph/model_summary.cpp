// Model statistics and the FLOP estimates of the compute-heavy ops.
#include "core/graph/model_summary.h"

#include "core/graph/op_key.h"
#include "core/passes/static_shapes.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

namespace graphlens {
namespace {

/// Sizes of a value's shape with symbolic dims counted as 1; nullopt for unknown rank or dims.
std::optional<std::vector<int64_t>> sizesOf(const Graph& g, ValueId v) {
    if (v == kNoId) return std::nullopt;
    const Value& value = g.value(v);
    if (value.initializer) return value.initializer->dims();
    if (const Tensor* t = g.constantValue(v)) return t->dims();
    if (!value.shape.rankKnown()) return std::nullopt;
    std::vector<int64_t> sizes;
    for (const Dim& d : value.shape.dims()) {
        if (d.isUnknown()) return std::nullopt;
        sizes.push_back(d.isStatic() ? d.size() : 1);
    }
    return sizes;
}

/// Product of the sizes from index `from` on.
int64_t product(const std::vector<int64_t>& v, size_t from = 0) {
    const auto begin = v.begin() + std::ptrdiff_t(std::min(from, v.size()));
    return std::accumulate(begin, v.end(), int64_t(1), std::multiplies<>());
}

std::optional<int64_t> convFlops(const Graph& g, const Node& n) {
    auto out = sizesOf(g, n.output(0));
    auto w = n.inputs().size() > 1 ? sizesOf(g, n.input(1)) : std::nullopt;
    if (!out || !w || w->size() < 2) return std::nullopt;
    const int64_t macsPerOutput = product(*w, 1);  // (C/group) * kernel
    const bool bias = n.inputs().size() > 2 && n.input(2) != kNoId;
    return 2 * product(*out) * macsPerOutput + (bias ? product(*out) : 0);
}

std::optional<int64_t> convTransposeFlops(const Graph& g, const Node& n) {
    auto x = sizesOf(g, n.input(0));
    auto w = n.inputs().size() > 1 ? sizesOf(g, n.input(1)) : std::nullopt;
    if (!x || !w || w->size() < 2) return std::nullopt;
    return 2 * product(*x) * product(*w, 1);  // each input element scatters (M/group) * kernel
}

std::optional<int64_t> gemmFlops(const Graph& g, const Node& n) {
    auto a = sizesOf(g, n.input(0));
    auto out = sizesOf(g, n.output(0));
    if (!a || a->size() != 2 || !out) return std::nullopt;
    const int64_t k = n.attributes.getInt("transA", 0) ? (*a)[0] : (*a)[1];
    const bool bias = n.inputs().size() > 2 && n.input(2) != kNoId;
    return 2 * product(*out) * k + (bias ? product(*out) : 0);
}

/// MatMul, or FusedMatMul whose transA makes K A's second-to-last axis.
std::optional<int64_t> matMulFlops(const Graph& g, const Node& n) {
    auto a = sizesOf(g, n.input(0));
    auto out = sizesOf(g, n.output(0));
    if (!a || a->empty() || !out) return std::nullopt;
    const bool transA = n.attributes.getInt("transA", 0) != 0 && a->size() >= 2;
    return 2 * product(*out) * (transA ? (*a)[a->size() - 2] : a->back());
}

} // namespace

std::optional<int64_t> estimateNodeFlops(const Graph& graph, const Node& node) {
    if (node.inputs().empty() || node.outputs().empty()) return std::nullopt;
    if (node.domain == "com.microsoft") {  // ONNX Runtime's fused forms: the product dominates
        if (node.opType == "FusedConv") return convFlops(graph, node);
        if (node.opType == "FusedGemm") return gemmFlops(graph, node);
        if (node.opType == "FusedMatMul") return matMulFlops(graph, node);
        return std::nullopt;
    }
    if (!isDefaultDomain(node.domain)) return std::nullopt;
    if (node.opType == "Conv") return convFlops(graph, node);
    if (node.opType == "ConvTranspose") return convTransposeFlops(graph, node);
    if (node.opType == "Gemm") return gemmFlops(graph, node);
    if (node.opType == "MatMul") return matMulFlops(graph, node);
    return std::nullopt;
}

namespace {

/// Whether a Conv, ConvTranspose, Gemm or MatMul of `g` has no FLOP estimate on `g`'s shapes.
bool someProductUncounted(const Graph& g) {
    static const std::set<std::string> products = {"Conv", "ConvTranspose", "Gemm", "MatMul", "FusedConv", "FusedGemm", "FusedMatMul"};
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        if (products.count(n.opType) && !estimateNodeFlops(g, n)) return true;
    }
    return false;
}

} // namespace

ModelSummary summarize(const Model& model, FlopShapes shapes, const std::function<bool()>& cancelled) {
    const Graph& g = model.graph;
    ModelSummary s;
    s.unitDims = symbolicInputDims(g);
    // Symbolic sizes, and shape arithmetic ONNX shape inference cannot follow, leave the shapes
    // after a Reshape unknown, and the passes fold some of that away: counted on static shapes
    // (symbolic dims as 1), a graph before and after the passes counts every node alike.
    std::optional<Graph> staticGraph;
    if (!s.unitDims.empty() || someProductUncounted(g)) {
        if (shapes == FlopShapes::Static) staticGraph = graphWithStaticShapes(model, unitInputShapes(g), cancelled);
        else s.flopsComplete = false;
    }
    const Graph& shaped = staticGraph ? *staticGraph : g;
    s.nodes = g.nodeCount();
    auto countTensor = [&](const Tensor& t) {
        s.parameters += std::max<int64_t>(t.numel(), 0);
        s.parameterBytes += static_cast<int64_t>(t.byteSize());
    };
    for (ValueId v : g.initializers()) {
        ++s.initializers;
        countTensor(*g.value(v).initializer);
    }
    for (NodeId id : g.nodeIds()) {
        const Node& n = g.node(id);
        const bool defaultDomain = isDefaultDomain(n.domain);
        ++s.ops[OpKey::of(n).toString()];
        if (n.opType == "Constant" && defaultDomain)
            if (const Tensor* t = n.attributes.getTensor("value")) countTensor(*t);
        if (auto flops = estimateNodeFlops(shaped, shaped.node(id))) {
            s.flops += *flops;
            ++s.nodesWithFlops;
        }
    }
    return s;
}

std::string unitDimsNote(const std::vector<std::string>& unitDims) {
    if (unitDims.empty()) return {};
    std::string names;
    for (const std::string& d : unitDims) names += (names.empty() ? "" : ", ") + d;
    return "with " + names + " = 1";
}

} // namespace graphlens
