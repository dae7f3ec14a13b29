// A four-element Add-then-Mul model with named nodes, the smallest graph whose per-node errors the
// comparison tests compute by hand.
#pragma once

#include "core/graph/builder.h"

namespace graphlens::testing {

/// x[4] -> Add(c) -> Mul(2) -> y, nodes named "add" and "mul".
inline Model addMulModel(float c) {
    GraphBuilder b;
    const ValueId x = b.input("x", DType::Float, Shape::ofSizes({4}));
    const ValueId add = b.op("Add", {x, b.initializer("c", Tensor::floats({1}, {c}))}, {}, "add");
    b.output(b.op("Mul", {add, b.initializer("k", Tensor::floats({1}, {2.0f}))}, {}, "mul"));
    return b.model();
}

} // namespace graphlens::testing
