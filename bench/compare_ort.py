#!/usr/bin/python3
"""GraphLens against ONNX Runtime (npm onnxruntime-node, CPU, all its graph optimizations on).

For each model: both run the same seeded inputs once and the outputs are compared (max abs and
relative error; within 1e-4 relative + 1e-5 absolute passes); then `graphlens bench` and ONNX
Runtime's session.run are timed in alternating rounds with the same thread count. Printed: the
median of each side's per-round medians, and the ratio GraphLens / ORT as the median of the
rounds' ratios (each round's pair ran back to back, so a machine whose speed drifts between rounds
still gives a fair ratio) with its range over the rounds.

With --busy B, B processes that keep one core busy each (a tight loop) run during the timed
rounds, as other work on a shared machine would: the contended ratio (both sides see the same
load, each round back to back).

With --int8 FLOAT.onnx,QDQ.onnx (repeatable; a QDQ model made from the float one, e.g. by
make_qdq_model.py), int8 rows: GraphLens on the QDQ model (its int8 kernels), GraphLens on the float
model, ONNX Runtime on both, timed in the same interleaved rounds; printed with the ratios
GraphLens int8 / GraphLens float and GraphLens int8 / ORT int8 (medians of the rounds' ratios),
and the largest difference between the two int8 outputs.

With --pipeline MODEL.onnx (repeatable), the pipeline row (compare_pipeline.py): `graphlens optimize`
with the default passes, load and write included, against ONNX Runtime's session creation from the
same file, in --rounds interleaved rounds: each phase's median and the ratio.

The PP-OCRv4 rows of issue 18 (det 640x640, rec 48x320, cls 48x192): make_ppocr_models.py writes
PaddleOCR's own ONNX files with those input sizes fixed, as ppocr_v4_det, ppocr_v4_rec and ppocr_cls.
A model with symbolic input dimensions takes --dim NAME=N (repeatable), as `graphlens run` does;
ONNX Runtime then runs the inputs GraphLens made.

usage: compare_ort.py GRAPHLENS [MODEL.onnx ...] [--int8 FLOAT.onnx,QDQ.onnx ...] [--pipeline MODEL.onnx ...]
       [--threads T] [--runs N] [--rounds R] [--busy B] [--passes LIST] [--dim NAME=N ...]
       (--passes and --dim are forwarded to graphlens when given)
Needs: Debian's python3-onnx and numpy, node, and `npm install --ignore-scripts onnxruntime-node`
in this folder (done on first use).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
NUMPY_TO_ORT = {"float32": "float32", "float64": "float64", "int64": "int64", "int32": "int32",
                "uint8": "uint8", "int8": "int8", "bool": "bool"}


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def positional():
    """The command line's arguments that are neither an option nor an option's value."""
    return [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]


def int8_pairs():
    """(float model, QDQ model) for each --int8 FLOAT,QDQ."""
    return [tuple(sys.argv[i + 1].split(",", 1)) for i, a in enumerate(sys.argv) if a == "--int8"]


def forwarded_options():
    """--passes LIST for graphlens when the command line gives it, and each --dim NAME=N."""
    passes = ["--passes", option("--passes", "")] if "--passes" in sys.argv else []
    return passes + [word for i, a in enumerate(sys.argv[:-1]) if a == "--dim" for word in ("--dim", sys.argv[i + 1])]


def ensure_ort():
    if not os.path.isdir(os.path.join(HERE, "node_modules", "onnxruntime-node")):
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "onnxruntime-node"],
                       cwd=HERE, check=True)


def write_input_spec(folder):
    spec = []
    k = 0
    while os.path.exists(os.path.join(folder, f"input_{k}.pb")):
        tensor = onnx.load_tensor(os.path.join(folder, f"input_{k}.pb"))
        array = numpy_helper.to_array(tensor)
        raw = os.path.join(folder, f"input_{k}.bin")
        array.tofile(raw)
        spec.append({"name": tensor.name, "type": NUMPY_TO_ORT[str(array.dtype)], "dims": list(array.shape),
                     "file": raw})
        k += 1
    path = os.path.join(folder, "inputs.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def cross_check(graphlens, model, folder, extra):
    subprocess.run([graphlens, "run", model, "--seed", "1", "--save-inputs", folder, "--output-dir", folder] + extra,
                   check=True, capture_output=True)
    spec = write_input_spec(folder)
    ort_dir = os.path.join(folder, "ort")
    subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "run", model, spec, ort_dir], check=True)
    worst = (0.0, 0.0)
    ok = True
    for k, meta in enumerate(json.load(open(os.path.join(ort_dir, "outputs.json")))):
        want = np.fromfile(meta["file"], dtype=np.float32 if meta["type"] == "float32" else meta["type"])
        got = numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, f"output_{k}.pb"))).reshape(-1)
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        rel = diff / np.maximum(np.abs(want.astype(np.float64)), 1e-12)
        ok &= bool(np.all(diff <= 1e-5 + 1e-4 * np.abs(want)))
        worst = (max(worst[0], float(diff.max(initial=0))), max(worst[1], float(rel.max(initial=0))))
    return ok, worst, spec


def bench(graphlens, model, spec, threads, runs, rounds, extra):
    ours, theirs = [], []
    for _ in range(rounds):
        out = subprocess.run([graphlens, "bench", model, "--json", "--seed", "1", "--threads", str(threads),
                              "--runs", str(runs)] + extra, check=True, capture_output=True, text=True).stdout
        ours.append(json.loads(out)["median_ms"])
        out = subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "bench", model, spec,
                              "--threads", str(threads), "--runs", str(runs)],
                             check=True, capture_output=True, text=True).stdout
        theirs.append(json.loads(out)["median_ms"])
    ratios = [a / b for a, b in zip(ours, theirs)]
    return statistics.median(ours), statistics.median(theirs), statistics.median(ratios), min(ratios), max(ratios)


def time_graphlens(graphlens, model, threads, runs, extra):
    out = subprocess.run([graphlens, "bench", model, "--json", "--seed", "1", "--threads", str(threads),
                          "--runs", str(runs)] + extra, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def time_ort(model, spec, threads, runs):
    out = subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "bench", model, spec, "--threads", str(threads),
                          "--runs", str(runs)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def int8_row(graphlens, float_model, qdq_model, threads, runs, rounds, extra):
    """GraphLens int8, GraphLens float, ORT int8 and ORT float medians over interleaved rounds,
    the medians of the per-round ratios, and the largest |GraphLens - ORT| of the int8 outputs."""
    with tempfile.TemporaryDirectory() as folder:
        _, (abs_err, _), spec = cross_check(graphlens, qdq_model, folder, extra)
        with tempfile.TemporaryDirectory() as float_folder:
            float_spec = write_float_spec(graphlens, float_model, float_folder, extra)
            times = {"int8": [], "float": [], "ort_int8": [], "ort_float": []}
            for _ in range(rounds):
                times["int8"].append(time_graphlens(graphlens, qdq_model, threads, runs, extra))
                times["float"].append(time_graphlens(graphlens, float_model, threads, runs, extra))
                times["ort_int8"].append(time_ort(qdq_model, spec, threads, runs))
                times["ort_float"].append(time_ort(float_model, float_spec, threads, runs))
    own = statistics.median(a / b for a, b in zip(times["int8"], times["float"]))
    versus = statistics.median(a / b for a, b in zip(times["int8"], times["ort_int8"]))
    return {k: statistics.median(v) for k, v in times.items()}, own, versus, abs_err


def write_float_spec(graphlens, model, folder, extra):
    subprocess.run([graphlens, "run", model, "--seed", "1", "--save-inputs", folder, "--output-dir", folder] + extra,
                   check=True, capture_output=True)
    return write_input_spec(folder)


def start_busy(count):
    """`count` processes spinning on one core each until stopped."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def pipeline_models():
    """The models of each --pipeline MODEL."""
    return [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--pipeline"]


def main():
    args = positional()
    pairs = int8_pairs()
    if len(args) < 1 or (len(args) < 2 and not pairs and not pipeline_models()):
        sys.exit(__doc__)
    graphlens, models = args[0], args[1:]
    threads, runs, rounds = int(option("--threads", 2)), int(option("--runs", 20)), int(option("--rounds", 3))
    busy = int(option("--busy", 0))
    extra = forwarded_options()
    ensure_ort()
    if busy:
        print(f"with {busy} busy processes beside the timed runs")
    print(f"{'model':24} {'max abs err':>12} {'max rel err':>12} {'graphlens ms':>13} {'ORT ms':>9} {'ratio':>7}"
          f" {'round ratios':>13}")
    failures = 0
    for model in models:
        with tempfile.TemporaryDirectory() as folder:
            ok, (abs_err, rel_err), spec = cross_check(graphlens, model, folder, extra)
            spinners = start_busy(busy)
            try:
                ours, theirs, ratio, low, high = bench(graphlens, model, spec, threads, runs, rounds, extra)
            finally:
                for p in spinners:
                    p.kill()
                    p.wait()
        failures += not ok
        name = os.path.splitext(os.path.basename(model))[0]
        print(f"{name:24} {abs_err:12.2e} {rel_err:12.2e} {ours:13.2f} {theirs:9.2f} {ratio:7.2f} {low:6.2f}-{high:<6.2f}"
              + ("" if ok else "  OUTPUTS DIFFER"))
    if pairs:
        print(f"\n{'int8 model':24} {'GL int8 ms':>11} {'GL float ms':>12} {'ORT int8 ms':>12} {'ORT float ms':>13}"
              f" {'GL int8/float':>14} {'GL/ORT int8':>12} {'max |GL-ORT| int8':>18}")
    for float_model, qdq_model in pairs:
        spinners = start_busy(busy)
        try:
            t, own, versus, abs_err = int8_row(graphlens, float_model, qdq_model, threads, runs, rounds, extra)
        finally:
            for p in spinners:
                p.kill()
                p.wait()
        name = os.path.splitext(os.path.basename(qdq_model))[0]
        print(f"{name:24} {t['int8']:11.2f} {t['float']:12.2f} {t['ort_int8']:12.2f} {t['ort_float']:13.2f}"
              f" {own:14.2f} {versus:12.2f} {abs_err:18.3e}")
    if pipeline_models():
        from compare_pipeline import print_pipeline_rows
        print()
        print_pipeline_rows(graphlens, pipeline_models(), rounds=rounds, threads=threads,
                            passes=option("--passes", "default"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
