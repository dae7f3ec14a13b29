#!/usr/bin/python3
"""The pipeline row: `graphlens optimize` with the default passes, load and write included, against
ONNX Runtime's session creation (npm onnxruntime-node, CPU, every graph optimization on) from the
same file.

Each round runs both sides back to back: one `graphlens optimize MODEL -o OUT --json` process (OUT a
path that does not exist yet, so no old file is freed in the timed write), whose JSON gives the
in-process load, pipeline (each pass) and write times and their total; then one node process
creating an ORT session from the file --sessions times (its median; the first creation in a process
is the slow one). Printed per model: the medians over the rounds of each GraphLens phase and of ORT,
and the ratio GraphLens total / ORT session as the median of the rounds' ratios with its range;
then ORT's first creation in its process (what a program that opens one model pays, as one
`graphlens optimize` process does) and GraphLens's process time against it.

usage: compare_pipeline.py GRAPHLENS MODEL.onnx [MODEL.onnx ...] [--rounds R] [--sessions N] [--threads T]
       [--passes LIST]
Run both sides at the same priority (e.g. `chrt -f 10`), on a quiet machine.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def optimize_once(graphlens, model, folder, k, passes):
    out = os.path.join(folder, f"optimized_{k}.onnx")
    start = time.perf_counter()
    report = json.loads(subprocess.run([graphlens, "optimize", model, "-o", out, "--passes", passes, "--json"],
                                       check=True, capture_output=True, text=True).stdout)
    report["process_ms"] = (time.perf_counter() - start) * 1e3
    os.remove(out)
    return report


def ort_session_ms(model, sessions, threads):
    """(median of the `sessions` creations, the first one) in ms."""
    out = json.loads(subprocess.run(["node", os.path.join(HERE, "ort_runner.mjs"), "session", model, "-", "--runs",
                                     str(sessions), "--threads", str(threads), "--from-path", "1"],
                                    check=True, capture_output=True, text=True).stdout)
    return out["median_ms"], out["samples_ms"][0]


def pipeline_row(graphlens, model, rounds=5, sessions=3, threads=2, passes="default"):
    """Medians over interleaved rounds: GraphLens phases (ms), the slowest passes, ORT's session
    creation, and the ratio total / ORT (median of the rounds' ratios, min, max)."""
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as folder:
        for k in range(rounds):
            ours.append(optimize_once(graphlens, model, folder, k, passes))
            theirs.append(ort_session_ms(model, sessions, threads))
    med = lambda key: statistics.median(r[key] for r in ours)
    pass_ms = {}
    for r in ours:
        for p in r["passes"]:
            pass_ms.setdefault(p["id"], []).append(p["ms"])
    passes_sum = statistics.median(sum(p["ms"] for p in r["passes"]) for r in ours)
    ratios = [r["total_ms"] / t for r, (t, _) in zip(ours, theirs)]
    first = [r["process_ms"] / f for r, (_, f) in zip(ours, theirs)]
    return {"load": med("load_ms"), "passes": passes_sum, "pipeline": med("pipeline_ms"), "write": med("write_ms"),
            "total": med("total_ms"), "process": med("process_ms"), "ort": statistics.median(t for t, _ in theirs),
            "ort_first": statistics.median(f for _, f in theirs), "first_ratio": statistics.median(first),
            "ratio": statistics.median(ratios), "low": min(ratios), "high": max(ratios),
            "big_passes": sorted(((statistics.median(v), k) for k, v in pass_ms.items()), reverse=True)[:3]}


def print_pipeline_rows(graphlens, models, rounds=5, sessions=3, threads=2, passes="default"):
    print(f"{'pipeline row':24} {'load':>7} {'passes':>7} {'pipeline':>9} {'write':>7} {'total':>7} {'process':>8}"
          f" {'ORT session':>12} {'ratio':>6} {'round ratios':>13} {'ORT first':>10} {'process/first':>14}"
          f"   (ms; largest passes)")
    for model in models:
        row = pipeline_row(graphlens, model, rounds, sessions, threads, passes)
        name = os.path.splitext(os.path.basename(model))[0]
        big = ", ".join(f"{k} {ms:.0f}" for ms, k in row["big_passes"])
        print(f"{name:24} {row['load']:7.0f} {row['passes']:7.0f} {row['pipeline']:9.0f} {row['write']:7.0f}"
              f" {row['total']:7.0f} {row['process']:8.0f} {row['ort']:12.0f} {row['ratio']:6.2f}"
              f" {row['low']:6.2f}-{row['high']:<6.2f} {row['ort_first']:10.0f} {row['first_ratio']:14.2f}   {big}")


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and not sys.argv[i - 1].startswith("--")]
    if len(args) < 2:
        sys.exit(__doc__)
    sys.path.insert(0, HERE)
    from compare_ort import ensure_ort  # noqa: E402
    ensure_ort()
    print_pipeline_rows(args[0], args[1:], int(option("--rounds", 5)), int(option("--sessions", 3)),
                        int(option("--threads", 2)), option("--passes", "default"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
