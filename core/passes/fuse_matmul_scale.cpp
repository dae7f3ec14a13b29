// fuse-matmul-scale: a product of two computed matrices (attention's Q x K^T) often comes with a
// Transpose that swaps the last two axes of an operand and a division by a scalar (sqrt of the head
// size). Both move into one com.microsoft FusedMatMul, as ONNX Runtime's MatMulScaleFusion and
// MatmulTransposeFusion do:
//   MatMul(A, Transpose(B, perm = [..., -1, -2])) / s  ->  FusedMatMul(A, B, transB = 1, alpha = 1 / s)
// The transposed operand is read in place with swapped strides, and alpha scales the sums as they
// are written, so neither the transposed copy nor the second pass over the product remains. A Gemm
// reading a transposed 2-D operand flips its own transA or transB the same way (the Gemm
// matmul-add-to-gemm makes of MatMul(A, Transpose(W)) + bias, whose Transpose fold-constants
// leaves: the weight is then never copied). It runs after fold-scale-into-conv, which moves a
// scale into a constant operand instead.
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"
#include "core/passes/subgraph_match.h"

#include <cmath>

namespace graphlens {
namespace {

bool isFloating(DType t) { return t == DType::Float || t == DType::Double; }

bool isFusedMatMul(const Node& n) { return n.opType == "FusedMatMul" && n.domain == "com.microsoft"; }

/// The product's attributes as FusedMatMul's (alpha 1, no transposes for a plain MatMul).
struct Product {
    double alpha = 1.0;
    int64_t transA = 0, transB = 0;

    static Product of(const Node& n) {
        if (!isFusedMatMul(n)) return {};
        return {n.attributes.getFloat("alpha", 1.f), n.attributes.getInt("transA", 0), n.attributes.getInt("transB", 0)};
    }
    Attributes attributes() const {
        Attributes a;
        a.set("alpha", float(alpha));
        a.set("transA", transA);
        a.set("transB", transB);
        return a;
    }
};

/// Why `product` cannot become a FusedMatMul at all (empty when it can).
std::string whyNotFusable(const Graph& g, const Node& product) {
    if (isFusedMatMul(product) &&
        (product.attributes.getInt("transBatchA", 0) != 0 || product.attributes.getInt("transBatchB", 0) != 0))
        return "kept: " + describe(product) + " already transposes batch axes";
    if (product.inputs().size() != 2 || !hasInput(product, 0) || !hasInput(product, 1))
        return "kept: " + describe(product) + " does not have two operands";
    const Value& a = g.value(product.input(0));
    if (!isFloating(a.dtype) || a.dtype != g.value(product.input(1)).dtype)
        return "kept: " + describe(product) + " is not a product of float32 or float64 tensors of one type";
    return {};
}

/// The one-element constant of a Mul or Div, when it scales the other operand without broadcasting
/// it to a larger rank; nullopt with `why` otherwise.
std::optional<double> scaleOf(const Graph& g, const Node& scaleNode, size_t constantSide, size_t productRank,
                              std::string& why) {
    const ValueId c = scaleNode.input(constantSide);
    const Tensor* t = g.constantValue(c);
    if (!t) {
        why = "kept: " + quoted(g, c) + " is not a constant";
        return std::nullopt;
    }
    if (t->numel() != 1) {
        why = "kept: " + quoted(g, c) + " " + Shape::ofSizes(t->dims()).toString() +
              " is not one number; alpha scales every element alike";
        return std::nullopt;
    }
    if (t->rank() > productRank) {
        why = "kept: " + quoted(g, c) + " has more axes than the product and would broadcast it";
        return std::nullopt;
    }
    if (t->dtype() != g.value(scaleNode.input(1 - constantSide)).dtype) {
        why = "kept: " + quoted(g, c) + " is not of the product's type";
        return std::nullopt;
    }
    std::optional<double> x;
    if (t->dtype() == DType::Float) x = t->span<float>()[0];
    else if (t->dtype() == DType::Double) x = t->span<double>()[0];
    if (!x) {
        why = "kept: " + quoted(g, c) + " is not float32 or float64";
        return std::nullopt;
    }
    if (scaleNode.opType == "Div") {
        if (*x == 0.0 || !std::isfinite(*x)) {
            why = "kept: dividing by " + formatNumber(*x) + " is not a finite scale";
            return std::nullopt;
        }
        return 1.0 / *x;
    }
    if (!std::isfinite(*x)) {
        why = "kept: multiplying by " + formatNumber(*x) + " is not a finite scale";
        return std::nullopt;
    }
    return *x;
}

/// Mul(product, s), Mul(s, product) or Div(product, s) after a MatMul or FusedMatMul.
class ScaleAfterProduct final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Mul", "Div"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& scale = g.node(root);
        std::optional<double> s;
        const auto whyNot = [&](const Node& product, ValueId factor) -> std::string {
            if (scale.opType == "Div" && factor != scale.input(1))
                return "kept: " + describe(product) + " is the divisor of " + describe(scale) + ", not a scaled product";
            if (std::string why = whyNotFusable(g, product); !why.empty()) return why;
            if (const std::string shared = whyOutputIsShared(g, product); !shared.empty()) return "kept: " + shared;
            const Shape& shape = g.value(product.output(0)).shape;
            if (!shape.rankKnown()) return "kept: the rank of the product is unknown";
            std::string why;
            s = scaleOf(g, scale, factor == scale.input(1) ? 1 : 0, shape.rank(), why);
            return why;
        };
        std::string why;
        const auto found = fusableOperand(
            g, scale, [](const Node& n) { return isOp(n, "MatMul") || isFusedMatMul(n); }, whyNot, why);
        if (!found) {
            if (!why.empty()) rw.decline(root, why);
            return false;
        }
        const Node& product = *found->producer;
        Product p = Product::of(product);
        p.alpha *= *s;
        const std::string sentence = "folded " + describe(scale) + " by " + quoted(g, found->other) + " into " +
                                     describe(product) + ": FusedMatMul with alpha = " + formatNumber(p.alpha);
        rw.replaceNodes({product.id, root}, "FusedMatMul", {product.input(0), product.input(1)}, p.attributes(),
                        "com.microsoft", Rewriter::KeepName::OfFirst);
        rw.useDomain("com.microsoft", 1);
        rw.count("numScalesFolded");
        rw.commit("fuse-matmul-scale", sentence);
        return true;
    }
};

/// A Transpose swapping the last two axes of an operand, or a scalar Mul/Div of one, moves into
/// the product: MatMul(A, Transpose(B)) -> FusedMatMul(A, B, transB = 1).
class OperandIntoProduct final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"MatMul", "com.microsoft:FusedMatMul", "Gemm"}; }

    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& product = g.node(root);
        const bool gemm = isOp(product, "Gemm");
        if (gemm) return transposeIntoGemm(root, rw);
        if (product.inputs().size() != 2) return false;
        const std::string notFusable = whyNotFusable(g, product);
        std::string why;
        for (size_t side : {size_t(0), size_t(1)}) {
            const Node* operand = producerOf(g, product.input(side));
            if (!operand) continue;
            const bool transpose = isOp(*operand, "Transpose");
            const bool scale = isOp(*operand, "Mul") || isOp(*operand, "Div");
            if (!transpose && !scale) continue;
            std::string reason = notFusable;
            if (reason.empty())
                if (const std::string shared = whyOutputIsShared(g, *operand); !shared.empty()) reason = "kept: " + shared;
            if (transpose && reason.empty()) reason = whyNotTransposed(g, *operand);
            std::optional<double> s;
            size_t scaled = 0;
            if (scale && reason.empty()) reason = scaledOperand(g, *operand, scaled, s);
            if (!reason.empty()) {
                if (why.empty()) why = reason;
                continue;
            }
            Product p = Product::of(product);
            std::vector<ValueId> inputs = product.inputs();
            std::string sentence;
            if (transpose) {
                int64_t& trans = side == 0 ? p.transA : p.transB;
                trans = 1 - trans;
                inputs[side] = operand->input(0);
                sentence = "folded " + describe(*operand) + " of " + quoted(g, operand->input(0)) + " into " +
                           describe(product) + ": FusedMatMul reads it with trans" + (side == 0 ? "A" : "B") +
                           " = " + std::to_string(trans);
            } else {
                p.alpha *= *s;
                inputs[side] = operand->input(scaled);
                sentence = "folded " + describe(*operand) + " of operand " + quoted(g, operand->input(scaled)) +
                           " into " + describe(product) + ": FusedMatMul with alpha = " + formatNumber(p.alpha);
            }
            const NodeId nodes[] = {operand->id, root};
            rw.replaceNodes(nodes, "FusedMatMul", inputs, p.attributes(), "com.microsoft", Rewriter::KeepName::OfLast);
            rw.useDomain("com.microsoft", 1);
            rw.count(transpose ? "numTransposesFolded" : "numScalesFolded");
            rw.commit("fuse-matmul-scale", sentence);
            return true;
        }
        if (!why.empty()) rw.decline(root, why);
        return false;
    }

private:
    /// Gemm(Transpose(A), B, C) or Gemm(A, Transpose(B), C) with a 2-D transposed operand: the
    /// Gemm flips its transA or transB and reads the operand where it is.
    static bool transposeIntoGemm(NodeId root, Rewriter& rw) {
        const Graph& g = rw.graph();
        const Node& gemm = g.node(root);
        if (gemm.inputs().size() < 2 || !hasInput(gemm, 0) || !hasInput(gemm, 1)) return false;
        std::string why;
        for (size_t side : {size_t(0), size_t(1)}) {
            const Node* operand = producerOf(g, gemm.input(side));
            if (!operand || !isOp(*operand, "Transpose")) continue;
            std::string reason = whyOutputIsShared(g, *operand);
            if (!reason.empty()) reason = "kept: " + reason;
            if (reason.empty()) reason = whyNotTransposed(g, *operand);
            if (reason.empty() && g.value(operand->input(0)).shape.rank() != 2)
                reason = "kept: " + describe(*operand) + " is not of a 2-D operand, which Gemm takes";
            if (!reason.empty()) {
                if (why.empty()) why = reason;
                continue;
            }
            const char* flag = side == 0 ? "transA" : "transB";
            const int64_t trans = 1 - gemm.attributes.getInt(flag, 0);
            Attributes attributes = gemm.attributes;
            attributes.set(flag, trans);
            std::vector<ValueId> inputs = gemm.inputs();
            inputs[side] = operand->input(0);
            const std::string sentence = "folded " + describe(*operand) + " of " + quoted(g, operand->input(0)) + " into " +
                                         describe(gemm) + ": the Gemm reads it with " + flag + " = " + std::to_string(trans);
            const NodeId nodes[] = {operand->id, root};
            rw.replaceNodes(nodes, "Gemm", inputs, std::move(attributes), {}, Rewriter::KeepName::OfLast);
            rw.count("numTransposesFolded");
            rw.commit("fuse-matmul-scale", sentence);
            return true;
        }
        if (!why.empty()) rw.decline(root, why);
        return false;
    }

    static std::string whyNotTransposed(const Graph& g, const Node& t) {
        const Shape& in = g.value(t.input(0)).shape;
        if (!in.rankKnown()) return "kept: the rank of the input of " + describe(t) + " is unknown";
        if (!swapsLastTwoAxes(t, in.rank())) return "kept: " + describe(t) + " does more than swap the last two axes";
        return {};
    }

    /// For Mul(x, s), Mul(s, x) or Div(x, s): which input is x, and the scale.
    static std::string scaledOperand(const Graph& g, const Node& n, size_t& scaled, std::optional<double>& s) {
        if (n.inputs().size() != 2 || !hasInput(n, 0) || !hasInput(n, 1)) return "kept: " + describe(n) + " lacks an operand";
        const bool div = n.opType == "Div";
        scaled = !div && g.constantValue(n.input(0)) && !g.constantValue(n.input(1)) ? 1 : 0;
        const Shape& x = g.value(n.input(scaled)).shape;
        if (!x.rankKnown() || x != g.value(n.output(0)).shape)
            return "kept: " + describe(n) + " changes the shape of its operand";
        std::string why;
        s = scaleOf(g, n, 1 - scaled, x.rank(), why);
        return why;
    }
};

class FuseMatMulScalePass final : public PatternPass {
public:
    FuseMatMulScalePass() {
        addPattern<OperandIntoProduct>();
        addPattern<ScaleAfterProduct>();
    }
    std::string id() const override { return "fuse-matmul-scale"; }
    std::string title() const override { return "Fold transposes and scalar scales into MatMul"; }
    std::string explanation() const override {
        return "Attention computes softmax(Q x K^T / sqrt(d)): a Transpose makes K^T, a MatMul multiplies, and a "
               "Div scales every element of the product. ONNX Runtime's com.microsoft FusedMatMul computes "
               "Y = alpha * op(A) x op(B), where op swaps the last two axes of an operand when transA or transB "
               "is 1, so the three nodes are one: FusedMatMul(Q, K, transB = 1, alpha = 1 / sqrt(d)). The kernel "
               "reads the untransposed K with swapped strides and scales the sums as it writes them, saving a copy "
               "of K and a second pass over the product. A scalar Mul or Div on an operand folds into alpha the "
               "same way, since (s A) x B = s (A x B). A Gemm reading a transposed 2-D operand flips its own transA "
               "or transB instead (the Gemm of a weight whose Transpose fold-constants left for this pass). "
               "The pass declines when a Transpose moves other axes, when a "
               "scale is not one number or would broadcast the product, when the Transpose, scale or product is "
               "read by other nodes or is a graph output, and for non-float products. It runs after "
               "fold-scale-into-conv, which scales a constant operand instead where it can.";
    }
};

} // namespace

std::unique_ptr<Pass> makeFuseMatMulScalePass() { return std::make_unique<FuseMatMulScalePass>(); }

} // namespace graphlens
