// Pooling and reductions on the GPU: MaxPool and AveragePool over 1-D and 2-D windows (pool.comp),
// GlobalAveragePool, GlobalMaxPool and the Reduce* ops over any axes (reduce.comp).
#include "core/runtime/vulkan/ops.h"

#include <algorithm>
#include <set>

namespace graphlens::vk {
namespace {

std::optional<NodeProgram> pool(const NodeShapes& s) {
    const bool isMax = s.node.opType == "MaxPool";
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float || (isMax && s.hasOutput(1))) return std::nullopt;
    const auto& x = s.inputDims[0];
    const auto& y = s.outputDims[0];
    if ((x.size() != 3 && x.size() != 4) || y.size() != x.size()) return std::nullopt;
    const size_t n = x.size() - 2;
    const Attributes& a = s.attributes();
    const auto kernel = a.getInts("kernel_shape");
    const auto strides = a.getInts("strides", std::vector<int64_t>(n, 1));
    const auto dilations = a.getInts("dilations", std::vector<int64_t>(n, 1));
    if (kernel.size() != n || strides.size() != n || dilations.size() != n) return std::nullopt;
    std::vector<int64_t> begin(n, 0), end(n, 0);
    const std::string autoPad = a.getString("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        for (size_t i = 0; i < n; ++i) {
            const int64_t total = std::max<int64_t>(
                0, (y[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - x[2 + i]);
            begin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            end[i] = total - begin[i];
        }
    } else if (autoPad == "NOTSET") {
        const auto pads = a.getInts("pads", std::vector<int64_t>(2 * n, 0));
        if (pads.size() != 2 * n) return std::nullopt;
        std::copy(pads.begin(), pads.begin() + int64_t(n), begin.begin());
        std::copy(pads.begin() + int64_t(n), pads.end(), end.begin());
    } else if (autoPad != "VALID") {
        return std::nullopt;
    }
    auto pick = [n](const std::vector<int64_t>& v, bool first, int64_t one) { return n == 1 ? (first ? one : v[0]) : (first ? v[0] : v[1]); };
    const int op = isMax ? 0 : (a.getInt("count_include_pad", 0) ? 2 : 1);
    Constants c;
    c.i(x[0] * x[1]).i(n == 1 ? 1 : x[2]).i(x.back()).i(n == 1 ? 1 : y[2]).i(y.back());
    c.i(pick(kernel, true, 1)).i(pick(kernel, false, 1)).i(pick(strides, true, 1)).i(pick(strides, false, 1));
    c.i(pick(begin, true, 0)).i(pick(begin, false, 0)).i(pick(end, true, 0)).i(pick(end, false, 0));
    c.i(pick(dilations, true, 1)).i(pick(dilations, false, 1)).i(op).i(s.device.texelLoads);
    Dispatch d{"pool", c.take(), {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(numel(y)), 64)};
    if (s.device.texelLoads) d.texels = {TensorRef::input(0)};
    return NodeProgram{"vulkan:pool", {d}};
}

enum ReduceOp { Sum, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

/// The reduce.comp dispatch for reducing `x` over `axes` (normalized, sorted, distinct).
std::optional<NodeProgram> reduceProgram(const NodeShapes& s, ReduceOp op, const std::set<int64_t>& axes) {
    const auto& x = s.inputDims[0];
    if (x.size() > 6) return std::nullopt;
    const std::vector<int64_t> strides = stridesOf(x);
    std::vector<int64_t> keptDims, keptStrides, redDims, redStrides;
    for (size_t i = 0; i < x.size(); ++i) {
        auto& dims = axes.count(int64_t(i)) ? redDims : keptDims;
        auto& st = axes.count(int64_t(i)) ? redStrides : keptStrides;
        dims.push_back(x[i]);
        st.push_back(strides[i]);
    }
    const int64_t count = numel(keptDims);
    if (count != numel(s.outputDims[0])) return std::nullopt;
    auto pad = [](std::vector<int64_t>& dims, std::vector<int64_t>& st) {
        while (dims.size() < 6) {
            dims.insert(dims.begin(), 1);
            st.insert(st.begin(), 0);
        }
    };
    pad(keptDims, keptStrides);
    pad(redDims, redStrides);
    Constants c;
    c.i(op).i(count).i(numel(redDims));
    for (int64_t v : keptDims) c.i(v);
    for (int64_t v : keptStrides) c.i(v);
    for (int64_t v : redDims) c.i(v);
    for (int64_t v : redStrides) c.i(v);
    Dispatch d{"reduce", c.take(), {TensorRef::output(0), TensorRef::input(0)}, flatGroups(uint64_t(count), 64)};
    return NodeProgram{"vulkan:reduce", {d}};
}

std::optional<NodeProgram> globalPool(const NodeShapes& s) {
    if (!s.floatInput(0) || s.outputTypes.at(0) != DType::Float || s.inputDims[0].size() < 3) return std::nullopt;
    std::set<int64_t> axes;
    for (int64_t i = 2; i < int64_t(s.inputDims[0].size()); ++i) axes.insert(i);
    return reduceProgram(s, s.node.opType == "GlobalMaxPool" ? Max : Mean, axes);
}

std::optional<NodeProgram> reduce(const NodeShapes& s) {
    static const std::pair<const char*, ReduceOp> ops[] = {
        {"ReduceSum", Sum}, {"ReduceMean", Mean}, {"ReduceMax", Max}, {"ReduceMin", Min},
        {"ReduceProd", Prod}, {"ReduceSumSquare", SumSquare}, {"ReduceL1", L1}, {"ReduceL2", L2},
        {"ReduceLogSum", LogSum}, {"ReduceLogSumExp", LogSumExp}};
    const auto row = std::find_if(std::begin(ops), std::end(ops), [&](const auto& r) { return s.node.opType == r.first; });
    if (row == std::end(ops) || !s.floatInput(0) || s.outputTypes.at(0) != DType::Float) return std::nullopt;
    std::vector<int64_t> axes = s.attributes().getInts("axes");
    if (s.hasInput(1)) {  // opset 13+ ReduceSum, opset 18+ all: axes as an input
        if (!s.constants[1] || s.inputTypes[1] != DType::Int64) return std::nullopt;
        const auto given = s.constants[1]->span<int64_t>();
        axes.assign(given.begin(), given.end());
    }
    const auto rank = int64_t(s.inputDims[0].size());
    std::set<int64_t> normalized;
    for (int64_t axis : axes) {
        if (axis < -rank || axis >= rank) return std::nullopt;
        normalized.insert(axis < 0 ? axis + rank : axis);
    }
    if (normalized.empty()) {
        if (s.attributes().getInt("noop_with_empty_axes", 0)) return std::nullopt;
        for (int64_t i = 0; i < rank; ++i) normalized.insert(i);
    }
    return reduceProgram(s, row->second, normalized);
}

} // namespace

void registerPoolOps(VulkanOpRegistry& registry) {
    registry.add("MaxPool", pool);
    registry.add("AveragePool", pool);
    registry.add("GlobalAveragePool", globalPool);
    registry.add("GlobalMaxPool", globalPool);
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                           "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
        registry.add(op, reduce);
}

} // namespace graphlens::vk
