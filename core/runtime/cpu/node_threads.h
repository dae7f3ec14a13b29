// The threads one node's oneDNN kernel runs on: the plan's, or one for a node too small to share.
//
// Every OpenMP parallel region ends when each thread of its team has done its share (oneDNN splits
// work statically), so a region costs the start and the join of the team: a few microseconds on a
// quiet machine, and on a shared one the wait for a thread that lost its core to another process
// (measured: PP-OCR's direction classifier, about 90 regions a run, 0.51 ms at 2 threads quiet and
// 8.4 ms beside one busy process; at 1 thread 0.35 and 0.36 ms). A node a single thread finishes in
// about 10 us gains nothing from a second thread even on a quiet machine (per-node medians at 1 and
// 2 threads of ppocr_cls, mobilenet_v3_small, efficientnet_b0: convolutions below 2M multiply-adds
// and 512 KiB ran as fast or nearly as fast on one thread), so such nodes run without a parallel region.
//
// The rule covers convolutions and pooling, whose oneDNN kernels compute the same bits on one
// thread as on several. Matrix products keep the plan's threads: oneDNN's matmul splits its sums
// differently by thread count (bert_like's output moved by 4e-7 when its small ones ran on one).
// The element-wise and layout kernels decide by their own element counts, and the others (the
// recurrent ones, which run two directions side by side) keep the plan's threads.
#pragma once

#include "core/runtime/node_descriptor.h"

#include <cstdint>

namespace graphlens {

/// Below both, a node runs on one thread.
inline constexpr uint64_t kSmallNodeMultiplyAdds = uint64_t(2) << 20;
inline constexpr uint64_t kSmallNodeBytes = uint64_t(512) << 10;

/// A node's work as the rule counts it: multiply-adds (or, for pooling, elements visited) and the
/// bytes of its inputs (weights included) and outputs; nullopt for ops other than Conv,
/// ConvTranspose, their fused and int8 forms, and pooling.
struct NodeWork {
    uint64_t multiplyAdds = 0;
    uint64_t bytes = 0;
};
std::optional<NodeWork> nodeWork(const NodeDescriptor& info);

/// `planThreads`, or 1 where nodeWork() is below both kSmallNodeMultiplyAdds and kSmallNodeBytes.
int nodeThreads(const NodeDescriptor& info, int planThreads);

} // namespace graphlens
