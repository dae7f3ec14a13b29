// Kernel fusion in the CPU plan, for graphs run as they are (`--passes none`): what ONNX
// Runtime's session fuses without being asked. A BatchNormalization after a Conv goes into a copy
// of the Conv's weights (W * k, b * k + shift), and so does a constant scale or shift per channel;
// a residual Add after it becomes the kernel's sum post-op and an activation after that its
// eltwise post-op, x * sigmoid(x) and x * hardsigmoid(x) one SiLU or HardSwish, and so does
// x * relu6(x + 3) / 6 at any opset (the copy is never written out). It rewrites the plan's own copy of the graph only, with the pass
// library's patterns: the model, its initializers, the graph the window shows and the per-node
// profile stay as they were. A fused kernel reports its time under one node of the caller's
// graph (the Conv, or a Gemm that took in its activation), and the nodes it absorbed are reported as fused into that node, with no time
// of their own; a value the caller can see (a graph output, a value read twice) is never fused away.
// Identity nodes passing on a constant and Constant nodes are resolved first, as ONNX Runtime's
// session does (the patterns then see BatchNorm statistics and Clip bounds an exporter routed
// through them); they too show as fused into the kernel that reads their tensor.
#pragma once

#include "core/graph/model.h"
#include "core/runtime/prepare.h"

#include <map>
#include <vector>

namespace graphlens {

/// What the fusion made, in the caller's terms.
struct PlanFusions {
    /// A node the fusion made -> the node of the caller's graph it reports under.
    std::map<NodeId, NodeId> reportedAs;
    /// A node of the caller's graph that reports a fused kernel -> the nodes of the caller's
    /// graph that kernel absorbed, by id (the order they were loaded in).
    std::map<NodeId, std::vector<NodeId>> absorbed;
};

/// Fuses what the description above says in `prepared` and adds one line to its steps when it
/// fused anything ("fused 3 nodes into the kernels of 2 others: 1 Add, 1 BatchNormalization,
/// 1 Relu; the graph keeps its nodes"), and one when it resolved constants ("read the constants of
/// 2 nodes where they are used: ..."); returns how many nodes were absorbed, resolved ones included.
size_t fuseConvolutionKernels(PreparedModel& prepared, PlanFusions& fusions);

} // namespace graphlens
