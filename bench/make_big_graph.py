#!/usr/bin/python3
"""Generates a large graph of small ops (default ~61,000 nodes) for first-paint and layout
benchmarks: LAYERS top-level scopes /layers.i, each of BLOCKS residual blocks of element-wise
ops and one 64x64 MatMul, named like a PyTorch export so the viewer groups them by scope.

usage: make_big_graph.py OUTPUT.onnx [--layers 250] [--blocks 4]
Needs only Debian's python3-onnx and python3-numpy; the weights are random (seeded).
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

WIDTH = 64
# One block: a chain of cheap ops with a residual Add at the end; 61 nodes.
CHAIN = ["MatMul", "Add", "Relu", "Mul", "Sigmoid", "Mul", "Tanh", "Add", "Sub", "Relu"] * 6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--layers", type=int, default=250)
    parser.add_argument("--blocks", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    weight = numpy_helper.from_array(rng.standard_normal((WIDTH, WIDTH)).astype(np.float32) * 0.05, "shared.weight")
    bias = numpy_helper.from_array(rng.standard_normal(WIDTH).astype(np.float32) * 0.05, "shared.bias")
    scale = numpy_helper.from_array(np.full(WIDTH, 0.5, np.float32), "shared.scale")
    operand = {"MatMul": "shared.weight", "Add": "shared.bias", "Mul": "shared.scale", "Sub": "shared.bias"}
    nodes = []
    x = "input"
    for layer in range(args.layers):
        for block in range(args.blocks):
            scope = f"/layers.{layer}/block.{block}"
            start = x
            for i, op in enumerate(CHAIN):
                out = f"{scope}/{op}_{i}_output_0"
                inputs = [x, operand[op]] if op in operand else [x]
                nodes.append(helper.make_node(op, inputs, [out], name=f"{scope}/{op}_{i}"))
                x = out
            out = f"{scope}/residual/Add_output_0"
            nodes.append(helper.make_node("Add", [x, start], [out], name=f"{scope}/residual/Add"))
            x = out
    nodes.append(helper.make_node("Identity", [x], ["output"], name="/head/Identity"))
    graph = helper.make_graph(
        nodes, "big_graph",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, WIDTH])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, WIDTH])],
        [weight, bias, scale])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_big_graph.py")
    model.ir_version = 8
    onnx.save(model, args.output)
    print(f"{args.output}: {len(nodes)} nodes")


if __name__ == "__main__":
    main()
