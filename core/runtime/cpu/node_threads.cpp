#include "core/runtime/cpu/node_threads.h"

#include "core/graph/dtype.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>
#include <string>

namespace graphlens {

namespace {

uint64_t product(std::vector<int64_t>::const_iterator begin, std::vector<int64_t>::const_iterator end) {
    return std::accumulate(begin, end, uint64_t(1), [](uint64_t a, int64_t b) { return a * uint64_t(std::max<int64_t>(b, 0)); });
}

uint64_t count(const std::vector<int64_t>& dims) { return product(dims.begin(), dims.end()); }

bool isOneOf(const Node& n, const std::set<std::string>& ops) { return ops.count(n.opType) > 0; }

} // namespace

std::optional<NodeWork> nodeWork(const NodeDescriptor& info) {
    static const std::set<std::string> convs{"Conv", "FusedConv", "QLinearConv", "ConvInteger"};
    static const std::set<std::string> pools{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"};
    const Node& n = info.node;
    const bool convTranspose = n.opType == "ConvTranspose";
    if (!isOneOf(n, convs) && !isOneOf(n, pools) && !convTranspose) return std::nullopt;
    if (info.inputDims.empty() || info.outputDims.empty() || !info.hasOutput(0)) return std::nullopt;

    NodeWork work;
    for (size_t i = 0; i < info.inputDims.size(); ++i)
        if (info.hasInput(i)) work.bytes += dtypeStorageBytes(info.inputTypes[i], count(info.inputDims[i]));
    for (size_t i = 0; i < info.outputDims.size(); ++i)
        if (info.hasOutput(i)) work.bytes += dtypeStorageBytes(info.outputTypes[i], count(info.outputDims[i]));

    const uint64_t outputs = count(info.outputDims[0]);
    const std::vector<int64_t>& x = info.inputDims[0];
    if (isOneOf(n, convs) || convTranspose) {
        // Weights (M, C/group, k...) for Conv: each output element sums C/group * k... products;
        // (C, M/group, k...) for ConvTranspose: each input element feeds M/group * k... outputs.
        const size_t w = n.opType == "QLinearConv" ? 3 : 1;
        if (w >= info.inputDims.size() || info.inputDims[w].size() < 2) return std::nullopt;
        const std::vector<int64_t>& wd = info.inputDims[w];
        work.multiplyAdds = (convTranspose ? count(x) : outputs) * product(wd.begin() + 1, wd.end());
    } else if (n.opType.rfind("Global", 0) == 0) {
        work.multiplyAdds = count(x);
    } else {
        const std::vector<int64_t> kernel = info.attributes().getInts("kernel_shape");
        work.multiplyAdds = outputs * product(kernel.begin(), kernel.end());
    }
    return work;
}

int nodeThreads(const NodeDescriptor& info, int planThreads) {
    if (planThreads <= 1) return planThreads;
    const std::optional<NodeWork> work = nodeWork(info);
    if (!work) return planThreads;
    return work->multiplyAdds < kSmallNodeMultiplyAdds && work->bytes < kSmallNodeBytes ? 1 : planThreads;
}

} // namespace graphlens
