// QDQ models (ONNX Runtime's quantization tools write them: DequantizeLinear on activations and
// weights, a float Conv, MatMul or Gemm, QuantizeLinear after) on the CPU backend's int8 kernels. At plan time,
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

/// True when every value a quantization onto [qmin, qmax] with `scale` and `zeroPoint` represents,
/// scale * (q - zeroPoint), lies in [lo, hi] within float epsilon, so a Clip(lo, hi) before that
/// QuantizeLinear changes nothing (ONNX Runtime's ClipQuantFusion test). The plan folds such a
/// Clip into the int8 node; quantize-int8 narrows its scales until it holds.
bool clipImpliedByQuantization(float scale, float zeroPoint, float qmin, float qmax, float lo, float hi);

/// True when `dq` dequantizes the constant weights (or bias) of a Conv, MatMul or Gemm that fits
/// the QDQ patterns here (so the shared preparation keeps it for fuseQdqConvolutions and
/// fuseQdqMatMuls instead of storing float weights).
bool isQdqWeight(const Graph& graph, NodeId dq);

/// Rewrites every QDQ convolution of `prepared` that the pattern fits into a QLinearConv and adds
/// one line to its steps ("ran 53 QDQ convolutions as int8 QLinearConv ..."); returns how many.
/// `reportedAs` receives, for each QLinearConv it made, the id of the Conv it replaced: a node
/// of the graph the caller gave, under which a plan reports the fused node's times and kernel.
size_t fuseQdqConvolutions(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);

/// The same for matrix products, DequantizeLinear(x) x DequantizeLinear(w) -> MatMul or Gemm
/// (alpha = beta = 1, A not transposed; w constant, scales per tensor or per output column; a
/// Gemm's bias constant, float or dequantized int32) -> [Relu] -> QuantizeLinear: QLinearMatMul for
/// a MatMul, com.microsoft QGemm (ONNX Runtime's op, its bias int32) for a Gemm. Where no
/// QuantizeLinear reads the product's output (the logits, a float residual), int8 sums scaled to
/// float: com.microsoft MatMulIntegerToFloat, or QGemm without y_scale. Adds one line to the steps
/// ("ran 25 QDQ matrix products (MatMul, Gemm) as int8: 24 QLinearMatMul, 1 QGemm with a float
/// output"); returns how many.
size_t fuseQdqMatMuls(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);

/// The same for activations between a DequantizeLinear and a QuantizeLinear with constant per-tensor
/// parameters (HardSwish, HardSigmoid, Sigmoid and other one-input activations, and x * Sigmoid(x)):
/// each becomes an ai.graphlens QLinearLookupTable of the 256 input codes, computed by the reference
/// kernels of the nodes it replaces (qdq_lookup_table.cpp). Adds one line to the steps ("ran 18
/// QDQ activations as int8 lookup tables: 18 HardSwish"); returns how many.
size_t fuseQdqLookupTables(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);
/// The same for squeeze-and-excitation blocks: DequantizeLinear -> GlobalAveragePool -> QuantizeLinear
/// becomes com.microsoft QLinearGlobalAveragePool, DequantizeLinear(a) * DequantizeLinear(b) -> Mul
/// -> QuantizeLinear (b of a's shape or [N, C, 1, 1]) com.microsoft QLinearMul
/// (qdq_squeeze_excitation.cpp). Adds one line to the steps; returns how many.
size_t fuseQdqSqueezeExcitation(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);
/// The same for ops that select or move values, and concatenation (qdq_select.cpp):
/// DequantizeLinear -> MaxPool, GlobalMaxPool, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
/// Slice, DepthToSpace or SpaceToDepth -> QuantizeLinear with the same constant per-tensor scale and
/// zero point on both sides becomes the op on the u8/s8 codes themselves, DequantizeLinear on every
/// input -> Concat -> QuantizeLinear com.microsoft QLinearConcat; all exact. Adds one line to the
/// steps ("ran 5 QDQ nodes on their int8 codes (3 MaxPool, 2 Reshape) and 8 QDQ Concat as int8
/// QLinearConcat"); returns how many.
size_t fuseQdqSelections(PreparedModel& prepared, std::map<NodeId, NodeId>* reportedAs = nullptr);
/// True when `node` is a one-input activation (of the default domain, or com.microsoft's QuickGelu,
/// Gelu and FastGelu) that fuseQdqLookupTables tabulates between a DequantizeLinear and a
/// QuantizeLinear (every kind of the activation table but Relu, Clip and Identity, which the int8
/// nodes' saturation computes); quantize-int8 quantizes the outputs of those that follow a
/// quantized node.
bool tabulatesActivation(const Node& node);

/// Stores the weights of every DequantizeLinear of constants as float32 (what the shared
/// preparation does, for the weights it kept for fuseQdqConvolutions); for plans that do not
/// fuse. Adds a line to the steps when it changed something.
void dequantizeConstantWeights(PreparedModel& prepared);

/// True where oneDNN's int8 products add each pair of u8 x s8 products into a saturating 16-bit
/// sum (x86 without VNNI, or ONEDNN_MAX_CPU_ISA set below it): 255 * 127 * 2 exceeds 32767, so
/// full-range weights can lose precision there, and weights within +-63 cannot (quantize-int8
/// --reduce-range).
bool int8ProductsSaturate();

} // namespace graphlens
