#!/usr/bin/python3
"""Checks what `graphlens optimize` makes of real models, with ONNX Runtime as the judge.

For each model: `graphlens optimize --passes PIPELINE --json` writes the optimized model; the
script then checks that no BatchNormalization, Identity or Dropout is left and no Relu/Clip reads
a Conv's output directly, runs the original and the optimized model in ONNX Runtime (npm
onnxruntime-node, CPU) on the same seeded inputs and compares every output (within 1e-4 relative
+ 1e-5 absolute passes), and times the pipeline against ONNX Runtime's session creation with all
its graph optimizations on (median of --sessions runs).

usage: check_optimized.py GRAPHLENS MODEL.onnx [MODEL.onnx ...] [--passes default] [--portable]
       [--sessions N] [--threads T]
Exit status 1 when a check fails.
"""
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ort import HERE, ensure_ort, option, write_input_spec  # noqa: E402

LEFTOVERS = ("BatchNormalization", "Identity", "Dropout")


def leftover_problems(path):
    """Sentences naming ops the default pipeline should have removed or fused."""
    model = onnx.load(path, load_external_data=False)
    producer = {out: node for node in model.graph.node for out in node.output}
    counts = Counter(node.op_type for node in model.graph.node)
    problems = [f"{counts[op]} {op} left" for op in LEFTOVERS if counts[op]]
    after_conv = [n.name for n in model.graph.node if n.op_type in ("Relu", "Clip") and n.input
                  and producer.get(n.input[0]) is not None and producer[n.input[0]].op_type == "Conv"]
    if after_conv:
        problems.append(f"{len(after_conv)} Relu/Clip directly after a Conv (e.g. {after_conv[0]})")
    return problems, counts


def ort_outputs(model, spec, folder):
    subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "run", model, spec, folder], check=True)
    outputs = []
    for meta in json.load(open(os.path.join(folder, "outputs.json"))):
        outputs.append(np.fromfile(meta["file"], dtype=np.float32 if meta["type"] == "float32" else meta["type"]))
    return outputs


def worst_difference(got, want):
    worst_abs, worst_rel, ok = 0.0, 0.0, True
    for g, w in zip(got, want):
        g, w = g.astype(np.float64), w.astype(np.float64)
        diff = np.abs(g - w)
        ok &= bool(np.all(diff <= 1e-5 + 1e-4 * np.abs(w)))
        worst_abs = max(worst_abs, float(diff.max(initial=0)))
        big = np.abs(w) > 1e-5
        worst_rel = max(worst_rel, float((diff[big] / np.abs(w[big])).max(initial=0)))
    return ok, worst_abs, worst_rel


def session_ms(model, runs, threads):
    out = subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "session", model, "-", "--runs", str(runs),
                          "--threads", str(threads)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["median_ms"]


def check(graphlens, model, folder, passes, extra, sessions, threads):
    optimized = os.path.join(folder, "optimized.onnx")
    report = json.loads(subprocess.run([graphlens, "optimize", model, "-o", optimized, "--passes", passes, "--json"]
                                       + extra, check=True, capture_output=True, text=True).stdout)
    pipeline_ms = sum(p["ms"] for p in report["passes"])
    problems, counts = leftover_problems(optimized)
    subprocess.run([graphlens, "run", model, "--seed", "1", "--save-inputs", folder], check=True, capture_output=True)
    spec = write_input_spec(folder)
    want = ort_outputs(model, spec, os.path.join(folder, "ort_original"))
    got = ort_outputs(optimized, spec, os.path.join(folder, "ort_optimized"))
    ok, abs_err, rel_err = worst_difference(got, want)
    if not ok:
        problems.append("ONNX Runtime's outputs of the optimized model differ")
    ort_ms = session_ms(model, sessions, threads)
    return report, counts, problems, abs_err, rel_err, pipeline_ms, ort_ms


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1)
            if not a.startswith("--") and sys.argv[i - 1] not in ("--passes", "--sessions", "--threads")]
    if len(args) < 2:
        sys.exit(__doc__)
    graphlens, models = args[0], args[1:]
    passes, sessions, threads = option("--passes", "default"), int(option("--sessions", 5)), int(option("--threads", 2))
    extra = ["--portable"] if "--portable" in sys.argv else []
    ensure_ort()
    print(f"{'model':26} {'nodes':>13} {'max abs err':>12} {'max rel err':>12} {'passes ms':>10} {'ORT session ms':>15}"
          "  problems")
    failures = 0
    for model in models:
        with tempfile.TemporaryDirectory() as folder:
            report, counts, problems, abs_err, rel_err, ours, theirs = check(
                graphlens, model, folder, passes, extra, sessions, threads)
        failures += bool(problems)
        name = os.path.splitext(os.path.basename(model))[0]
        nodes = f"{report['nodes_before']} -> {report['nodes_after']}"
        print(f"{name:26} {nodes:>13} {abs_err:12.2e} {rel_err:12.2e} {ours:10.1f} {theirs:15.1f}  "
              + ("; ".join(problems) or "none"))
        print("    ops after: " + ", ".join(f"{n} {op}" for op, n in counts.most_common()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
