#!/usr/bin/python3
"""Writes a QDQ model the way ONNX Runtime's quantize_static does (QuantFormat.QDQ,
per_channel=True): weights of Conv and Gemm as s8, symmetric, one scale per output channel,
behind a DequantizeLinear (axis 0); biases as int32 in units of input scale * weight scale behind a
DequantizeLinear; activations (every input of a Conv or Gemm, and their outputs, after the Relu
when one follows) as QuantizeLinear -> DequantizeLinear pairs, u8 asymmetric (or s8 with --s8),
ranges calibrated (min/max, widened to include 0) by ONNX Runtime on seeded random inputs.

With --reduce-range, weights are 7-bit ([-64, 64], as ONNX Runtime's reduce_range): machines
without VNNI multiply u8 x s8 pairs into saturating 16-bit sums, exact only for such weights.

usage: make_qdq_model.py MODEL.onnx OUT.onnx [--samples N] [--seed S] [--s8] [--reduce-range]
Needs Debian's python3-onnx and numpy, node, and onnxruntime-node in bench/node_modules.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "ort_runner.mjs")
ELEM = {TensorProto.FLOAT: np.float32, TensorProto.INT64: np.int64}


def run_ort(model_path, feeds, out_dir):
    """ONNX Runtime's outputs of `model_path` on `feeds` {name: array}, as {name: array}."""
    spec = []
    for i, (name, array) in enumerate(feeds.items()):
        raw = os.path.join(out_dir, f"in_{i}.bin")
        array.tofile(raw)
        spec.append({"name": name, "type": str(array.dtype), "dims": list(array.shape), "file": raw})
    spec_path = os.path.join(out_dir, "inputs.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    result_dir = os.path.join(out_dir, "ort")
    subprocess.run(["node", RUNNER, "run", model_path, spec_path, result_dir], check=True)
    outputs = {}
    for meta in json.load(open(os.path.join(result_dir, "outputs.json"))):
        outputs[meta["name"]] = np.fromfile(meta["file"], dtype=meta["type"]).reshape(meta["dims"])
    return outputs


def seeded_inputs(model, seed):
    rng = np.random.default_rng(seed)
    feeds = {}
    inits = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in inp.type.tensor_type.shape.dim]
        feeds[inp.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


def activations_to_quantize(model):
    """Names of the float tensors that get a Q -> DQ pair: Conv/Gemm inputs and outputs (an
    output read only by a Relu is quantized after the Relu)."""
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    names = []
    for node in model.graph.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        names.append(node.input[0])
        out = node.output[0]
        readers = consumers.get(out, [])
        if len(readers) == 1 and readers[0].op_type == "Relu":
            out = readers[0].output[0]
        names.append(out)
    seen = set()
    return [n for n in names if not (n in seen or seen.add(n))]


def calibrate(model, names, samples, seed):
    """min/max of each tensor in `names` over `samples` seeded random inputs, by ONNX Runtime."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    existing = {o.name for o in probe.graph.output}
    for name in names:
        if name not in existing:
            probe.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    ranges = {}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "probe.onnx")
        onnx.save(probe, path)
        for s in range(samples):
            outputs = run_ort(path, seeded_inputs(model, seed + s), folder)
            for name in names:
                lo, hi = float(outputs[name].min()), float(outputs[name].max())
                old = ranges.get(name, (lo, hi))
                ranges[name] = (min(lo, old[0]), max(hi, old[1]))
    return ranges


def activation_params(lo, hi, signed):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if signed:
        scale = (hi - lo) / 255.0 or 1.0
        zero = int(round(-128 - lo / scale))
        return np.float32(scale), np.int8(np.clip(zero, -128, 127))
    scale = (hi - lo) / 255.0 or 1.0
    zero = int(round(-lo / scale))
    return np.float32(scale), np.uint8(np.clip(zero, 0, 255))


def quantize(model, ranges, signed=False, reduce_range=False):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    new_nodes, new_inits = [], []
    # A quantized graph output keeps its name on the DequantizeLinear's output; the float tensor
    # before it is renamed.
    outputs = {o.name for o in g.output}
    renamed = {name: name + "_float" for name in ranges if name in outputs}
    for node in g.node:
        for field in (node.input, node.output):
            for i, name in enumerate(field):
                if name in renamed:
                    field[i] = renamed[name]
    act = {renamed.get(name, name): activation_params(lo, hi, signed) for name, (lo, hi) in ranges.items()}
    original = {v: k for k, v in renamed.items()}
    dq_name = {name: original.get(name, name + "_DequantizeLinear_Output") for name in act}

    def add_init(array, name):
        new_inits.append(numpy_helper.from_array(array, name))
        return name

    # QDQ pairs on activations, right after their producer (graph inputs: at the start).
    pairs = {}
    for name, (scale, zero) in act.items():
        s = add_init(np.array(scale, dtype=np.float32), name + "_scale")
        z = add_init(np.array(zero), name + "_zero_point")
        pairs[name] = [helper.make_node("QuantizeLinear", [name, s, z], [name + "_QuantizeLinear_Output"], name + "_QuantizeLinear"),
                       helper.make_node("DequantizeLinear", [name + "_QuantizeLinear_Output", s, z], [dq_name[name]],
                                        name + "_DequantizeLinear")]
    graph_inputs = [i.name for i in g.input]
    for name in graph_inputs:
        new_nodes += pairs.get(name, [])
    for node in g.node:
        if node.op_type in ("Conv", "Gemm"):
            x = node.input[0]
            w = inits[node.input[1]]
            wf = numpy_helper.to_array(w).astype(np.float32)
            trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
            if node.op_type == "Gemm" and not trans_b:
                wf = wf.T.copy()  # [N, K] for per-output-channel scales, then transB = 1
                for a in list(node.attribute):
                    if a.name == "transB":
                        node.attribute.remove(a)
                node.attribute.append(helper.make_attribute("transB", 1))
            axes = tuple(range(1, wf.ndim))
            wmax = 64.0 if reduce_range else 127.0
            scales = (np.abs(wf).max(axis=axes) / wmax).astype(np.float32)
            scales[scales == 0] = 1.0
            shape = (-1,) + (1,) * (wf.ndim - 1)
            wq = np.clip(np.round(wf / scales.reshape(shape)), -wmax, wmax).astype(np.int8)
            wname = w.name + "_quantized"
            add_init(wq, wname)
            add_init(scales, wname + "_scale")
            add_init(np.zeros(len(scales), dtype=np.int8), wname + "_zero_point")
            new_nodes.append(helper.make_node("DequantizeLinear", [wname, wname + "_scale", wname + "_zero_point"],
                                              [wname + "_DequantizeLinear_Output"], wname + "_DequantizeLinear", axis=0))
            inputs = [dq_name.get(x, x), wname + "_DequantizeLinear_Output"]
            if len(node.input) > 2 and node.input[2]:
                b = numpy_helper.to_array(inits[node.input[2]]).astype(np.float32)
                bscale = (np.float32(act[x][0]) * scales).astype(np.float32)
                bq = np.round(b / bscale).astype(np.int32)
                bname = node.input[2] + "_quantized"
                add_init(bq, bname)
                add_init(bscale, bname + "_scale")
                add_init(np.zeros(len(bscale), dtype=np.int32), bname + "_zero_point")
                new_nodes.append(helper.make_node("DequantizeLinear", [bname, bname + "_scale", bname + "_zero_point"],
                                                  [bname + "_DequantizeLinear_Output"], bname + "_DequantizeLinear", axis=0))
                inputs.append(bname + "_DequantizeLinear_Output")
            del node.input[:]
            node.input.extend(inputs)
        else:
            for i, name in enumerate(node.input):
                if name in dq_name:
                    node.input[i] = dq_name[name]
        new_nodes.append(node)
        for out in node.output:
            new_nodes += pairs.get(out, [])
    used = {n for node in new_nodes for n in node.input}
    kept = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept + [i for i in new_inits if i.name in used])
    del g.node[:]
    g.node.extend(new_nodes)
    del g.value_info[:]
    return model


def make_qdq(model, samples=4, seed=0, signed=False, reduce_range=False):
    names = activations_to_quantize(model)
    ranges = calibrate(model, names, samples, seed)
    return quantize(model, ranges, signed, reduce_range)


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[i - 1] not in ("--samples", "--seed")]
    if len(args) != 2:
        sys.exit(__doc__)
    samples = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 4
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 0
    model = onnx.load(args[0])
    qdq = make_qdq(model, samples, seed, "--s8" in sys.argv, "--reduce-range" in sys.argv)
    onnx.checker.check_model(qdq)
    onnx.save(qdq, args[1])
    print(f"{args[1]}: {sum(n.op_type == 'QuantizeLinear' for n in qdq.graph.node)} QuantizeLinear, "
          f"{sum(n.op_type == 'DequantizeLinear' for n in qdq.graph.node)} DequantizeLinear, calibrated on {samples} "
          f"seeded random inputs (seed {seed})")


if __name__ == "__main__":
    main()
