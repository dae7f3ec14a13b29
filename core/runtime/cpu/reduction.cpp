// Optimized CPU kernels for ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1,
// ReduceL2, ReduceSumSquare and ReduceLogSum of float tensors over any axes. The shape is cut
// into (outer, reduced, inner) passes, one per run of reduced axes after merging neighbours;
// each pass folds rows (inner 1) in vector lanes or columns (inner > 1) across vector-wide
// blocks. Partial results are kept in double, as the reference kernels keep them.
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/vector_math.h"
#include "core/runtime/reference/ref_util.h"

#include <cmath>
#include <limits>

namespace graphlens {
namespace {

enum class Combine { Add, Mul, Max, Min };
enum class Map { None, Abs, Square };  ///< applied to each input element before combining

template <Combine C>
constexpr double identityOf() {
    if constexpr (C == Combine::Add) return 0.0;
    else if constexpr (C == Combine::Mul) return 1.0;
    else if constexpr (C == Combine::Max) return -std::numeric_limits<double>::infinity();
    else return std::numeric_limits<double>::infinity();
}

/// a combined with v; NaN wins Max and Min, as in the reference kernels.
template <Combine C>
inline double combine(double a, double v) {
    if constexpr (C == Combine::Add) return a + v;
    else if constexpr (C == Combine::Mul) return a * v;
    else if constexpr (C == Combine::Max) return v > a || v != v ? v : a;
    else return v < a || v != v ? v : a;
}

template <Map M, typename In>
inline double mapped(In x) {
    const auto v = double(x);
    if constexpr (M == Map::Abs) return std::fabs(v);
    else if constexpr (M == Map::Square) return v * v;
    else return v;
}

/// The combination of n consecutive elements, in 8 independent lanes.
template <Combine C, Map M, typename In>
GRAPHLENS_VECTOR_CLONES double reduceRow(const In* x, int64_t n) {
    double lanes[8];
    for (double& lane : lanes) lane = identityOf<C>();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) lanes[k] = combine<C>(lanes[k], mapped<M>(x[i + k]));
    double result = identityOf<C>();
    for (double lane : lanes) result = combine<C>(result, lane);
    for (; i < n; ++i) result = combine<C>(result, mapped<M>(x[i]));
    return result;
}

/// acc[j] = the combination over r < length of x[r * stride + j], for j < width.
template <Combine C, Map M, typename In>
GRAPHLENS_VECTOR_CLONES void reduceColumns(const In* x, int64_t length, int64_t stride, double* acc, int64_t width) {
    for (int64_t j = 0; j < width; ++j) acc[j] = identityOf<C>();
    for (int64_t r = 0; r < length; ++r) {
        const In* row = x + r * stride;
        for (int64_t j = 0; j < width; ++j) acc[j] = combine<C>(acc[j], mapped<M>(row[j]));
    }
}

/// One pass: an [outer, length, inner] tensor folded along its middle axis into [outer, inner].
struct ReducePass {
    int64_t outer = 1, length = 1, inner = 1;
};

template <Combine C, Map M, typename In>
void reducePass(const In* x, double* y, ReducePass p) {
    constexpr int64_t kBlock = 512;  // columns per task: the accumulators stay in L1
    const bool parallel = p.outer * p.length * p.inner >= (1 << 15);
    if (p.inner == 1) {
#pragma omp parallel for schedule(static) if (parallel && p.outer > 1)
        for (int64_t o = 0; o < p.outer; ++o) y[o] = reduceRow<C, M>(x + o * p.length, p.length);
        return;
    }
    const int64_t blocks = (p.inner + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) if (parallel && p.outer * blocks > 1)
    for (int64_t t = 0; t < p.outer * blocks; ++t) {
        const int64_t o = t / blocks, first = (t % blocks) * kBlock;
        reduceColumns<C, M>(x + o * p.length * p.inner + first, p.length, p.inner, y + o * p.inner + first,
                            std::min(kBlock, p.inner - first));
    }
}

/// Each run of reduced axes (size-1 axes dropped, neighbours merged) as one pass, the last run
/// first; a single pass of length 1 when nothing is reduced.
std::vector<ReducePass> planPasses(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
    std::vector<std::pair<int64_t, bool>> groups;  // (size, reduced)
    for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] == 1) continue;
        if (!groups.empty() && groups.back().second == reduced[d]) groups.back().first *= dims[d];
        else groups.emplace_back(dims[d], reduced[d]);
    }
    std::vector<ReducePass> passes;
    for (size_t g = groups.size(); g-- > 0;) {
        if (!groups[g].second) continue;
        ReducePass p;
        for (size_t i = 0; i < g; ++i) p.outer *= groups[i].first;
        for (size_t i = g + 1; i < groups.size(); ++i) p.inner *= groups[i].first;
        p.length = groups[g].first;
        passes.push_back(p);
        groups.erase(groups.begin() + std::ptrdiff_t(g));
    }
    if (passes.empty()) passes.push_back({ref::elementCount(dims), 1, 1});
    return passes;
}

enum class Finish { None, Mean, Sqrt, Log };

struct ReduceLoops {
    void (*first)(const float*, double*, ReducePass) = nullptr;   ///< reads the input
    void (*later)(const double*, double*, ReducePass) = nullptr;  ///< reads the previous pass
    Finish finish = Finish::None;
};

template <Combine C, Map M>
ReduceLoops loopsOf(Finish finish) {
    return {reducePass<C, M, float>, reducePass<C, Map::None, double>, finish};
}

std::optional<ReduceLoops> loopsFor(const std::string& op) {
    if (op == "ReduceSum") return loopsOf<Combine::Add, Map::None>(Finish::None);
    if (op == "ReduceMean") return loopsOf<Combine::Add, Map::None>(Finish::Mean);
    if (op == "ReduceMax") return loopsOf<Combine::Max, Map::None>(Finish::None);
    if (op == "ReduceMin") return loopsOf<Combine::Min, Map::None>(Finish::None);
    if (op == "ReduceProd") return loopsOf<Combine::Mul, Map::None>(Finish::None);
    if (op == "ReduceL1") return loopsOf<Combine::Add, Map::Abs>(Finish::None);
    if (op == "ReduceL2") return loopsOf<Combine::Add, Map::Square>(Finish::Sqrt);
    if (op == "ReduceSumSquare") return loopsOf<Combine::Add, Map::Square>(Finish::None);
    if (op == "ReduceLogSum") return loopsOf<Combine::Add, Map::None>(Finish::Log);
    return std::nullopt;
}

class ReduceKernel final : public PreparedKernel {
public:
    ReduceKernel(ReduceLoops loops, std::vector<ReducePass> passes, int64_t groupSize)
        : loops_(loops), passes_(std::move(passes)), groupSize_(groupSize) {}
    std::string name() const override { return "cpu:reduce"; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override {
        std::vector<double> partial(size_t(passes_[0].outer * passes_[0].inner)), next;
        loops_.first(in[0]->span<float>().data(), partial.data(), passes_[0]);
        for (size_t i = 1; i < passes_.size(); ++i) {
            next.resize(size_t(passes_[i].outer * passes_[i].inner));
            loops_.later(partial.data(), next.data(), passes_[i]);
            partial.swap(next);
        }
        finish(partial, out[0].mutableSpan<float>().data());
    }

private:
    void finish(const std::vector<double>& partial, float* y) const {
        const auto n = int64_t(partial.size());
        const auto count = double(groupSize_);
        switch (loops_.finish) {
        case Finish::None: for (int64_t i = 0; i < n; ++i) y[i] = float(partial[size_t(i)]); break;
        case Finish::Mean: for (int64_t i = 0; i < n; ++i) y[i] = float(partial[size_t(i)] / count); break;
        case Finish::Sqrt: for (int64_t i = 0; i < n; ++i) y[i] = float(std::sqrt(partial[size_t(i)])); break;
        case Finish::Log: for (int64_t i = 0; i < n; ++i) y[i] = float(std::log(partial[size_t(i)])); break;
        }
    }
    ReduceLoops loops_;
    std::vector<ReducePass> passes_;
    int64_t groupSize_;
};

/// The reduced axes as a mask: the axes input (ReduceSum from opset 13, the others from 18) or
/// attribute, every axis when none are given; nullopt when unknown at plan time or invalid.
std::optional<std::vector<bool>> reducedAxes(const NodeDescriptor& info) {
    const bool axesAreInput = info.node.opType == "ReduceSum" ? info.opset >= 13 : info.opset >= 18;
    std::vector<int64_t> axes;
    if (axesAreInput && info.hasInput(1)) {
        if (!info.constants[1]) return std::nullopt;
        for (double d : info.constants[1]->toDoubles()) axes.push_back(int64_t(d));
    } else if (!axesAreInput) {
        axes = info.attributes().getInts("axes");
    }
    if (axes.empty() && info.attributes().getInt("noop_with_empty_axes", 0) != 0) return std::nullopt;
    const auto rank = int64_t(info.inputDims[0].size());
    std::vector<bool> mask(size_t(rank), axes.empty());
    for (int64_t axis : axes) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank || mask[size_t(a)]) return std::nullopt;
        mask[size_t(a)] = true;
    }
    return mask;
}

std::unique_ptr<PreparedKernel> prepareReduce(const NodeDescriptor& info) {
    if (info.inputTypes.empty() || info.inputTypes[0] != DType::Float || info.outputTypes.size() != 1) return nullptr;
    const auto& dims = info.inputDims[0];
    const auto loops = loopsFor(info.node.opType);
    const auto mask = reducedAxes(info);
    if (!loops || !mask || ref::elementCount(dims) == 0) return nullptr;
    int64_t groupSize = 1;
    for (size_t d = 0; d < dims.size(); ++d) groupSize *= (*mask)[d] ? dims[d] : 1;
    if (ref::elementCount(info.outputDims[0]) * groupSize != ref::elementCount(dims)) return nullptr;
    return std::make_unique<ReduceKernel>(*loops, planPasses(dims, *mask), groupSize);
}

} // namespace

void registerCpuReductionKernels(CpuKernelRegistry& registry) {
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                           "ReduceSumSquare", "ReduceLogSum"})
        registry.add(op, prepareReduce);
}

} // namespace graphlens
