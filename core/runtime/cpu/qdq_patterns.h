// What the CPU plan's QDQ rewrites (qdq_fusion.cpp, qdq_squeeze_excitation.cpp,
// qdq_lookup_table.cpp) share: the DequantizeLinear producing a float node's input and the
// QuantizeLinear alone reading its output, both with constant per-tensor parameters, and the
// zero points the int8 op they make takes as inputs.
#pragma once

#include "core/graph/graph.h"
#include "core/passes/pass.h"
#include "core/passes/rewriter.h"
#include "core/runtime/prepare.h"

#include <map>
#include <string>

namespace graphlens::qdq {

inline bool isInt8(DType t) { return t == DType::Int8 || t == DType::UInt8; }

/// The producer of `v` when it is a DequantizeLinear of a u8/s8 value with a constant per-tensor
/// scale (finite, > 0) and zero point (or none), or nullptr.
const Node* perTensorDequantizer(const Graph& g, ValueId v);

/// The QuantizeLinear to u8/s8 with constant per-tensor parameters alone reading `v` (not a graph
/// output), or nullptr.
const Node* perTensorQuantizerAfter(const Graph& g, ValueId v);

/// The constant per-tensor scale and zero point (0 where it has none) of a QuantizeLinear or
/// DequantizeLinear that perTensorDequantizer or perTensorQuantizerAfter accepted.
struct PerTensorParams {
    float scale = 1.f, zero = 0.f;
    bool operator==(const PerTensorParams&) const = default;
};
PerTensorParams perTensorParams(const Graph& g, const Node& n);

/// The zero point input of a QuantizeLinear or DequantizeLinear, or a new 0 of `type` named
/// `name` where it has none (the int8 ops take it as an input).
ValueId zeroPointOf(Rewriter& rw, const Node& n, DType type, const std::string& name);

/// The type a QuantizeLinear writes: its zero point's, u8 without one.
DType quantizedType(const Graph& g, const Node& q);

/// True when `readers` nodes read the DequantizeLinear's output and nothing else does (it then
/// goes with the pattern instead of staying for the others).
bool onlyFeeds(const Graph& g, const Node& dq, size_t readers);

/// Runs the plan rewrite `pass` on the prepared model (what each fuseQdq* of qdq_fusion.h does),
/// adds the nodes it made to `reportedAs`, each mapped to the node it reports under (`replaced`,
/// which the pass fills as it runs), and returns how many it fused (its numFused counter).
size_t runPlanRewrite(Pass& pass, PreparedModel& prepared, const std::map<NodeId, NodeId>& replaced,
                      std::map<NodeId, NodeId>* reportedAs);

} // namespace graphlens::qdq
