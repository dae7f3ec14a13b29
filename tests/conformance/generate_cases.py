#!/usr/bin/python3
"""Generate the ONNX backend *node* conformance cases for GraphLens tests.

Debian's python3-onnx ships the test-case generator (onnx.backend.test.case)
but not the generated data, so we rebuild it here, in the same layout that
`python3 -m onnx.backend.test.cmd_tools generate-data` writes for node tests:

    OUTPUT_DIR/<case_name>/model.onnx
    OUTPUT_DIR/<case_name>/test_data_set_0/input_K.pb, output_K.pb

Usage: /usr/bin/python3 generate_cases.py OUTPUT_DIR

Cases are built in a temp dir next to OUTPUT_DIR and renamed into place at
the end, together with a stamp file OUTPUT_DIR/.complete holding the onnx
version; if that stamp already matches, nothing is done (CMake/ctest cache).
A case whose generation fails is reported on one line and skipped.
"""
import os
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np

# numpy >= 1.24 removed the aliases the onnx 1.12 generator still uses.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # hasattr() on a removed alias warns
    for _alias, _type in [("float", float), ("int", int), ("bool", bool), ("object", object),
                          ("str", str), ("complex", complex), ("long", int), ("unicode", str)]:
        if not hasattr(np, _alias):
            setattr(np, _alias, _type)

import onnx
from onnx import numpy_helper
import onnx.backend.test.case.base as case_base

skipped = []


def warn(what, why):
    skipped.append(what)
    if isinstance(why, Exception):
        why = f"{type(why).__name__}: {(str(why).splitlines() or [''])[0]}"
    print(f"warning: skipped {what}: {why}", file=sys.stderr)


# Each test class runs its export_* functions while the class is being
# defined (the _Exporter metaclass); one that raises would abort the whole
# module. Wrap each export so a failure only skips that export's cases.
_orig_exporter_init = case_base._Exporter.__init__


def _robust_exporter_init(cls, name, bases, dct):
    for key, value in list(dct.items()):
        if key.startswith("export") and isinstance(value, staticmethod):
            def guarded(_f=value.__func__, _what=f"{name}.{key}"):
                try:
                    _f()
                except Exception as exc:  # noqa: BLE001 - report and continue
                    warn(_what, exc)
            setattr(cls, key, staticmethod(guarded))
            dct[key] = staticmethod(guarded)
    _orig_exporter_init(cls, name, bases, dct)


case_base._Exporter.__init__ = _robust_exporter_init
# The metaclass also grabs each export's source for the docs; we don't need it.
case_base.process_snippet = lambda op_name, name, export: (name, "")


def to_proto(value, value_info):
    """Serialize one input/output value the way cmd_tools.generate_data does."""
    t = value_info.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, value_info.name)
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, value_info.name)
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, value_info.name)
    return numpy_helper.from_array(value, value_info.name)


def write_case(case, root):
    case_dir = os.path.join(root, case.name)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(data_dir)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                with open(os.path.join(data_dir, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(to_proto(value, infos[j]).SerializeToString())


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTPUT_DIR")
    out_dir = os.path.abspath(sys.argv[1])
    stamp = os.path.join(out_dir, ".complete")
    stamp_text = f"onnx {onnx.__version__}\n"
    if os.path.isfile(stamp) and open(stamp).read() == stamp_text:
        print(f"{out_dir} is up to date ({stamp_text.strip()}), nothing to do")
        return

    start = time.monotonic()
    np.random.seed(0)
    import onnx.backend.test.case.node as node_test  # runs every export_*
    cases = node_test.collect_testcases(None)

    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    tmp_dir = tempfile.mkdtemp(prefix=f".{os.path.basename(out_dir)}.tmp-", dir=parent)
    try:
        # onnx 1.12 reuses a few case names; like cmd_tools, the last one wins.
        last = {case.name: i for i, case in enumerate(cases)}
        written = 0
        for i, case in enumerate(cases):
            if last[case.name] != i:
                warn(case.name, "duplicate name, replaced by a later case (as in cmd_tools)")
                continue
            try:
                write_case(case, tmp_dir)
                written += 1
            except Exception as exc:  # noqa: BLE001 - report and continue
                shutil.rmtree(os.path.join(tmp_dir, case.name), ignore_errors=True)
                warn(case.name, exc)
        with open(os.path.join(tmp_dir, ".complete"), "w") as f:
            f.write(stamp_text)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.rename(tmp_dir, out_dir)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    print(f"generated {written} cases in {time.monotonic() - start:.1f} s ({len(skipped)} skipped)")


if __name__ == "__main__":
    main()
