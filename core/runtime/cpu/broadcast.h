// Numpy broadcasting for the CPU kernels: the inputs, right-aligned against the output, lose the
// output's size-1 axes and have neighbouring axes merged wherever every input runs on contiguously
// (or stays broadcast) across them. What is left is an [outer..., run] view: the loops walk the
// outer axes and call one vectorized loop per contiguous run, in which each input either advances
// with the output or repeats one element. Also the parallel loop and the per-run binary loops the
// element-wise kernels (arithmetic, comparison, logic) share.
#pragma once

#include "core/runtime/cpu/cpu_kernel.h"
#include "core/runtime/cpu/vector_math.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <vector>

namespace graphlens {

constexpr int64_t kCpuParallelThreshold = 1 << 15;  ///< elements; smaller loops stay on one thread
constexpr int64_t kCpuChunk = 1 << 14;              ///< elements per task of a parallel loop

/// Runs `body(begin, end)` over [0, n) in chunks, on every OpenMP thread when n is large.
template <typename Body>
void parallelRanges(int64_t n, Body&& body) {
    if (n < kCpuParallelThreshold) {
        if (n > 0) body(int64_t(0), n);
        return;
    }
    const int64_t chunks = (n + kCpuChunk - 1) / kCpuChunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) body(c * kCpuChunk, std::min(n, (c + 1) * kCpuChunk));
}

/// An output seen as [outer..., run] with, per input, its element stride along each axis.
struct BroadcastPlan {
    std::vector<int64_t> dims;                  ///< merged output axes; the last is the run
    std::vector<std::vector<int64_t>> strides;  ///< per input, per merged axis (0: broadcast)
    int64_t count = 0;                          ///< output elements

    int64_t run() const { return dims.back(); }
    /// Input `i` repeats one element along the run (its last stride is 0).
    bool repeatsInRun(size_t i) const { return strides[i].back() == 0 && run() > 1; }
};

/// The plan for `inputs` broadcast to `out`; nullopt when they do not broadcast to it or the
/// output is empty.
std::optional<BroadcastPlan> planBroadcast(const std::vector<std::vector<int64_t>>& inputs,
                                           const std::vector<int64_t>& out);

/// Calls `body(outIndex, inIndices, length)` for every stretch of output [begin, end) that lies in
/// one run; `inIndices` holds each input's element index at `outIndex`.
template <size_t N, typename Body>
void forEachRun(const BroadcastPlan& p, int64_t begin, int64_t end, Body&& body) {
    const size_t outerRank = p.dims.size() - 1;
    const int64_t run = p.run();
    std::vector<int64_t> position(outerRank);
    std::array<int64_t, N> rowStart{};
    int64_t rest = begin / run, within = begin % run;
    for (size_t d = outerRank; d-- > 0;) {
        position[d] = rest % p.dims[d];
        rest /= p.dims[d];
        for (size_t i = 0; i < N; ++i) rowStart[i] += position[d] * p.strides[i][d];
    }
    for (int64_t at = begin; at < end;) {
        const int64_t length = std::min(run - within, end - at);
        std::array<int64_t, N> index;
        for (size_t i = 0; i < N; ++i) index[i] = rowStart[i] + within * p.strides[i].back();
        body(at, index, length);
        at += length;
        within = 0;
        for (size_t d = outerRank; d-- > 0;) {  // odometer step to the next row
            for (size_t i = 0; i < N; ++i) rowStart[i] += p.strides[i][d];
            if (++position[d] < p.dims[d]) break;
            for (size_t i = 0; i < N; ++i) rowStart[i] -= p.strides[i][d] * p.dims[d];
            position[d] = 0;
        }
    }
}

/// forEachRun over the whole output, in chunks spread over the OpenMP threads when it is large.
template <size_t N, typename Body>
void parallelRuns(const BroadcastPlan& p, Body&& body) {
    parallelRanges(p.count, [&](int64_t begin, int64_t end) { forEachRun<N>(p, begin, end, body); });
}

/// One contiguous run of a binary op: y[i] = op(a[i], b[i]), where an operand flagged as
/// repeating contributes its element 0 to every i.
template <bool RepeatA, bool RepeatB, typename T, typename R, typename Op>
GRAPHLENS_VECTOR_CLONES void binaryRun(const std::byte* a, const std::byte* b, std::byte* y, int64_t n) {
    const T* pa = reinterpret_cast<const T*>(a);
    const T* pb = reinterpret_cast<const T*>(b);
    R* py = reinterpret_cast<R*>(y);
    const Op op;
    for (int64_t i = 0; i < n; ++i) py[i] = op(RepeatA ? pa[0] : pa[i], RepeatB ? pb[0] : pb[i]);
}

/// The run loops of one binary op on element type T with result type R.
struct BinaryLoops {
    using RunFn = void (*)(const std::byte*, const std::byte*, std::byte*, int64_t);
    RunFn both = nullptr, repeatA = nullptr, repeatB = nullptr;
    size_t inBytes = 0, outBytes = 0;
};

template <typename T, typename R, typename Op>
BinaryLoops binaryLoops() {
    return {binaryRun<false, false, T, R, Op>, binaryRun<true, false, T, R, Op>, binaryRun<false, true, T, R, Op>,
            sizeof(T), sizeof(R)};
}

/// A binary element-wise op with numpy broadcasting, given its run loops.
class BroadcastBinaryKernel final : public PreparedKernel {
public:
    BroadcastBinaryKernel(std::string name, BroadcastPlan plan, BinaryLoops loops, bool inPlace)
        : name_(std::move(name)), plan_(std::move(plan)), loops_(loops), inPlace_(inPlace) {}
    std::string name() const override { return name_; }
    bool writesInPlace() const override { return inPlace_; }
    void run(const std::vector<const Tensor*>& in, std::vector<Tensor>& out) override;

private:
    std::string name_;
    BroadcastPlan plan_;
    BinaryLoops loops_;
    bool inPlace_;
};

/// The binary kernel for `info` (two inputs, one output), or nullptr when the shapes do not
/// broadcast. In place when input 0 has the output's type and element count.
std::unique_ptr<PreparedKernel> makeBroadcastBinary(const NodeDescriptor& info, std::string name, BinaryLoops loops);

} // namespace graphlens
