// prune-magnitude (lossy): in each constant weight tensor of Conv, Gemm and MatMul, the fraction s
// (PassContext::pruneSparsity, `--sparsity S`) of weights smallest in magnitude is set to zero:
//   W'_i = 0 for the floor(s * n) smallest |W_i|,  W'_i = W_i otherwise.
// It reports the sparsity reached and the relative weight error ||W - W'|| / ||W||.
#include "core/passes/graph_query.h"
#include "core/passes/rewriter.h"
#include "core/passes/subgraph_match.h"
#include "core/passes/weight_slots.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace graphlens {
namespace {

struct PrunedWeight {
    Tensor pruned;
    int64_t zeros = 0;  ///< zeros in the pruned tensor
    double sumSquaredError = 0, sumSquared = 0;
};

/// `w` with its floor(sparsity * n) smallest-magnitude values set to zero (ties by position).
PrunedWeight pruneSmallest(const Tensor& w, double sparsity) {
    const auto values = w.span<float>();
    const auto count = size_t(std::floor(sparsity * double(values.size())));
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), size_t(0));
    auto smaller = [&](size_t a, size_t b) {
        const float ma = std::fabs(values[a]), mb = std::fabs(values[b]);
        return ma < mb || (ma == mb && a < b);
    };
    if (count > 0 && count < order.size())
        std::nth_element(order.begin(), order.begin() + std::ptrdiff_t(count), order.end(), smaller);
    PrunedWeight out{Tensor::allocate(DType::Float, w.dims()), 0, 0, 0};
    auto pruned = out.pruned.mutableSpan<float>();
    std::copy(values.begin(), values.end(), pruned.begin());
    for (size_t k = 0; k < count; ++k) {
        const float v = pruned[order[k]];
        out.sumSquaredError += double(v) * v;
        pruned[order[k]] = 0.f;
    }
    for (float v : values) out.sumSquared += double(v) * v;
    out.zeros = std::count(pruned.begin(), pruned.end(), 0.f);
    return out;
}

int64_t zerosIn(const Tensor& w) {
    const auto values = w.span<float>();
    return std::count(values.begin(), values.end(), 0.f);
}

std::string percent(double fraction) { return formatNumber(std::round(fraction * 1000) / 10) + "%"; }

class PruneMagnitude final : public Pass {
public:
    std::string id() const override { return "prune-magnitude"; }
    std::string title() const override { return "Zero the smallest weights (magnitude pruning)"; }
    bool lossy() const override { return true; }
    std::string explanation() const override {
        return "Lossy: weights are removed. In each constant float weight tensor of a Conv, Gemm or "
               "MatMul, the fraction s of weights with the smallest magnitude |W_i| is set to zero (s is "
               "--sparsity, 0.5 by default; per tensor, so every layer keeps its largest weights). Small "
               "weights contribute least to the outputs, so the error stays small for moderate s, and "
               "sparse weights compress well and can run on sparse kernels. The tensor stays dense "
               "float, so the file is not smaller by itself. The notes report the sparsity reached and "
               "the relative weight error ||W - W'|| / ||W||; with --verify the output error shows too. "
               "It declines weights read by several nodes, weights that are not float32, and tensors "
               "that already have at least that share of zeros.";
    }

    void run(Rewriter& rw, PassContext& context) override {
        const double s = context.pruneSparsity;
        if (!(s > 0 && s < 1)) {
            rw.result().notes.push_back("sparsity " + formatNumber(s) + " is not between 0 and 1: nothing pruned");
            return;
        }
        int64_t zeros = 0, total = 0;
        double error = 0, norm = 0;
        for (NodeId id : rw.graph().topologicalOrder()) {
            auto p = pruneWeightOf(rw, id, s);
            if (!p) continue;
            zeros += p->zeros;
            total += p->pruned.numel();
            error += p->sumSquaredError;
            norm += p->sumSquared;
        }
        if (total == 0) return;
        rw.result().notes.push_back("pruned " + std::to_string(rw.result().counter("numPruned")) + " weight tensors to " +
                                    percent(double(zeros) / double(total)) + " zeros (target " + percent(s) +
                                    " per tensor); relative weight error ||W - W'|| / ||W|| = " +
                                    formatNumber(norm > 0 ? std::sqrt(error / norm) : 0));
    }

private:
    static std::optional<PrunedWeight> pruneWeightOf(Rewriter& rw, NodeId id, double sparsity) {
        const Graph& g = rw.graph();
        const Node& n = g.node(id);
        const Tensor* w = constantInput(g, n, 1);
        if (!w || !outputChannelAxis(n, w->rank())) return std::nullopt;
        const ValueId wv = n.input(1);
        std::string why;
        if (w->dtype() != DType::Float) why = "its weight " + quoted(g, wv) + " is not float32";
        else if (!hasSingleUse(g, wv)) why = "its weight " + quoted(g, wv) + " is read by other nodes too";
        const int64_t alreadyZero = why.empty() ? zerosIn(*w) : 0;
        if (why.empty() && double(alreadyZero) >= std::floor(sparsity * double(w->numel())))
            why = "its weight " + quoted(g, wv) + " already has " + percent(double(alreadyZero) / double(w->numel())) +
                  " zeros";
        if (!why.empty()) {
            rw.decline(id, "not pruned: " + why);
            return std::nullopt;
        }
        PrunedWeight p = pruneSmallest(*w, sparsity);
        const std::string name = g.value(wv).name;
        const std::string sentence = "pruned the weight '" + name + "' of " + describe(n) + " to " +
                                     percent(double(p.zeros) / double(w->numel())) + " zeros (" + std::to_string(w->numel()) +
                                     " values): relative weight error " +
                                     formatNumber(p.sumSquared > 0 ? std::sqrt(p.sumSquaredError / p.sumSquared) : 0);
        const Node* constantNode = producerOf(g, wv);
        const NodeId constantId = constantNode ? constantNode->id : kNoId;
        const ValueId pruned = rw.addInitializer(name + "_pruned", p.pruned);
        rw.setNodeInput(id, 1, pruned);
        if (constantId != kNoId) rw.removeNode(constantId);
        rw.count("numPruned");
        rw.count("weightsZeroed", p.zeros - alreadyZero);
        rw.commit("prune-magnitude", sentence);
        return p;
    }
};

} // namespace

std::unique_ptr<Pass> makePruneMagnitudePass() { return std::make_unique<PruneMagnitude>(); }

} // namespace graphlens
