// matmul-add-to-gemm: MatMul(A, B) + bias with A [M, K] and B [K, N] is one Gemm,
//   Y = A * B + C with C = bias broadcast to [M, N],
// so the bias is added inside the product kernel instead of in a second pass over Y.
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

namespace graphlens {
namespace {

bool isFloating(DType t) { return t == DType::Float || t == DType::Double || t == DType::Float16; }

/// Gemm's C broadcasts one way only: each of its (up to two) trailing dims is 1 or the output's.
bool broadcastsTo(const Shape& bias, const Shape& out) {
    if (!bias.rankKnown() || bias.rank() > 2 || !out.rankKnown() || out.rank() != 2) return false;
    for (size_t i = 0; i < bias.rank(); ++i) {
        const Dim& d = bias[i];
        const Dim& o = out[2 - bias.rank() + i];
        if (!(d.isStatic() && d.size() == 1) && (d.isUnknown() || d != o)) return false;
    }
    return true;
}

class MatMulAddToGemm final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Add"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& add = g.node(root);
        if (add.inputs.size() != 2 || !hasInput(add, 0) || !hasInput(add, 1)) return false;
        std::string why;
        for (size_t side : {size_t(0), size_t(1)}) {
            const Node* mm = producerOf(g, add.inputs[side]);
            if (!mm || mm->opType != "MatMul" || !(mm->domain.empty() || mm->domain == "ai.onnx")) continue;
            if (const std::string reason = whyNot(g, *mm, add.inputs[1 - side]); !reason.empty()) {
                if (why.empty()) why = reason;
                continue;
            }
            const std::string sentence = "fused " + describe(*mm) + " and " + describe(add) + " into one Gemm: Y = A * B + " +
                                         quoted(g, add.inputs[1 - side]);
            rw.replaceNodes({mm->id, root}, "Gemm", {mm->inputs[0], mm->inputs[1], add.inputs[1 - side]}, {}, {},
                            Rewriter::KeepName::OfFirst);
            rw.count("numFused");
            rw.commit("matmul-add-to-gemm", sentence);
            return true;
        }
        if (!why.empty()) rw.decline(root, why);
        return false;
    }

private:
    /// Why MatMul `mm` plus `bias` is not one Gemm (empty when it is).
    static std::string whyNot(const Graph& g, const Node& mm, ValueId bias) {
        const ValueId product = mm.outputs[0];
        if (const std::string shared = whyOutputIsShared(g, mm); !shared.empty()) return "kept: " + shared;
        if (!g.constantValue(bias)) return "kept: the bias " + quoted(g, bias) + " is not a constant";
        const Value& a = g.value(mm.inputs[0]);
        const Value& b = g.value(mm.inputs[1]);
        if (!a.shape.rankKnown() || !b.shape.rankKnown()) return "kept: the ranks of the MatMul inputs are unknown";
        if (a.shape.rank() != 2) return "kept: MatMul input has rank " + std::to_string(a.shape.rank()) + "; Gemm takes 2-D";
        if (b.shape.rank() != 2) return "kept: MatMul's B has rank " + std::to_string(b.shape.rank()) + "; Gemm takes 2-D";
        if (!isFloating(a.dtype) || a.dtype != g.value(bias).dtype)
            return "kept: only float tensors of one type become a Gemm";
        const Shape biasShape = Shape::ofSizes(g.constantValue(bias)->dims());
        if (!broadcastsTo(biasShape, g.value(product).shape))
            return "kept: the bias " + quoted(g, bias) + " " + biasShape.toString() + " does not broadcast to the product " +
                   g.value(product).shape.toString() + " without growing it";
        return {};
    }
};

class MatMulAddToGemmPass final : public PatternPass {
public:
    MatMulAddToGemmPass() { addPattern<MatMulAddToGemm>(); }
    std::string id() const override { return "matmul-add-to-gemm"; }
    std::string title() const override { return "Fuse MatMul + Add into Gemm"; }
    std::string explanation() const override {
        return "Gemm computes Y = alpha * A * B + beta * C in one kernel, so a MatMul of a matrix A [M, K] by "
               "B [K, N] followed by the addition of a constant bias that broadcasts to [M, N] (one value per "
               "column, per row, or a full matrix) is one Gemm with C = bias, and Y is written once instead of "
               "twice. Gemm only takes 2-D operands: for a MatMul with a rank-3 input (a transformer's [batch, "
               "sequence, features]) it declines and the pair stays, as ONNX Runtime keeps it. It also declines "
               "when the product is read by other nodes or is a graph output, when the bias is not a constant, "
               "and when the bias would broadcast the product to a larger shape.";
    }
};

} // namespace

std::unique_ptr<Pass> makeMatMulAddToGemmPass() { return std::make_unique<MatMulAddToGemmPass>(); }

} // namespace graphlens
