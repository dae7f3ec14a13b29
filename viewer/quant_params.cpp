// quantParamsOf: the scale (input 1) and zero point (input 2) constants of a Q/DQ node, read as
// doubles; their element count is the channel count.
#include "viewer/quant_params.h"

#include "core/graph/dtype.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace graphlens {
namespace {

bool isQdq(const Node& n) { return n.opType == "QuantizeLinear" || n.opType == "DequantizeLinear"; }

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

} // namespace

std::optional<QuantParams> quantParamsOf(const Graph& graph, NodeId id) {
    if (!graph.hasNode(id)) return std::nullopt;
    const Node& n = graph.node(id);
    if (!isQdq(n) || n.inputs().size() < 2) return std::nullopt;
    const Tensor* scale = graph.constantValue(n.input(1));
    if (!scale || scale->numel() == 0) return std::nullopt;
    QuantParams q;
    q.node = id;
    q.nodeName = n.name;
    q.op = n.opType;
    q.valueName = n.input(0) != kNoId ? graph.value(n.input(0)).name : std::string();
    const std::vector<double> s = scale->toDoubles();
    q.channels = int64_t(s.size());
    q.axis = n.attributes.getInt("axis", 1);
    q.scaleMin = *std::min_element(s.begin(), s.end());
    q.scaleMax = *std::max_element(s.begin(), s.end());
    q.scaleMean = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
    const Tensor* zero = n.inputs().size() > 2 && n.input(2) != kNoId ? graph.constantValue(n.input(2)) : nullptr;
    if (zero && zero->numel() > 0) {
        const std::vector<double> z = zero->toDoubles();
        q.zeroPointKnown = true;
        q.zeroPointMin = int64_t(*std::min_element(z.begin(), z.end()));
        q.zeroPointMax = int64_t(*std::max_element(z.begin(), z.end()));
        q.zeroPointType = std::string(dtypeName(zero->dtype()));
    }
    return q;
}

std::vector<QuantParams> quantParamsAround(const Graph& graph, NodeId node) {
    if (auto own = quantParamsOf(graph, node)) return {*own};
    std::vector<QuantParams> around;
    if (!graph.hasNode(node)) return around;
    for (ValueId input : graph.node(node).inputs()) {
        if (input == kNoId || graph.value(input).producer() == kNoId) continue;
        if (auto q = quantParamsOf(graph, graph.value(input).producer())) around.push_back(*q);
    }
    return around;
}

std::string scaleText(const QuantParams& q) {
    if (q.channels == 1) return number(q.scaleMin);
    return number(q.scaleMin) + " .. " + number(q.scaleMax) + " (mean " + number(q.scaleMean) + ") over " +
           std::to_string(q.channels) + " channels, axis " + std::to_string(q.axis);
}

std::string zeroPointText(const QuantParams& q) {
    if (!q.zeroPointKnown) return "0 (default)";
    const std::string range = q.zeroPointMin == q.zeroPointMax ? std::to_string(q.zeroPointMin)
                                                               : std::to_string(q.zeroPointMin) + " .. " + std::to_string(q.zeroPointMax);
    return range + " (" + q.zeroPointType + ")";
}

} // namespace graphlens
