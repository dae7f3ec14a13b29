// The text a node box shows beside its op type: the attributes a reader looks for first
// (kernel, strides, groups, perm, axis, ...) and the constants it reads, named after the input
// they feed ("W 64×3×7×7", "B 64", "shape [1,-1]").
#pragma once

#include "core/graph/graph.h"

#include <QString>
#include <QStringList>

namespace graphlens {

/// True for values drawn as parameters of the boxes that read them: initializers, outputs of
/// Constant nodes, and outputs of Identity nodes that pass one of those on (exporters write
/// such Identity nodes for shared weights).
bool isParameterValue(const Graph& graph, ValueId value);

/// True for the nodes drawn as parameters rather than as boxes: Constant nodes and Identity
/// nodes of a parameter.
bool isDrawnAsParameter(const Graph& graph, const Node& node);

/// The tensor of a parameter value, through Identity nodes; nullptr when there is none (a
/// Constant with value_float, value_ints, ...).
const Tensor* parameterTensor(const Graph& graph, ValueId value);

/// The key attributes of `node`, one short line each; attributes at their default are left out.
QStringList keyAttributeLines(const Node& node);

/// The name ONNX gives input `index` of `opType` ("W" for Conv's second input); "in<index>"
/// where the op or the index is not in the table.
QString inputRoleName(const Node& node, int index);

/// One line per input of `node` that is a parameter (isParameterValue()): role and shape, or
/// role and values for a tensor of at most 8 elements.
QStringList parameterLines(const Graph& graph, const Node& node);

} // namespace graphlens
