// Per-node statistics from execution events and the graph's static facts.
#include "profiler/node_profile.h"

#include "core/graph/op_key.h"
#include "profiler/flops.h"

#include <map>

namespace graphlens {
namespace {

std::string shapeText(const Graph& g, ValueId v) {
    if (v == kNoId) return {};
    if (const Tensor* t = g.constantValue(v)) return Shape::ofSizes(t->dims()).toString();
    return g.value(v).shape.toString();
}

uint64_t staticBytes(const Graph& g, ValueId v) {
    const Value& value = g.value(v);
    const auto numel = value.shape.numel();
    return numel && value.dtype != DType::Undefined ? dtypeStorageBytes(value.dtype, uint64_t(*numel)) : 0;
}

/// Name, op, shapes, FLOPs, weight and output bytes of `id`.
NodeProfile describe(const Graph& g, NodeId id) {
    const Node& n = g.node(id);
    NodeProfile p;
    p.node = id;
    p.op = opLabel(n);
    p.name = displayName(n);
    for (ValueId in : n.inputs()) {
        p.inputShapes.push_back(shapeText(g, in));
        if (const Tensor* t = in == kNoId ? nullptr : g.constantValue(in)) p.weightBytes += t->byteSize();
    }
    if (!n.outputs().empty()) p.outputShape = shapeText(g, n.output(0));
    p.outputBytes = nodeOutputBytes(g, n);
    p.flops = nodeFlops(g, n);
    return p;
}

} // namespace

std::string opLabel(const Node& node) {
    return OpKey::of(node).toString();
}

std::string displayName(const Node& node) { return node.name.empty() ? node.opType : node.name; }

uint64_t nodeOutputBytes(const Graph& graph, const Node& node) {
    uint64_t total = 0;
    for (ValueId out : node.outputs()) total += staticBytes(graph, out);
    return total;
}

bool fusedAway(const NodeProfile& p) { return p.kernel.rfind("fused into ", 0) == 0; }

double NodeProfile::gflops() const {
    return flops && ms.median > 0 ? double(*flops) / (ms.median * 1e6) : 0;
}

double NodeProfile::arithmeticIntensity() const {
    const uint64_t moved = bytesRead + bytesWritten;
    return flops && moved > 0 ? double(*flops) / double(moved) : 0;
}

std::vector<NodeProfile> profileNodes(const Graph& graph, const std::vector<NodeEvent>& events) {
    std::map<NodeId, size_t> indexOf;
    std::vector<NodeProfile> nodes;
    std::vector<std::vector<double>> samples;
    for (const NodeEvent& e : events) {
        auto [it, added] = indexOf.try_emplace(e.node, nodes.size());
        if (added) {
            nodes.push_back(describe(graph, e.node));
            samples.emplace_back();
        }
        NodeProfile& p = nodes[it->second];
        samples[it->second].push_back(double(e.endNs - e.beginNs) / 1e6);
        p.bytesRead = std::max(p.bytesRead, e.bytesRead);
        p.bytesWritten = std::max(p.bytesWritten, e.bytesWritten);
        p.track = e.track;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
        nodes[i].ms = summarizeSamples(std::move(samples[i]));
        if (nodes[i].outputBytes == 0) nodes[i].outputBytes = nodes[i].bytesWritten;
    }
    const double total = sumOfMedians(nodes);
    for (NodeProfile& p : nodes) p.share = total > 0 ? p.ms.median / total : 0;
    return nodes;
}

double sumOfMedians(const std::vector<NodeProfile>& nodes) {
    double total = 0;
    for (const NodeProfile& p : nodes) total += p.ms.median;
    return total;
}

double observerOverheadPercent(double observedMedianMs, double plainMedianMs) {
    return plainMedianMs > 0 ? 100 * (observedMedianMs - plainMedianMs) / plainMedianMs : 0;
}

} // namespace graphlens
