#!/usr/bin/python3
"""What int8 quantization costs, with ONNX Runtime as the judge: runs FLOAT.onnx and its int8 form
INT8.onnx (`graphlens optimize --passes default,quantize-int8`, or make_qdq_model.py) in ONNX
Runtime (npm onnxruntime-node in bench/node_modules) on one seeded standard-normal input (int64 token ids
in [0, 10)) (seed 123,
not among quantize-int8's random calibration sets, seeds 0-3) and prints, per output, the largest
|float - int8|, the largest |float|, the cosine and whether the top-1 index agrees; with GRAPHLENS,
also GraphLens's int8 output against ONNX Runtime's (`graphlens run`, 2 threads).

usage: check_int8.py FLOAT.onnx INT8.onnx [GRAPHLENS]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_qdq_model import run_ort  # noqa: E402


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    float_path, int8_path = sys.argv[1], sys.argv[2]
    graphlens = sys.argv[3] if len(sys.argv) == 4 else None
    model = onnx.load(float_path, load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inp = next(i for i in model.graph.input if i.name not in inits)
    dims = [d.dim_value if d.dim_value > 0 else 1 for d in inp.type.tensor_type.shape.dim]
    rng = np.random.default_rng(123)
    if inp.type.tensor_type.elem_type == onnx.TensorProto.INT64:  # token ids, as graphlens's random inputs: [0, 10)
        x = rng.integers(0, 10, dims).astype(np.int64)
    else:
        x = rng.standard_normal(dims).astype(np.float32)
    with tempfile.TemporaryDirectory() as folder:
        expected = run_ort(float_path, {inp.name: x}, folder)
        got = run_ort(int8_path, {inp.name: x}, folder)
        for name, a in expected.items():
            b = got[name]
            cosine = float((a * b).sum() / (np.linalg.norm(a) * np.linalg.norm(b)))
            print(f"ORT float vs ORT int8 '{name}': max abs error {np.abs(a - b).max():.4g}, max |float| "
                  f"{np.abs(a).max():.4g}, cosine {cosine:.5f}, same top-1 {a.argmax() == b.argmax()}")
        if graphlens:
            path = os.path.join(folder, "input.pb")
            with open(path, "wb") as f:
                f.write(numpy_helper.from_array(x, inp.name).SerializeToString())
            subprocess.run([graphlens, "run", int8_path, "--input", f"{inp.name}={path}", "--output-dir",
                            os.path.join(folder, "gl"), "--threads", "2"], check=True, capture_output=True)
            for k, name in enumerate(got):
                g = numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, "gl", f"output_{k}.pb")))
                print(f"GraphLens int8 vs ORT int8 '{name}': max abs {np.abs(g - got[name]).max():.4g}")


if __name__ == "__main__":
    main()
