// Preparing a model for a backend: one step, shared by the CPU and Vulkan backends, that turns a
// model plus the caller's concrete input shapes into the graph both plan from. It validates the
// attributes, infers every shape for those input shapes, folds the shape arithmetic exporters
// write (Shape -> Gather -> Concat -> Reshape) and small constant computations with the pass
// library's fold-constants and fold-shapes until shape inference sees every size, and stores
// int8 weights behind a DequantizeLinear as float32 once. Backends then claim nodes of its output
// (node_descriptor.h); neither derives shapes again.
#pragma once

#include "core/graph/model.h"

#include <map>
#include <string>
#include <vector>

namespace graphlens {

struct PreparedModel {
    Model model;  ///< the plan-ready graph; weights shared with the source model
    /// Empty when every computed value has a static shape. Otherwise one sentence saying why
    /// some shapes are known only when the model runs, naming the first such value or the shape
    /// inference error; the CPU backend then runs those nodes with run-time shapes.
    std::string openShapes;
    /// What preparation did, one line each: "inferred shapes for input_ids [1,128]",
    /// "folded 212 shape computations in 3 rounds", "dequantized 53 int8 weights".
    std::vector<std::string> steps;

    bool shapesStatic() const { return openShapes.empty(); }
};

/// Prepares `model` for a plan with the given input shapes (inputs not listed keep the model's
/// shapes). Throws ValidationError for attributes out of range, ExecutionError (InvalidModel)
/// for static shapes that cannot broadcast.
PreparedModel prepareModel(const Model& model, const std::map<std::string, std::vector<int64_t>>& inputShapes);

} // namespace graphlens
