#!/usr/bin/python3
"""Writes the recurrent benchmark models (random seeded weights) for compare_ort.py:
one bidirectional LSTM and one bidirectional GRU (linear_before_reset=1, as PyTorch exports it),
sequence 64, batch 1, input 256, hidden 256, layout 0, all outputs (Y, Y_h[, Y_c]) kept.

usage: make_rnn_bench.py OUT_DIR  -> OUT_DIR/lstm_seq64_h256_bidir.onnx, OUT_DIR/gru_seq64_h256_bidir.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(op, seq=64, batch=1, inputs=256, hidden=256):
    rng = np.random.default_rng(7)
    gates = 4 if op == "LSTM" else 3
    bound = 1 / np.sqrt(hidden)
    w = numpy_helper.from_array(rng.uniform(-bound, bound, (2, gates * hidden, inputs)).astype(np.float32), "W")
    r = numpy_helper.from_array(rng.uniform(-bound, bound, (2, gates * hidden, hidden)).astype(np.float32), "R")
    b = numpy_helper.from_array(rng.uniform(-bound, bound, (2, 2 * gates * hidden)).astype(np.float32), "B")
    outputs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    attrs = {"hidden_size": hidden, "direction": "bidirectional"}
    if op == "GRU":
        attrs["linear_before_reset"] = 1
    node = helper.make_node(op, ["X", "W", "R", "B"], outputs, name=op.lower(), **attrs)
    state = helper.make_tensor_value_info
    graph = helper.make_graph([node], f"{op.lower()}_bench", [state("X", TensorProto.FLOAT, [seq, batch, inputs])],
                              [state("Y", TensorProto.FLOAT, [seq, 2, batch, hidden])] +
                              [state(n, TensorProto.FLOAT, [2, batch, hidden]) for n in outputs[1:]], [w, r, b])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(model("LSTM"), os.path.join(out, "lstm_seq64_h256_bidir.onnx"))
    onnx.save(model("GRU"), os.path.join(out, "gru_seq64_h256_bidir.onnx"))
