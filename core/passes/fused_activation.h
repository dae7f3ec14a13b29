// Activations fused into Conv/Gemm nodes, in ONNX Runtime's attribute form: "activation" names
// the op ("Relu", "Clip", "LeakyRelu", ...), "activation_params" holds its numbers (Clip: min,
// max; LeakyRelu: alpha; HardSigmoid: alpha, beta).
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace graphlens {

class Rewriter;

struct FusedActivation {
    std::string name;
    std::vector<float> params;
};

/// The activation `node` computes, when it is one a fused node can carry (a kActFusable kind of
/// core/graph/activations.def; Clip only with constant bounds), with all its numbers written out
/// (the table's defaults where the node leaves them out); nullopt otherwise.
std::optional<FusedActivation> fusableActivation(const Graph& graph, const Node& node);
/// Writes "activation" and "activation_params" into `attributes`.
void setActivationAttributes(Attributes& attributes, const FusedActivation& activation);
/// The fused activation an op carries, if any.
std::optional<FusedActivation> activationOf(const Attributes& attributes);
/// True when ONNX Runtime's FusedConv accepts this activation (kActOrtConv in the table).
bool onnxRuntimeFusesActivation(const FusedActivation& activation);
/// FusedGemm's form (ONNX Runtime's schema): "activation" plus the activation's own attributes
/// prefixed, "activation_alpha" and "activation_beta" (LeakyRelu: alpha; HardSigmoid: alpha,
/// beta). GraphLens also writes Clip as activation_alpha = min, activation_beta = max.
void setGemmActivationAttributes(Attributes& attributes, const FusedActivation& activation);
std::optional<FusedActivation> gemmActivationOf(const Attributes& attributes);
/// True when ONNX Runtime's FusedGemm accepts this activation (kActOrtGemm in the table).
bool onnxRuntimeFusesGemmActivation(const FusedActivation& activation);
/// Replaces `node` by the standard-ONNX node computing `activation` from `input`; the new node
/// produces `node`'s outputs. `opset` picks Clip's form (attributes before 11, inputs after).
NodeId replaceWithActivation(Rewriter& rewriter, NodeId node, const FusedActivation& activation,
                             ValueId input, int64_t opset);

} // namespace graphlens
