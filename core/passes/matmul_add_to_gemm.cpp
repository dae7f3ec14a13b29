// matmul-add-to-gemm: MatMul(A, B) + bias with A [M, K] and B [K, N] is one Gemm,
//   Y = A * B + C with C = bias broadcast to [M, N],
// so the bias is added inside the product kernel instead of in a second pass over Y. A transformer's
// A [batch, sequence, K] with a per-feature bias is flattened to [batch * sequence, K] around the Gemm
// (Reshapes that move no data), as ONNX Runtime does.
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

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

/// One value per column of a rank-3+ product: [N], or [1, ..., 1, N] no longer than the product.
bool perColumn(const Shape& bias, const Shape& out) {
    if (bias.rank() == 0 || bias.rank() > out.rank() || !bias.isStatic()) return false;
    for (size_t i = 0; i + 1 < bias.rank(); ++i)
        if (bias[i].size() != 1) return false;
    return bias[bias.rank() - 1] == out[out.rank() - 1];
}

class MatMulAddToGemm final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Add"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& add = g.node(root);
        std::string why;
        const auto found = fusableOperand(
            g, add, [](const Node& n) { return isOp(n, "MatMul"); },
            [&](const Node& mm, ValueId bias) { return whyNot(g, mm, bias); }, why);
        if (!found) {
            if (!why.empty()) rw.decline(root, why);
            return false;
        }
        const Node& mm = *found->producer;
        const ValueId bias = found->other;
        std::string sentence = "fused " + describe(mm) + " and " + describe(add) + " into one Gemm: Y = A * B + " +
                               quoted(g, bias);
        if (g.value(mm.input(0)).shape.rank() == 2) {
            rw.replaceNodes({mm.id, root}, "Gemm", {mm.input(0), mm.input(1), bias}, {}, {},
                            Rewriter::KeepName::OfFirst);
        } else {
            sentence += ", with A flattened to " + flattenedShape(g, mm).toString() + " around it";
            gemmOnFlattenedRows(rw, mm, root, bias);
        }
        rw.count("numFused");
        rw.commit("matmul-add-to-gemm", std::move(sentence));
        return true;
    }

private:
    /// [M, K] for A [d0, ..., K], M = d0 * ... (A's shape is static when this is asked).
    static Shape flattenedShape(const Graph& g, const Node& mm) {
        const std::vector<int64_t> dims = *g.value(mm.input(0)).shape.sizes();
        int64_t rows = 1;
        for (size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];
        return Shape::ofSizes({rows, dims.back()});
    }

    /// Reshape(A, [M, K]) -> Gemm(., B, bias as [N]) -> Reshape back to the product's shape, which
    /// keeps the Add's output value so consumers are unaffected.
    static void gemmOnFlattenedRows(Rewriter& rw, const Node& mm, NodeId add, ValueId bias) {
        const Graph& g = rw.graph();
        const Node matmul = mm;  // a copy: the rewrites below change the graph
        const std::vector<int64_t> flat = *flattenedShape(g, matmul).sizes();
        const std::vector<int64_t> out = *g.value(g.node(add).output(0)).shape.sizes();
        const DType dtype = g.value(matmul.input(0)).dtype;
        const NodeId from[] = {matmul.id};
        const ValueId rowsShape = rw.addInitializer(matmul.name + "/rows_shape", Tensor::int64s({2}, flat));
        const NodeId toRows = rw.addNode("Reshape", {matmul.input(0), rowsShape}, {g.value(matmul.input(0)).name + "_rows"}, {},
                                         from, matmul.name + "/to_rows");
        const ValueId rows = g.node(toRows).output(0);
        rw.setValueInfo(rows, dtype, Shape::ofSizes(flat));
        ValueId column = bias;
        if (g.constantValue(bias)->dims().size() != 1) {
            const Tensor& full = *g.constantValue(bias);
            column = rw.addInitializer(g.value(bias).name + "_per_column",
                                       Tensor::view(full.dtype(), {full.numel()}, full.data(), full.byteSize(), full.sharedStorage()));
        }
        const NodeId allFrom[] = {matmul.id, add};
        const NodeId gemm = rw.addNode("Gemm", {rows, matmul.input(1), column}, {matmul.name + "_gemm_output"}, {}, allFrom,
                                       matmul.name);
        const ValueId product = g.node(gemm).output(0);
        rw.setValueInfo(product, dtype, Shape::ofSizes({flat[0], out.back()}));
        const ValueId outShape = rw.addInitializer(matmul.name + "/product_shape", Tensor::int64s({int64_t(out.size())}, out));
        rw.replaceNodes({matmul.id, add}, "Reshape", {product, outShape}, {});
    }

    /// Why MatMul `mm` plus `bias` is not one Gemm (empty when it is).
    static std::string whyNot(const Graph& g, const Node& mm, ValueId bias) {
        const ValueId product = mm.output(0);
        if (const std::string shared = whyOutputIsShared(g, mm); !shared.empty()) return "kept: " + shared;
        if (!g.constantValue(bias)) return "kept: the bias " + quoted(g, bias) + " is not a constant";
        const Value& a = g.value(mm.input(0));
        const Value& b = g.value(mm.input(1));
        if (!a.shape.rankKnown() || !b.shape.rankKnown()) return "kept: the ranks of the MatMul inputs are unknown";
        if (a.shape.rank() < 2) return "kept: MatMul input has rank " + std::to_string(a.shape.rank()) + "; Gemm takes 2-D";
        if (b.shape.rank() != 2) return "kept: MatMul's B has rank " + std::to_string(b.shape.rank()) + "; Gemm takes 2-D";
        if (!isFloating(a.dtype) || a.dtype != g.value(bias).dtype)
            return "kept: only float tensors of one type become a Gemm";
        const Shape biasShape = Shape::ofSizes(g.constantValue(bias)->dims());
        if (a.shape.rank() > 2) {
            if (!a.shape.isStatic() || !g.value(product).shape.isStatic())
                return "kept: the rank-" + std::to_string(a.shape.rank()) + " input " + quoted(g, mm.input(0)) +
                       " has no static shape to flatten to 2-D for a Gemm";
            if (!perColumn(biasShape, g.value(product).shape))
                return "kept: the bias " + quoted(g, bias) + " " + biasShape.toString() +
                       " is not one value per output feature, so it does not survive flattening the rank-" +
                       std::to_string(a.shape.rank()) + " product to 2-D";
            return {};
        }
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
               "twice. Gemm only takes 2-D operands: a MatMul with a rank-3 input (a transformer's [batch, "
               "sequence, features]) and a per-feature bias is flattened to [batch * sequence, features] by a "
               "Reshape, which moves no data, multiplied by one Gemm, and reshaped back, as ONNX Runtime does; "
               "that needs static shapes and a bias of one value per output feature. It also declines "
               "when the product is read by other nodes or is a graph output, when the bias is not a constant, "
               "and when the bias would broadcast the product to a larger shape.";
    }
};

} // namespace

std::unique_ptr<Pass> makeMatMulAddToGemmPass() { return std::make_unique<MatMulAddToGemmPass>(); }

} // namespace graphlens
