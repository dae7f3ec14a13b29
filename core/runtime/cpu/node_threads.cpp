// How many OpenMP threads each node of a CPU plan runs on: a product too small to share (the
// 1x1 convolutions on a 1x1 plane of squeeze-and-excitation blocks) runs on one, without a
// parallel region.
#include "core/runtime/cpu/cpu_kernel.h"
#include "core/graph/model_summary.h"

#include <atomic>

namespace graphlens {
namespace {
// 256K FLOPs: above the squeeze-and-excitation convolutions of EfficientNet-B0 (115K) and
// MobileNetV3 (166K), which take 5-25 us on one core; entering and leaving a parallel region of
// two threads costs about what the second thread saves there on a quiet machine, and on a busy one
// the region waits at its barrier for a thread the scheduler has preempted (0.1 ms and more).
// Larger products gain from the threads even beside a build: at 4M FLOPs (the depthwise
// convolutions on 14x14 and 7x7 planes single-threaded too) efficientnet_b0 ran 1.16x slower.
std::atomic<int64_t> smallFlops{int64_t(1) << 18};
} // namespace

void setSmallProductFlops(int64_t flops) { smallFlops = flops; }
int64_t smallProductFlops() { return smallFlops; }

int cpuNodeThreads(const Graph& graph, const Node& node, int threads) {
    if (threads <= 1) return threads;
    const std::optional<int64_t> flops = estimateNodeFlops(graph, node);
    return flops && *flops < smallFlops ? 1 : threads;
}

} // namespace graphlens
