// QDQ models (ONNX Runtime's quantization tools write them: DequantizeLinear on activations and
// weights, a float Conv, QuantizeLinear after) on the CPU backend's int8 kernels. At plan time,
// DequantizeLinear(x) -> Conv(DequantizeLinear(w), bias) -> [Relu] -> QuantizeLinear becomes one
// QLinearConv (the standard ONNX op, as ONNX Runtime's QDQ transformer does), so consecutive
// quantized convolutions pass u8/s8 activations to each other instead of float. It is a step
// of the CPU plan, not a pass the user applies: the plan's preparation lines and its kernel
// names (bench --by-op, profiles) say what it did; provenance points at the replaced nodes.
#pragma once

#include "core/graph/model.h"
#include "core/runtime/prepare.h"

#include <map>
#include <string>

namespace graphlens {

/// True when `dq` dequantizes the constant weights of a Conv that fits the QDQ pattern above
/// (so the shared preparation keeps it for fuseQdqConvolutions instead of storing float weights).
bool isQdqConvWeight(const Graph& graph, NodeId dq);

/// Rewrites every QDQ convolution of `prepared` that the pattern fits into a QLinearConv and adds
/// one line to its steps ("ran 53 QDQ convolutions as int8 QLinearConv ..."); returns how many.
/// `reportedAs` receives, for each QLinearConv it made, the id of the Conv it replaced: a node
/// of the graph the caller gave, under which a plan reports the fused node's times and kernel.
size_t fuseQdqConvolutions(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);

/// Stores the weights of every DequantizeLinear of constants as float32 (what the shared
/// preparation does, for the weights it kept for fuseQdqConvolutions); for plans that do not
/// fuse. Adds a line to the steps when it changed something.
void dequantizeConstantWeights(PreparedModel& prepared);

} // namespace graphlens
