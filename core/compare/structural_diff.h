// The structural diff of two models over their node matching: which paired nodes changed op type,
// attributes or weights, and by how much the weights moved.
#pragma once

#include "core/compare/node_matching.h"

#include <string>
#include <vector>

namespace graphlens {

/// A constant input that differs between the paired nodes.
struct WeightChange {
    int input = 0;           ///< the node input it feeds
    std::string nameA, nameB;  ///< empty on the side that does not have it
    double maxAbsDifference = 0;  ///< max |b - a| (same element count only)
    double relativeL2 = 0;        ///< |b - a|_2 / |a|_2 (same element count only; 1 when added or removed)
    /// Empty when only values changed; else "shape [64] -> [64,1]", "added", "removed".
    std::string shapeChange;
};

struct NodeChange {
    NodeId a = kNoId, b = kNoId;
    std::string opChange;                 ///< "Conv -> com.microsoft:FusedConv"; empty when the same
    std::vector<std::string> attributes;  ///< "strides: [1,1] -> [2,2]", "added activation: Relu"
    std::vector<WeightChange> weights;
};

/// One entry for every matched pair that differs in op, attributes or constant inputs.
std::vector<NodeChange> diffMatchedNodes(const Graph& a, const Graph& b, const NodeMatching& matching);

/// An attribute value as a short text: 3, 0.5, "same", [1,1], <tensor float[3]>, <graph>.
std::string attributeText(const Attribute& attribute);

} // namespace graphlens
