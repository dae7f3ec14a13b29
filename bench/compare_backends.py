#!/usr/bin/python3
"""GraphLens's Vulkan backend against its CPU backend (on lavapipe where there is no GPU).

For each model: `graphlens run` on the CPU backend with seeded inputs, then on the Vulkan backend
with the same inputs; every output must agree within 1e-3 relative + 1e-4 absolute (the tolerance
of `optimize --verify`). Then `graphlens bench` runs the two backends in alternating rounds
(cpu, vulkan, cpu, vulkan, ...) with the same thread count, so load on a shared machine hits both
alike, and the median of each side's per-round medians is printed with the ratio Vulkan / CPU.

usage: compare_backends.py GRAPHLENS MODEL.onnx [MODEL.onnx ...] [--threads T] [--runs N]
       [--rounds R] [--passes LIST] [--no-bench]
Needs: Debian's python3-onnx and numpy. Exit status 1 when outputs differ or a run fails, 77 (a
skip, for ctest) when there is no Vulkan device.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_ort import forwarded_options, option, positional  # noqa: E402

RTOL, ATOL = 1e-3, 1e-4
SKIP = 77


def numbered(folder, prefix):
    files = []
    while os.path.exists(os.path.join(folder, f"{prefix}_{len(files)}.pb")):
        files.append(os.path.join(folder, f"{prefix}_{len(files)}.pb"))
    return files


def cross_check(graphlens, model, folder, extra):
    """Runs both backends on the same inputs; returns (ok, max abs error, max error / max |cpu|, fallbacks)."""
    cpu_dir, vk_dir = os.path.join(folder, "cpu"), os.path.join(folder, "vulkan")
    subprocess.run([graphlens, "run", model, "--backend", "cpu", "--seed", "1", "--save-inputs", folder,
                    "--output-dir", cpu_dir] + extra, check=True, capture_output=True)
    feeds = []
    for path in numbered(folder, "input"):
        feeds += ["--input", f"{onnx.load_tensor(path).name}={path}"]
    subprocess.run([graphlens, "run", model, "--backend", "vulkan", "--output-dir", vk_dir] + feeds + extra,
                   check=True, capture_output=True)
    ok, worst_abs, worst_scaled = True, 0.0, 0.0
    for want_path in numbered(cpu_dir, "output"):
        want = numpy_helper.to_array(onnx.load_tensor(want_path)).astype(np.float64)
        got = numpy_helper.to_array(onnx.load_tensor(want_path.replace(cpu_dir, vk_dir))).astype(np.float64)
        if got.shape != want.shape:
            return False, float("inf"), float("inf")
        diff = np.abs(got - want)
        ok &= bool(np.all(diff <= ATOL + RTOL * np.abs(want)))
        worst_abs = max(worst_abs, float(diff.max(initial=0)))
        worst_scaled = max(worst_scaled, float(diff.max(initial=0)) / max(float(np.abs(want).max(initial=0)), 1e-30))
    return ok, worst_abs, worst_scaled


def bench(graphlens, model, threads, runs, rounds, extra):
    medians = {"cpu": [], "vulkan": []}
    fallbacks = None
    for _ in range(rounds):
        for backend in ("cpu", "vulkan"):
            out = subprocess.run([graphlens, "bench", model, "--json", "--seed", "1", "--backend", backend,
                                  "--threads", str(threads), "--runs", str(runs)] + extra,
                                 check=True, capture_output=True, text=True).stdout
            report = json.loads(out)
            medians[backend].append(report["median_ms"])
            if backend == "vulkan":
                fallbacks = report.get("cpu_fallback_nodes", fallbacks)
    return statistics.median(medians["cpu"]), statistics.median(medians["vulkan"]), fallbacks


def main():
    args = positional()
    if len(args) < 2:
        sys.exit(__doc__)
    graphlens, models = args[0], args[1:]
    threads, runs, rounds = int(option("--threads", 2)), int(option("--runs", 10)), int(option("--rounds", 3))
    extra = forwarded_options()
    timed = "--no-bench" not in sys.argv
    print(f"{'model':24} {'max abs err':>12} {'err/max|y|':>11} {'cpu ms':>9} {'vulkan ms':>10} {'ratio':>7} {'fallbacks':>9}")
    failures = 0
    for model in models:
        name = os.path.splitext(os.path.basename(model))[0]
        if name == "model":  # a test case folder: name it after the folder
            name = os.path.basename(os.path.dirname(os.path.abspath(model)))
        with tempfile.TemporaryDirectory() as folder:
            try:
                ok, abs_err, scaled_err = cross_check(graphlens, model, folder, extra)
            except subprocess.CalledProcessError as e:
                message = (e.stderr or b"").decode().strip()
                print(f"{name:24} failed: {message}")
                if "no Vulkan device" in message:
                    return SKIP
                failures += 1
                continue
        line = f"{name:24} {abs_err:12.2e} {scaled_err:11.2e}"
        if timed:
            cpu, vulkan, fallbacks = bench(graphlens, model, threads, runs, rounds, extra)
            line += f" {cpu:9.2f} {vulkan:10.2f} {vulkan / cpu:7.2f} {'' if fallbacks is None else fallbacks:>9}"
        failures += not ok
        print(line + ("" if ok else "  OUTPUTS DIFFER"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
