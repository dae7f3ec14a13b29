// fold-shapes: Shape and Size of a tensor whose dims are known before the model runs become
// int64 constants, and so does the shape arithmetic downstream of them (Gather, Unsqueeze,
// Concat, ... folded by the shared constant folding), so Shape->Gather->Unsqueeze->Concat->Reshape
// chains collapse into a Reshape with a constant target.
#include "core/passes/constant_folding.h"

#include "core/graph/op_key.h"
#include "core/passes/graph_query.h"

#include <algorithm>
#include <unordered_set>

namespace graphlens {
namespace {

/// Shape's [start, end) range over a tensor of rank `rank`, clamped as ONNX (opset 15) says.
std::pair<int64_t, int64_t> shapeRange(const Node& shape, int64_t rank) {
    auto clamp = [rank](int64_t axis) { return std::clamp(axis < 0 ? axis + rank : axis, int64_t(0), rank); };
    const int64_t start = clamp(shape.attributes.getInt("start", 0));
    const int64_t end = clamp(shape.attributes.getInt("end", rank));
    return {start, std::max(start, end)};
}

/// The dims Shape reports, or why they are not known yet ("dim 0 of 'x' is 'batch'").
std::optional<std::vector<int64_t>> shapeDims(const Graph& g, const Node& shape, std::string& why) {
    const Value& in = g.value(shape.input(0));
    if (!in.shape.rankKnown()) {
        why = "the rank of '" + in.name + "' is not known before the model runs";
        return std::nullopt;
    }
    const auto [start, end] = shapeRange(shape, int64_t(in.shape.rank()));
    std::vector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) {
        const Dim& d = in.shape[size_t(i)];
        if (!d.isStatic()) {
            why = "dim " + std::to_string(i) + " of '" + in.name + "' is '" + d.toString() +
                  "', known only when the model runs";
            return std::nullopt;
        }
        dims.push_back(d.size());
    }
    return dims;
}

/// Shape(x) -> int64 constant of x's static dims; Size(x) -> int64 scalar of their product.
bool foldShapeOrSize(NodeId id, Rewriter& rw) {
    const Graph& g = rw.graph();
    const Node& n = g.node(id);
    if (!hasInput(n, 0) || n.outputs().size() != 1) return false;
    std::string why, text;
    std::optional<Tensor> constant;
    if (n.opType == "Shape") {
        if (const auto dims = shapeDims(g, n, why)) {
            constant = Tensor::int64s({int64_t(dims->size())}, *dims);
            text = Shape::ofSizes(*dims).toString();
        }
    } else if (const auto count = g.value(n.input(0)).shape.numel()) {
        constant = Tensor::int64s({}, {*count});
        text = std::to_string(*count);
    } else {
        why = "the shape " + g.value(n.input(0)).shape.toString() + " of " + quoted(g, n.input(0)) +
              " is not static";
    }
    if (!constant) {
        rw.decline(id, "kept: " + why);
        return false;
    }
    const std::string sentence = "replaced " + describe(n) + " of " + quoted(g, n.input(0)) + " by the constant " + text;
    rw.replaceByConstants(id, {*constant});
    rw.count("numShapesFolded");
    rw.commit("fold-shape", sentence);
    return true;
}

/// Gather(Shape(x), constant indices) where the gathered dims are static, even when others are
/// not: x.size(-1) of a [batch, seq, 768] tensor is 768.
bool foldGatheredDims(NodeId id, Rewriter& rw) {
    const Graph& g = rw.graph();
    const Node& n = g.node(id);
    const Node* shape = producerOf(g, n.input(0));
    if (!shape || shape->opType != "Shape" || !shape->domain.empty() || !hasInput(n, 1)) return false;
    if (const int64_t axis = n.attributes.getInt("axis", 0); axis != 0 && axis != -1) return false;
    const std::optional<Tensor> indices = constantTensor(g, n.input(1));
    const Value& in = g.value(shape->input(0));
    if (!indices || !isInteger(indices->dtype()) || indices->rank() > 1 || !in.shape.rankKnown()) return false;
    const auto [start, end] = shapeRange(*shape, int64_t(in.shape.rank()));
    std::vector<int64_t> dims;
    for (double index : indices->toDoubles()) {
        const int64_t i = int64_t(index) < 0 ? int64_t(index) + (end - start) : int64_t(index);
        if (i < 0 || i >= end - start || !in.shape[size_t(start + i)].isStatic()) return false;
        dims.push_back(in.shape[size_t(start + i)].size());
    }
    const std::string sentence = "replaced " + describe(n) + " of the dims of " + quoted(g, shape->input(0)) +
                                 " by the constant " + Shape::ofSizes(dims).toString() + ": those dims are static";
    const NodeId shapeId = shape->id;
    const ValueId shapeOut = shape->output(0);
    rw.replaceByConstants(id, {Tensor::int64s(indices->dims(), dims)});
    if (g.value(shapeOut).uses().empty() && !g.isGraphOutput(shapeOut)) rw.removeNode(shapeId);
    rw.count("numShapesFolded");
    rw.commit("fold-gathered-dims", sentence);
    return true;
}

bool readsAny(const Node& n, const std::unordered_set<ValueId>& values) {
    return std::any_of(n.inputs().begin(), n.inputs().end(), [&](ValueId v) { return values.count(v) > 0; });
}

class FoldShapes final : public Pass {
public:
    bool refreshesShapes() const override { return true; }
    std::string id() const override { return "fold-shapes"; }
    std::string title() const override { return "Fold shape computations"; }
    std::string explanation() const override {
        return "Exporters write shapes as computations: Shape(x) -> Gather -> Unsqueeze -> Concat -> "
               "Reshape, evaluated on every run although shape inference already knows x's dims. When "
               "the dims Shape reports (all of them, or those between its start and end) are static "
               "numbers, Shape becomes an int64 constant holding them, and Size becomes the constant "
               "product of the dims. Gather(Shape(x), i) becomes a constant when the gathered dims are "
               "static even if other dims of x are not (the hidden size of a [batch, seq, 768] tensor). "
               "The shape arithmetic downstream of these constants is then folded by the same constant "
               "folding as fold-constants, so the Reshape ends up with a constant target. A Shape or "
               "Size stays when a dim it reports is symbolic ('batch') or unknown, or the rank of its "
               "input is unknown.";
    }
    void run(Rewriter& rw, PassContext& context) override {
        std::unordered_set<ValueId> madeConstant;  // values this pass turned into constants
        for (NodeId id : rw.graph().topologicalOrder()) {
            if (!rw.graph().hasNode(id)) continue;
            const Node& n = rw.graph().node(id);
            if (!isDefaultDomain(n.domain)) continue;
            const std::vector<ValueId> outputs = n.outputs();
            bool folded = false;
            if (n.opType == "Shape" || n.opType == "Size")
                folded = foldShapeOrSize(id, rw);
            else if (n.opType == "Gather" && !isConstant(rw.graph(), n.input(0)) && foldGatheredDims(id, rw))
                folded = true;
            else if (readsAny(n, madeConstant) && allInputsConstant(rw.graph(), n))
                folded = foldToConstants(id, rw, context, "fold-shape-chain");
            if (folded) madeConstant.insert(outputs.begin(), outputs.end());
        }
    }
};

} // namespace

std::unique_ptr<Pass> makeFoldShapesPass() { return std::make_unique<FoldShapes>(); }

} // namespace graphlens
