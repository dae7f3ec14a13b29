// How many OpenMP threads a CPU plan and each of its nodes run on: a product too small to share
// (the 1x1 convolutions on a 1x1 plane of squeeze-and-excitation blocks) runs on one thread,
// without a parallel region, and a model made only of small nodes runs on one thread throughout.
#include "core/runtime/cpu/node_threads.h"

#include "core/graph/dtype.h"
#include "core/graph/model_summary.h"
#include "core/runtime/cpu/cpu_kernel.h"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>

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

namespace {

uint64_t product(std::vector<int64_t>::const_iterator begin, std::vector<int64_t>::const_iterator end) {
    return std::accumulate(begin, end, uint64_t(1), [](uint64_t a, int64_t b) { return a * uint64_t(std::max<int64_t>(b, 0)); });
}

uint64_t count(const std::vector<int64_t>& dims) { return product(dims.begin(), dims.end()); }

bool isOneOf(const Node& n, const std::set<std::string>& ops) { return ops.count(n.opType) > 0; }

uint64_t multiplyAdds(const NodeDescriptor& info) {
    static const std::set<std::string> convs{"Conv", "FusedConv", "QLinearConv", "ConvInteger", "ConvTranspose"};
    static const std::set<std::string> products{"MatMul",        "FusedMatMul",   "Gemm", "FusedGemm",
                                                "QLinearMatMul", "MatMulInteger", "QGemm", "MatMulIntegerToFloat"};
    static const std::set<std::string> pools{"MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
                                             "GlobalLpPool"};
    const Node& n = info.node;
    if (info.inputDims.empty() || info.outputDims.empty()) return 0;
    const uint64_t outputs = count(info.outputDims[0]);
    const std::vector<int64_t>& x = info.inputDims[0];
    if (isOneOf(n, convs)) {
        // Weights (M, C/group, k...) for Conv: each output element sums C/group * k... products;
        // (C, M/group, k...) for ConvTranspose: each input element feeds M/group * k... outputs.
        const size_t w = n.opType == "QLinearConv" ? 3 : 1;
        if (w >= info.inputDims.size() || info.inputDims[w].size() < 2) return 0;
        const std::vector<int64_t>& wd = info.inputDims[w];
        return (n.opType == "ConvTranspose" ? count(x) : outputs) * product(wd.begin() + 1, wd.end());
    }
    if (isOneOf(n, products)) {
        // The reduced dimension: A's last (its first for a Gemm of transposed A).
        if (x.empty()) return 0;
        const bool transA = n.opType.find("Gemm") != std::string::npos && x.size() == 2 &&
                            info.attributes().getInt("transA", 0) != 0;
        return outputs * uint64_t(std::max<int64_t>(transA ? x[0] : x.back(), 0));
    }
    if (isOneOf(n, pools)) {
        if (n.opType.rfind("Global", 0) == 0) return count(x);
        const std::vector<int64_t> kernel = info.attributes().getInts("kernel_shape");
        return outputs * product(kernel.begin(), kernel.end());
    }
    return 0;
}

} // namespace

NodeWork nodeWork(const NodeDescriptor& info) {
    NodeWork work;
    for (size_t i = 0; i < info.inputDims.size(); ++i)
        if (info.hasInput(i)) work.bytes += dtypeStorageBytes(info.inputTypes[i], count(info.inputDims[i]));
    for (size_t i = 0; i < info.outputDims.size(); ++i)
        if (info.hasOutput(i)) work.bytes += dtypeStorageBytes(info.outputTypes[i], count(info.outputDims[i]));
    work.multiplyAdds = multiplyAdds(info);
    return work;
}

int planThreads(const Graph& graph, int64_t opset, int threads, std::string* why) {
    static const std::set<std::string> recurrent{"LSTM", "GRU", "RNN"};
    if (threads <= 1) return threads;
    size_t nodes = 0;
    for (NodeId id : graph.nodeIds()) {
        const Node& n = graph.node(id);
        if (n.opType == "Constant") continue;
        if (nodeHasSubgraph(n) || isOneOf(n, recurrent)) return threads;
        const std::optional<NodeDescriptor> info = describeNode(graph, n, opset, threads);
        if (!info) return threads;
        const NodeWork work = nodeWork(*info);
        if (work.bytes >= kSmallNodeBytes || work.multiplyAdds >= kSmallNodeMultiplyAdds) return threads;
        ++nodes;
    }
    if (nodes == 0) return threads;
    if (why)
        *why = "runs on one thread: each of its " + std::to_string(nodes) +
               " nodes moves under 512 KiB and computes under 4M multiply-adds, less than a second thread pays for";
    return 1;
}

} // namespace graphlens
