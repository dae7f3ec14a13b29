// Static shapes: the graph keeps its nodes (a profile's node ids stay valid); only value shapes
// change, taken from a folded copy by value id where the copy knows more.
#include "core/passes/static_shapes.h"

#include "core/onnx/shape_inference.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"

#include <algorithm>

namespace graphlens {
namespace {

constexpr int kFoldRounds = 200;  ///< each round opens the shapes up to the next Reshape (a layer)

bool fullyStatic(const Shape& shape) {
    return shape.rankKnown() && std::all_of(shape.dims().begin(), shape.dims().end(), [](const Dim& d) { return d.isStatic(); });
}

/// Whether some non-constant value of `graph` still has a shape that is not all numbers.
bool someShapeOpen(const Graph& graph) {
    for (NodeId id : graph.nodeIds())
        for (ValueId v : graph.node(id).outputs())
            if (v != kNoId && !fullyStatic(graph.value(v).shape) && !graph.constantValue(v)) return true;
    return false;
}

} // namespace

std::vector<std::string> symbolicInputDims(const Graph& graph) {
    std::vector<std::string> names;
    for (ValueId id : graph.inputs()) {
        const Value& v = graph.value(id);
        if (v.initializer || !v.shape.rankKnown()) continue;
        for (const Dim& d : v.shape.dims()) {
            const std::string name = d.isSymbolic() ? d.symbol() : d.isUnknown() ? "?" : std::string();
            if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    return names;
}

std::map<std::string, std::vector<int64_t>> unitInputShapes(const Graph& graph) {
    std::map<std::string, std::vector<int64_t>> shapes;
    for (ValueId id : graph.inputs()) {
        const Value& v = graph.value(id);
        if (v.initializer || !v.shape.rankKnown() || fullyStatic(v.shape)) continue;
        std::vector<int64_t> sizes;
        for (const Dim& d : v.shape.dims()) sizes.push_back(d.isStatic() ? d.size() : 1);
        shapes[v.name] = std::move(sizes);
    }
    return shapes;
}

Graph graphWithStaticShapes(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes,
                            const std::function<bool()>& cancelled) {
    Model shaped = model;  // a snapshot: weights shared
    try {
        inferShapesForInputs(shaped, inputShapes);
    } catch (const std::exception& e) {
        return model.graph;
    }
    if (!someShapeOpen(shaped.graph)) return std::move(shaped.graph);
    // ONNX data propagation stops at shape arithmetic it has no rule for (Div, Cast, ...):
    // fold the shape computations in a copy, where they become constants, and read its shapes.
    Model folded = shaped;
    try {
        PassContext context = contextFor(folded);
        context.foldShapesOnly = true;  // shape tensors are small; a transposed weight is not needed
        // Constant folding first: PyTorch writes slice bounds as Unsqueeze(Constant), which
        // fold-shapes only folds downstream of a Shape it folded itself.
        const auto passes = makePipeline("fold-constants,fold-shapes");
        for (int round = 0; round < kFoldRounds && someShapeOpen(folded.graph) && !(cancelled && cancelled()); ++round) {
            size_t rewrites = 0;
            for (const auto& pass : passes) rewrites += runPass(*pass, folded, context).rewrites.size();
            if (rewrites == 0) break;
        }
    } catch (const std::exception& e) {
        return std::move(shaped.graph);
    }
    Graph& g = shaped.graph;
    for (NodeId id : g.nodeIds())
        for (ValueId v : g.node(id).outputs())
            if (v != kNoId && !fullyStatic(g.value(v).shape) && folded.graph.hasValue(v) &&
                fullyStatic(folded.graph.value(v).shape))
                g.value(v).shape = folded.graph.value(v).shape;
    return std::move(shaped.graph);
}

} // namespace graphlens
