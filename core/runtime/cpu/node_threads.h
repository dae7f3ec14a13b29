// The threads of a CPU plan left to choose its own count (CompileOptions::threads 0): every core,
// or one for a model whose every node is small.
//
// Every OpenMP parallel region ends when each thread of its team has done its share (oneDNN splits
// work statically), so a region costs the start and the join of the team: a few microseconds on a
// quiet machine, and on a shared one the wait for a thread that lost its core to another process.
// Beside one busy process both threads of a plan ended up on one core (perf sched), each spinning
// its 3000 iterations (~60 us) at every barrier while the other waited for the core: PP-OCR's
// direction classifier (about 90 regions a run) took 8-20 ms instead of 0.5. A model whose nodes
// a single thread finishes in a few microseconds each gains nothing from a second thread even on
// a quiet machine (ppocr_cls: 0.35 ms on one thread, 0.51-0.67 on two), so it runs on one.
//
// Per node for every small convolution and pool (under 2M multiply-adds and 512 KiB) inside a
// plan of two threads: measured and dropped. The idle thread then fell asleep between parallel
// nodes and each wake-up cost more than the region saved (mobilenet_v3_small on a quiet machine
// 0.91 -> 1.23 ms). What stays per node is narrower (cpuNodeThreads, cpu_kernel.h): products
// under 256K FLOPs, the 1x1 convolutions on a 1x1 plane of squeeze-and-excitation blocks, each a
// few microseconds between larger parallel nodes.
#pragma once

#include "core/runtime/node_descriptor.h"

#include <cstdint>
#include <string>

namespace graphlens {

/// A plan runs on one thread when no node moves kSmallNodeBytes or more or computes
/// kSmallNodeMultiplyAdds or more.
inline constexpr uint64_t kSmallNodeMultiplyAdds = uint64_t(4) << 20;
inline constexpr uint64_t kSmallNodeBytes = uint64_t(512) << 10;

/// A node's work as the rule counts it: multiply-adds (for pooling, elements visited; 0 for ops
/// other than convolutions, matrix products and pooling) and the bytes of its inputs (weights
/// included) and outputs.
struct NodeWork {
    uint64_t multiplyAdds = 0;
    uint64_t bytes = 0;
};
NodeWork nodeWork(const NodeDescriptor& info);

/// `threads`, or 1 when every node of `graph` is below both sizes; nodes with sub-graphs,
/// recurrent nodes and nodes whose shapes are known only at run time keep `threads`. `why` gets
/// the plan's preparation sentence when it chose one thread.
int planThreads(const Graph& graph, int64_t opset, int threads, std::string* why = nullptr);

} // namespace graphlens
