// Reaching past Graph's editing methods, for tests that break a graph's links on purpose to
// check that Graph::validate() reports them. Nothing outside tests may do this.
#pragma once

#include "core/graph/graph.h"

#include <vector>

namespace graphlens {

struct GraphTestAccess {
    static std::vector<Use>& uses(Value& value) { return value.uses_; }
    static NodeId& producer(Value& value) { return value.producer_; }
    static std::vector<ValueId>& inputs(Node& node) { return node.inputs_; }
    static std::vector<ValueId>& outputs(Node& node) { return node.outputs_; }
};

} // namespace graphlens
