#!/usr/bin/python3
"""Cross-checks GraphLens on TF.js GraphModels against TensorFlow.js itself, and the ONNX export
against ONNX Runtime.

For each model.json: TF.js (npm @tensorflow/tfjs, CPU backend, bench/tfjs_runner.mjs) reports the
signature; inputs are drawn from a fixed seed (floats uniform in [0, 1), integers in [0, 255],
dims of -1 set to 1 for the first and to --size for the others); `graphlens run` and TF.js run
them, and each output must be within 1e-3 of that output's scale (the largest magnitude TF.js
produced, at least 1e-3: presence scores that random inputs drive to 1e-9 are not compared at
1e-12). Then `graphlens optimize MODEL.json -o model.onnx` exports the model and ONNX Runtime
(bench/ort_runner.mjs) runs the export on the same inputs, to the same tolerance. With --bench,
`graphlens bench` and TF.js time it (medians, same machine, same run).

    bench/compare_tfjs.py [--graphlens build/app/graphlens] [--bench] [--threads T] [--size S]
                          [--passes LIST] MODEL.json ...

Prints one line per model and exits 1 when any model fails to load, run or match.
Runs with Debian's python (/usr/bin/python3, packages python3-onnx and python3-numpy).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOLERANCE = 1e-3
# An output's scale is at least this: random inputs saturate detectors' presence scores (a sigmoid
# of -20 is 2e-9), where float noise of 1e-9 would otherwise read as a relative error of 50%.
SCALE_FLOOR = 1e-3
DTYPES = {"float32": np.float32, "int32": np.int32, "bool": np.bool_, "int64": np.int64}


def ensure_node_packages():
    needed = [os.path.join(HERE, "node_modules", p) for p in ("@tensorflow/tfjs", "onnxruntime-node")]
    if not all(os.path.isdir(p) for p in needed):
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=HERE, check=True)


def node(*args, timeout=900):
    out = subprocess.run(["node", *args], capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "node failed")
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def make_inputs(signature, folder, size, rng):
    """Writes each input as raw bytes (for the JS runners) and as a TensorProto (for graphlens)."""
    spec, pb_args = [], []
    for k, inp in enumerate(signature["inputs"]):
        shape = inp["shape"] or [1]
        dims = [(1 if i == 0 else size) if d is None or d < 0 else d for i, d in enumerate(shape)]
        dtype = DTYPES.get(inp["dtype"], np.float32)
        if dtype == np.float32:
            array = rng.random(dims, dtype=np.float32)
        elif dtype == np.bool_:
            array = rng.integers(0, 2, dims).astype(np.bool_)
        else:
            array = rng.integers(0, 256, dims).astype(dtype)
        raw = os.path.join(folder, f"input_{k}.bin")
        array.tofile(raw)
        spec.append({"name": inp["name"], "type": inp["dtype"], "dims": dims, "file": raw})
        pb = os.path.join(folder, f"input_{k}.pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(array, inp["name"]).SerializeToString())
        pb_args += ["--input", f"{inp['name']}={pb}"]
    path = os.path.join(folder, "inputs.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path, pb_args


def reference_outputs(folder):
    outputs = {}
    for meta in json.load(open(os.path.join(folder, "outputs.json"))):
        dtype = {"float32": np.float32, "int32": np.int32, "bool": np.uint8, "int64": np.int64}[meta["type"]]
        outputs[meta["name"].split(":")[0]] = np.fromfile(meta["file"], dtype=dtype).reshape(meta["dims"])
    return outputs


def graphlens_outputs(folder):
    outputs = {}
    k = 0
    while os.path.exists(os.path.join(folder, f"output_{k}.pb")):
        tensor = onnx.load_tensor(os.path.join(folder, f"output_{k}.pb"))
        outputs[tensor.name.split(":")[0]] = numpy_helper.to_array(tensor)
        k += 1
    return outputs


def worst_error(expected, got):
    """The largest error over the outputs, each relative to its own scale; None when one is missing."""
    worst = 0.0
    for name, ref in expected.items():
        if name not in got or got[name].size != ref.size:
            return None, name
        ref64 = ref.astype(np.float64).reshape(-1)
        err = np.abs(got[name].astype(np.float64).reshape(-1) - ref64)
        scale = max(float(np.max(np.abs(ref64))) if ref64.size else 0.0, SCALE_FLOOR)
        worst = max(worst, float(np.max(err)) / scale if err.size else 0.0)
    return worst, None


def run_graphlens(graphlens, args, timeout=900):
    out = subprocess.run([graphlens, *args], capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip() or "graphlens failed").splitlines()[-1])
    return out.stdout


def check_model(args, model, folder):
    row = {"model": os.path.basename(os.path.dirname(model)) + "/" + os.path.basename(model)}
    signature = json.loads(node(os.path.join(HERE, "tfjs_runner.mjs"), "signature", model))
    spec, pb_args = make_inputs(signature, folder, args.size, np.random.default_rng(1))
    tfjs_dir = os.path.join(folder, "tfjs")
    node(os.path.join(HERE, "tfjs_runner.mjs"), "run", model, spec, tfjs_dir)
    expected = reference_outputs(tfjs_dir)
    ours_dir = os.path.join(folder, "graphlens")
    info = run_graphlens(args.graphlens, ["info", model, "--json"])
    row["nodes"] = json.loads(info).get("nodes")
    run_graphlens(args.graphlens, ["run", model, *pb_args, "--output-dir", ours_dir, *args.extra])
    row["err"], missing = worst_error(expected, graphlens_outputs(ours_dir))
    if missing:
        raise RuntimeError(f"graphlens has no output matching TF.js output '{missing}'")
    exported = os.path.join(folder, "model.onnx")
    run_graphlens(args.graphlens, ["optimize", model, "-o", exported, *args.extra])
    ort_dir = os.path.join(folder, "ort")
    node(os.path.join(HERE, "ort_runner.mjs"), "run", exported, spec, ort_dir)
    row["ort_err"], missing = worst_error(expected, reference_outputs(ort_dir))
    if missing:
        raise RuntimeError(f"the ONNX export has no output matching TF.js output '{missing}'")
    if args.bench:
        out = run_graphlens(args.graphlens, ["bench", model, *pb_args, "--json", "--threads", str(args.threads),
                                             "--runs", "20", *args.extra])
        row["ours_ms"] = json.loads(out)["median_ms"]
        row["tfjs_ms"] = json.loads(node(os.path.join(HERE, "tfjs_runner.mjs"), "bench", model, spec,
                                         "--runs", "5"))["median_ms"]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphlens", default=os.path.join(ROOT, "build/app/graphlens"))
    ap.add_argument("--bench", action="store_true", help="also time graphlens and TF.js")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--size", type=int, default=224, help="value for dims of -1 after the first")
    ap.add_argument("--passes", help="forwarded to graphlens run, optimize and bench")
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    args.extra = ["--passes", args.passes] if args.passes else []
    ensure_node_packages()
    print(f"{'model':34} {'nodes':>6} {'err/scale':>10} {'ORT err':>10} {'graphlens ms':>13} {'TF.js ms':>9}  result")
    failures = 0
    for model in args.models:
        with tempfile.TemporaryDirectory(prefix="graphlens-tfjs-") as folder:
            try:
                row = check_model(args, os.path.abspath(model), folder)
                ok = row["err"] <= TOLERANCE and row["ort_err"] <= TOLERANCE
                timing = (f"{row['ours_ms']:13.2f} {row['tfjs_ms']:9.2f}" if "ours_ms" in row else f"{'':13} {'':9}")
                print(f"{row['model']:34} {row['nodes'] or 0:6} {row['err']:10.2e} {row['ort_err']:10.2e} {timing}  "
                      f"{'ok' if ok else 'MISMATCH'}", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                ok = False
                print(f"{model:34} FAILED: {e}", flush=True)
            failures += 0 if ok else 1
    print(f"{len(args.models) - failures} of {len(args.models)} models match TF.js within {TOLERANCE} of each output's scale")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
