#include "core/runtime/prepare.h"

#include "core/onnx/shape_inference.h"
#include "core/passes/constant_folding.h"
#include "core/passes/pass_manager.h"
#include "core/passes/pass_registry.h"
#include "core/passes/rewriter.h"
#include "core/runtime/cpu/qdq_fusion.h"
#include "core/runtime/errors.h"
#include "core/runtime/node_descriptor.h"
#include "core/runtime/op_validation.h"

namespace graphlens {
namespace {

/// Folding stops opening shapes after this many rounds; each round (a shape inference) opens them
/// up to the next computation shape inference cannot see through, about one per layer.
constexpr int kFoldRounds = 256;
/// Plan-time folding evaluates shape arithmetic and small constants; a larger result stays a
/// node (the cap of the CPU plan before this step: 4096 int64 elements).
constexpr size_t kFoldLimitBytes = 4096 * 8;

/// The first computed value whose shape is not static, as a sentence; empty when there is none.
std::string firstOpenShape(const Graph& g) {
    for (NodeId id : g.topologicalOrder()) {
        const Node& n = g.node(id);
        for (ValueId out : n.outputs()) {
            const Value& v = g.value(out);
            const bool omitted = v.name.empty() && v.uses().empty() && !g.isGraphOutput(out);
            if (!omitted && !v.shape.isStatic() && !g.constantValue(out))
                return "the output '" + v.name + "' of " + nodeLabel(n) + " has the shape " + v.shape.toString() +
                       " until the model runs";
        }
    }
    return {};
}

/// Whether shape inference must run: the caller's input shapes differ from the model's, some
/// computed shape is not static, or the loader found the file's shapes stale (a graph output
/// declared [1,1,20,24] that computes [1,1,118,24]: kernels sized by it would overrun).
bool needsInference(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    for (const std::string& warning : model.warnings)
        if (warning.rfind("ONNX shape inference:", 0) == 0 && warning.find("existing shape differ") != std::string::npos)
            return true;
    for (ValueId v : model.graph.inputs()) {
        auto given = inputShapes.find(model.graph.value(v).name);
        if (given != inputShapes.end() && model.graph.value(v).shape.sizes() != given->second) return true;
    }
    return !firstOpenShape(model.graph).empty();
}

/// Inputs take the given shapes; everything computed loses its shape, so nodes run with shapes
/// found at run time (after shape inference failed, the file's shapes cannot be trusted).
void forgetComputedShapes(Graph& g, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    for (ValueId v : g.valueIds()) {
        Value& value = g.value(v);
        if (g.isGraphInput(v)) {
            if (auto it = inputShapes.find(value.name); it != inputShapes.end()) value.shape = Shape::ofSizes(it->second);
        } else if (!value.initializer) {
            value.shape = Shape();
        }
    }
}

/// Int8 weights behind a DequantizeLinear (what quantize-int8-weights writes, and QDQ models)
/// become float32 initializers once, whatever their size, so convolutions and products see
/// float constants and run on their fast kernels instead of dequantizing on every run. With
/// `keepQdqConvWeights`, the weights of QDQ convolutions and products stay quantized for the CPU backend's
/// int8 kernels (qdq_fusion.h).
class DequantizeWeights final : public Pass {
public:
    explicit DequantizeWeights(bool keepQdqConvWeights) : keepQdq_(keepQdqConvWeights) {}
    std::string id() const override { return "dequantize-weights"; }
    std::string title() const override { return "Dequantize constant weights"; }
    std::string explanation() const override {
        return "A DequantizeLinear whose inputs are all constants computes the same float weights on every "
               "run: y = (x - zero_point) * scale. The plan computes them once.";
    }
    void run(Rewriter& rw, PassContext& context) override {
        for (NodeId id : rw.graph().topologicalOrder()) {
            const Node& n = rw.graph().node(id);
            if (n.opType != "DequantizeLinear" || !n.domain.empty() || !allInputsConstant(rw.graph(), n)) continue;
            if (keepQdq_ && isQdqWeight(rw.graph(), id)) {
                rw.decline(id, "kept: the weights of a QDQ convolution or matrix product, for int8 kernels");
                continue;
            }
            std::vector<Tensor> weights;
            try {
                weights = evaluateOnConstants(rw.graph(), n, context.opset);
            } catch (const std::exception& e) {
                rw.decline(id, std::string("kept: its reference kernel failed: ") + e.what());
                continue;  // the same error is reported at run time, with the node's name
            }
            const std::string label = nodeLabel(n);
            rw.replaceByConstants(id, std::move(weights));
            rw.count("numDequantized");
            rw.commit("dequantize-weights", "stored the weights of " + label + " as float32");
        }
    }

private:
    bool keepQdq_;
};

} // namespace

PreparedModel prepareModel(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes) {
    const int64_t opset = model.opsetVersion();
    // Attributes out of range would reach divisions in shape inference and the kernels.
    validateGraph(model.graph, opset);
    PreparedModel prepared{model, {}, {}};  // a snapshot: weights shared
    Model& m = prepared.model;
    if (needsInference(model, inputShapes)) {
        try {
            inferShapesForInputs(m, inputShapes);
            std::string given;
            for (const auto& [name, dims] : inputShapes) given += (given.empty() ? " " : ", ") + name + " " + Shape::ofSizes(dims).toString();
            prepared.steps.push_back("inferred every shape" + (given.empty() ? std::string() : " for" + given));
        } catch (const std::exception& e) {
            // Static dims that cannot broadcast fail at run time too, after every node before them
            // ran on the slow run-time-shape path (minutes for a 2^20-token input): say so now.
            if (std::string(e.what()).find("Incompatible dimensions") != std::string::npos)
                throw ExecutionError(e.what(), ErrorKind::InvalidModel);
            forgetComputedShapes(m.graph, inputShapes);
            prepared.openShapes = std::string("shape inference failed for these input shapes: ") + e.what();
            prepared.steps.push_back(prepared.openShapes);
            return prepared;
        }
    }
    // Shape arithmetic shape inference cannot see through (Div, Cast, Range of computed sizes)
    // becomes constants, round by round, until every shape is static or nothing more folds.
    PassContext context = contextFor(m);
    context.foldSizeLimitBytes = kFoldLimitBytes;
    size_t folded = 0;
    int rounds = 0;
    if (!firstOpenShape(m.graph).empty()) {
        const auto passes = makePipeline("fold-constants,fold-shapes");
        for (; rounds < kFoldRounds && !firstOpenShape(m.graph).empty(); ++rounds) {
            size_t rewrites = 0;
            for (const auto& pass : passes) rewrites += runPass(*pass, m, context, false).rewrites.size();
            folded += rewrites;
            if (rewrites == 0) break;
            try {
                inferShapesForInputs(m, {});  // one inference per round, after both passes
            } catch (const std::exception&) {
                break;  // shapes stay as they were; the open ones are named below
            }
        }
    }
    if (folded)
        prepared.steps.push_back("folded " + std::to_string(folded) + " shape computations and constants in " +
                                 std::to_string(rounds) + (rounds == 1 ? " round" : " rounds"));
    DequantizeWeights dequantize(true);
    if (const auto result = runPass(dequantize, m, context); !result.rewrites.empty())
        prepared.steps.push_back("dequantized " + std::to_string(result.rewrites.size()) + " int8 weights");
    validateGraph(m.graph, opset);  // now with the concrete ranks and sizes
    prepared.openShapes = firstOpenShape(m.graph);
    return prepared;
}

void dequantizeConstantWeights(PreparedModel& prepared) {
    PassContext context = contextFor(prepared.model);
    DequantizeWeights dequantize(false);
    if (const auto result = runPass(dequantize, prepared.model, context, false); !result.rewrites.empty())
        prepared.steps.push_back("dequantized " + std::to_string(result.rewrites.size()) + " int8 weights of QDQ convolutions and products");
}

} // namespace graphlens
