#!/usr/bin/python3
"""Structure-aware mutation of the fixture models, to find inputs that crash or hang graphlens.

Each mutation changes one thing in a valid model: an integer attribute value (set to 0, -1, a
huge number or a small random one), a dimension of a graph input (0, 1, 2^20 or random), or the
wiring (one node input replaced by another value computed earlier). Each mutated model is run
through `graphlens run` and `graphlens optimize --passes all --verify` with a timeout; a process
killed by a signal is a crash, one past the timeout a hang. Exit status 1 with a message is the
expected answer to a bad model and counts as handled.

Runs with Debian's python (/usr/bin/python3, packages python3-onnx and python3-numpy):
    scripts/mutate_models.py --graphlens build/app/graphlens -n 300 --keep /tmp/mutants
"""
import argparse
import glob
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUGE = [2**31 - 1, 2**40, 2**62]


def default_models():
    models = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/models/*/model.onnx")))
    models.append(os.path.join(ROOT, "resources/models/sample_cnn.onnx"))
    return [m for m in models if os.path.exists(m)]


def new_value(rng):
    return rng.choice([0, 0, -1, -1, rng.choice(HUGE), rng.randint(-3, 8)])


def mutate_attribute(model, rng):
    candidates = [(n, a) for n in model.graph.node for a in n.attribute
                  if a.type in (onnx.AttributeProto.INT, onnx.AttributeProto.INTS)]
    candidates = [(n, a) for n, a in candidates if a.type == onnx.AttributeProto.INT or len(a.ints) > 0]
    if not candidates:
        return None
    node, attr = rng.choice(candidates)
    value = new_value(rng)
    if attr.type == onnx.AttributeProto.INT:
        attr.i = value
        where = attr.name
    else:
        k = rng.randrange(len(attr.ints))
        attr.ints[k] = value
        where = "%s[%d]" % (attr.name, k)
    return "attribute %s of %s '%s' set to %d" % (where, node.op_type, node.name, value)


def mutate_dims(model, rng):
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers and i.type.HasField("tensor_type")]
    inputs = [i for i in inputs if len(i.type.tensor_type.shape.dim) > 0]
    if not inputs:
        return None
    value = rng.choice(inputs)
    dims = value.type.tensor_type.shape.dim
    k = rng.randrange(len(dims))
    size = rng.choice([0, 1, 2**20, rng.randint(2, 64)])
    dims[k].Clear()
    dims[k].dim_value = size
    text = "input '%s' dim %d set to %d" % (value.name, k, size)
    if size == 2**20 and len(dims) > 1 and rng.random() < 0.5:
        j = (k + 1) % len(dims)
        dims[j].Clear()
        dims[j].dim_value = 2**20
        text += " and dim %d too" % j
    return text


def mutate_wiring(model, rng):
    nodes = list(model.graph.node)
    if len(nodes) < 2:
        return None
    available = [i.name for i in model.graph.input] + [t.name for t in model.graph.initializer]
    positions = []
    for index, node in enumerate(nodes):
        if node.input and index > 0:
            positions.append((index, list(available)))
        available.extend(o for o in node.output if o)
    if not positions:
        return None
    index, before = rng.choice(positions)
    node = nodes[index]
    k = rng.randrange(len(node.input))
    old = node.input[k]
    choices = [v for v in before if v != old]
    if not choices:
        return None
    node.input[k] = rng.choice(choices)
    return "input %d of %s '%s' rewired from '%s' to '%s'" % (k, node.op_type, node.name, old, node.input[k])


def mutate(model, rng):
    kinds = [mutate_attribute, mutate_attribute, mutate_dims, mutate_wiring]
    for _ in range(20):
        text = rng.choice(kinds)(model, rng)
        if text:
            return text
    return None


def run(cmd, timeout, max_vm):
    def limit():
        if max_vm > 0:  # the machine is shared: a runaway allocation fails instead of swapping
            resource.setrlimit(resource.RLIMIT_AS, (max_vm, max_vm))
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, ""
    elapsed = time.monotonic() - start
    err = p.stderr.decode(errors="replace").strip().splitlines()
    last = err[-1] if err else ""
    if p.returncode < 0:
        return "signal %d" % -p.returncode, elapsed, last
    return "exit %d" % p.returncode, elapsed, last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphlens", default=os.path.join(ROOT, "build/app/graphlens"))
    ap.add_argument("-n", type=int, default=300, help="number of mutations (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per command (default 30)")
    ap.add_argument("--max-vm", type=int, default=8 << 30,
                    help="address-space limit of each command in bytes (default 8 GiB; 0: none)")
    ap.add_argument("--max-memory", default="1G",
                    help="--max-memory of both commands (default 1G): a server running untrusted models "
                         "bounds them, and a legitimately huge plan would otherwise compute for minutes")
    ap.add_argument("--keep", help="copy every crashing or hanging model into this folder")
    ap.add_argument("--verbose", action="store_true", help="print every case, not only the bad ones")
    ap.add_argument("models", nargs="*", help="models to mutate (default: the fixtures and the sample CNN)")
    args = ap.parse_args()
    models = args.models or default_models()
    rng = random.Random(args.seed)
    originals = [(path, onnx.load(path)) for path in models]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", OMP_NUM_THREADS="1")
    counts = {"crash": 0, "timeout": 0, "handled": 0, "ok": 0}
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in range(args.n):
            path, original = rng.choice(originals)
            model = onnx.ModelProto()
            model.CopyFrom(original)
            text = mutate(model, rng)
            name = os.path.basename(os.path.dirname(path)) if path.endswith("model.onnx") else os.path.basename(path)
            mutant = os.path.join(tmp, "case_%04d.onnx" % case)
            onnx.save(model, mutant)
            commands = {
                "run": [args.graphlens, "run", mutant, "--threads", "1", "--max-memory", args.max_memory],
                "optimize": [args.graphlens, "optimize", mutant, "-o", os.path.join(tmp, "out.onnx"),
                             "--passes", "all", "--verify", "--max-memory", args.max_memory],
            }
            for label, cmd in commands.items():
                outcome, elapsed, last = run(cmd, args.timeout, args.max_vm)
                if outcome.startswith("signal"):
                    counts["crash"] += 1
                elif outcome == "timeout":
                    counts["timeout"] += 1
                elif outcome == "exit 0":
                    counts["ok"] += 1
                else:
                    counts["handled"] += 1
                failed = outcome.startswith("signal") or outcome == "timeout"
                if failed or args.verbose:
                    line = "case %d (%s: %s) %s: %s in %.1f s %s" % (case, name, text, label, outcome, elapsed, last)
                    print(line, flush=True)
                if failed:
                    bad.append(line)
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        with open(mutant, "rb") as src, open(os.path.join(args.keep, "case_%04d.onnx" % case), "wb") as dst:
                            dst.write(src.read())
    total = sum(counts.values())
    print("%d mutations, %d commands: %d crashed (signal), %d timed out (> %g s), %d refused with a message, %d ran"
          % (args.n, total, counts["crash"], counts["timeout"], args.timeout, counts["handled"], counts["ok"]))
    return 1 if counts["crash"] or counts["timeout"] else 0


if __name__ == "__main__":
    sys.exit(main())
