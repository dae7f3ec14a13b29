// simplify-transpose-reshape: two Transposes in a row are one Transpose (or none), and a
// Reshape after a Reshape, Flatten, Squeeze or Unsqueeze is one Reshape, because both kinds of
// chain only move data the way their last step says.
#include "core/passes/constant_folding.h"
#include "core/passes/graph_query.h"
#include "core/passes/pattern.h"

#include <algorithm>
#include <numeric>

namespace graphlens {
namespace {

std::string listText(const std::vector<int64_t>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    return out + "]";
}

/// Why the intermediate value `mid` of a chain must stay, or empty when only the chain reads it.
std::string whyIntermediateStays(const Graph& g, ValueId mid) {
    if (g.isGraphOutput(mid)) return "its output " + quoted(g, mid) + " is a graph output";
    if (const size_t readers = g.value(mid).uses().size(); readers != 1)
        return "its output " + quoted(g, mid) + " is read by " + std::to_string(readers) + " nodes";
    if (namesReadBySubgraphs(g).count(g.value(mid).name)) return "a sub-graph reads its output " + quoted(g, mid);
    return {};
}

/// A Transpose's permutation; the default (no perm) reverses the axes of a tensor of known rank.
std::optional<std::vector<int64_t>> permutationOf(const Graph& g, const Node& transpose) {
    if (transpose.attributes.has("perm")) return transpose.attributes.getInts("perm");
    const Shape& in = g.value(transpose.input(0)).shape;
    if (!in.rankKnown()) return std::nullopt;
    std::vector<int64_t> reversed(in.rank());
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    return reversed;
}

/// Transpose(Transpose(x, p1), p2) = Transpose(x, p) with p[j] = p1[p2[j]]; none when p keeps
/// every axis in place.
class ComposeTransposes final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Transpose"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& outer = g.node(root);
        const Node* inner = producerOf(g, outer.input(0));
        if (!inner || inner->opType != "Transpose" || !inner->domain.empty()) return false;
        if (const std::string why = whyIntermediateStays(g, inner->output(0)); !why.empty()) {
            rw.decline(root, "kept apart from " + describe(*inner) + ": " + why);
            return false;
        }
        const auto p1 = permutationOf(g, *inner), p2 = permutationOf(g, outer);
        if (!p1 || !p2 || p1->size() != p2->size()) {
            rw.decline(root, "kept apart from " + describe(*inner) + ": a permutation is the default "
                                                                     "(reversed axes) of a tensor of unknown rank");
            return false;
        }
        std::vector<int64_t> p(p2->size());
        for (size_t j = 0; j < p.size(); ++j) p[j] = (*p1)[size_t((*p2)[j])];
        const NodeId innerId = inner->id;
        const ValueId x = inner->input(0), y = outer.output(0);
        std::vector<int64_t> identity(p.size());
        std::iota(identity.begin(), identity.end(), 0);
        if (p != identity) {
            const std::string sentence = "composed " + describe(*inner) + " and " + describe(outer) +
                                         " into one Transpose with perm " + listText(p);
            rw.replaceNodes({innerId, root}, "Transpose", {x}, {{"perm", p}});
            rw.count("numTransposesComposed");
            rw.commit("compose-transposes", sentence);
            return true;
        }
        const std::string sentence = "removed " + describe(*inner) + " and " + describe(outer) +
                                     ": their permutations cancel out";
        if (g.isGraphOutput(y) || namesReadBySubgraphs(g).count(g.value(y).name)) {
            rw.replaceNodes({innerId, root}, "Identity", {x}, {});  // keeps the name 'y'
        } else {
            rw.replaceAllUses(y, x);
            rw.removeNode(root);
            rw.removeNode(innerId);
        }
        rw.count("numTransposesCancelled");
        rw.commit("cancel-transposes", sentence);
        return true;
    }
};

/// Reshape(Reshape|Flatten|Squeeze|Unsqueeze(x), s) = Reshape(x, s'): every step keeps the
/// elements in row-major order, so only the last shape counts. s' is s with each 0 ("copy this
/// dim of my input") replaced by the dim of the intermediate it copied; -1 still means "the
/// rest", since the element count does not change along the chain.
class CollapseReshapes final : public RewritePattern {
public:
    std::vector<std::string> rootOps() const override { return {"Reshape"}; }
    bool matchAndRewrite(NodeId root, Rewriter& rw, const PassContext&) const override {
        const Graph& g = rw.graph();
        const Node& outer = g.node(root);
        const Node* inner = producerOf(g, outer.input(0));
        static const std::vector<std::string> kReshapeLike = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
        if (!inner || !inner->domain.empty() || !hasInput(outer, 1) ||
            std::find(kReshapeLike.begin(), kReshapeLike.end(), inner->opType) == kReshapeLike.end())
            return false;
        const std::string apart = "kept apart from " + describe(*inner) + ": ";
        if (const std::string why = whyIntermediateStays(g, inner->output(0)); !why.empty()) {
            rw.decline(root, apart + why);
            return false;
        }
        const std::optional<Tensor> target = constantTensor(g, outer.input(1));
        if (!target || target->dtype() != DType::Int64) {
            rw.decline(root, apart + "its target shape " + quoted(g, outer.input(1)) + " is not a constant");
            return false;
        }
        std::string why;
        const auto shape = resolvedShape(g, outer, inner->output(0), *target, why);
        if (!shape) {
            rw.decline(root, apart + why);
            return false;
        }
        const std::string sentence = "collapsed " + describe(*inner) + " and " + describe(outer) +
                                     " into one Reshape to " + listText(*shape);
        const bool sameTarget = std::equal(shape->begin(), shape->end(), target->span<int64_t>().begin(), target->span<int64_t>().end());
        const ValueId shapeValue = sameTarget ? outer.input(1)
                                              : rw.addInitializer(outer.name + "_shape", Tensor::int64s({int64_t(shape->size())}, *shape));
        rw.replaceNodes({inner->id, root}, "Reshape", {inner->input(0), shapeValue}, outer.attributes);
        rw.count("numReshapesCollapsed");
        rw.commit("collapse-reshapes", sentence);
        return true;
    }

private:
    /// The target with its 0s resolved against the intermediate `mid` (unless allowzero, where
    /// 0 is a literal 0); nullopt when a copied dim is not a known positive number.
    static std::optional<std::vector<int64_t>> resolvedShape(const Graph& g, const Node& reshape, ValueId mid,
                                                             const Tensor& target, std::string& why) {
        auto s = target.span<int64_t>();
        std::vector<int64_t> dims(s.begin(), s.end());
        if (reshape.attributes.getInt("allowzero", 0) != 0) return dims;
        const Shape& midShape = g.value(mid).shape;
        for (size_t i = 0; i < dims.size(); ++i) {
            if (dims[i] != 0) continue;
            const bool known = midShape.rankKnown() && i < midShape.rank() && midShape[i].isStatic() && midShape[i].size() > 0;
            if (!known) {
                why = "its target shape copies dim " + std::to_string(i) + " of " + quoted(g, mid) +
                      " (a 0), whose size is not known";
                return std::nullopt;
            }
            dims[i] = midShape[i].size();
        }
        return dims;
    }
};

class SimplifyTransposeReshape final : public PatternPass {
public:
    SimplifyTransposeReshape() {
        addPattern<ComposeTransposes>();
        addPattern<CollapseReshapes>();
    }
    std::string id() const override { return "simplify-transpose-reshape"; }
    std::string title() const override { return "Shorten Transpose and Reshape chains"; }
    std::string explanation() const override {
        return "Transposing by p1 and then by p2 moves output axis j to input axis p1[p2[j]], so "
               "Transpose(Transpose(x, p1), p2) is one Transpose(x, p) with p[j] = p1[p2[j]]; when p is "
               "0, 1, 2, ... the two cancel and both go. Reshape, Flatten, Squeeze and Unsqueeze never "
               "reorder elements (they only regroup them in row-major order), so a Reshape after any of "
               "them is one Reshape of the original tensor to the final shape, when that shape is a "
               "constant: a 0 in it (copy this dim of the input) becomes the size of the dim it copied, "
               "and -1 (the rest) stays, since the element count is the same along the chain. A chain "
               "stays when its middle tensor is read by other nodes or is a graph output (it is needed "
               "anyway), when the target shape is not a constant, or when a copied dim is not known.";
    }
};

} // namespace

std::unique_ptr<Pass> makeSimplifyTransposeReshapePass() { return std::make_unique<SimplifyTransposeReshape>(); }

} // namespace graphlens
