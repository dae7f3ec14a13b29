// The scale and zero point of a QuantizeLinear / DequantizeLinear node, or of the Q/DQ nodes
// feeding a node (a QDQ model's Conv reads its weight and its activation through
// DequantizeLinear), as the inspector shows them: per-tensor values, or a per-channel summary.
// Qt-free, so the numbers are unit tested exactly.
#pragma once

#include "core/graph/graph.h"

#include <optional>
#include <string>
#include <vector>

namespace graphlens {

struct QuantParams {
    NodeId node = kNoId;  ///< the QuantizeLinear or DequantizeLinear node
    std::string nodeName;
    std::string op;        ///< "QuantizeLinear" or "DequantizeLinear"
    std::string valueName; ///< what it quantizes (Q) or what it dequantizes (DQ)
    int64_t channels = 1;  ///< 1: per-tensor
    int64_t axis = 1;      ///< the channel axis when per-channel
    double scaleMin = 0, scaleMax = 0, scaleMean = 0;
    int64_t zeroPointMin = 0, zeroPointMax = 0;
    bool zeroPointKnown = false;  ///< false when the node has no constant zero point (0 by default)
    std::string zeroPointType;    ///< "int8", "uint8"; empty when unknown
};

/// The parameters of Q/DQ node `node` when its scale is a constant; nullopt otherwise.
std::optional<QuantParams> quantParamsOf(const Graph& graph, NodeId node);

/// `node`'s own parameters when it is a Q/DQ node, else those of the Q/DQ nodes producing its
/// inputs, in input order.
std::vector<QuantParams> quantParamsAround(const Graph& graph, NodeId node);

/// "0.05" (per-tensor) or "0.001 .. 0.03 (mean 0.012) over 64 channels, axis 0".
std::string scaleText(const QuantParams& q);
/// "3 (uint8)", "0 .. 5 (int8)", "0 (default)".
std::string zeroPointText(const QuantParams& q);

} // namespace graphlens
