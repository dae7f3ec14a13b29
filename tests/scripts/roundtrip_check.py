#!/usr/bin/python3
"""Round-trip check with the reference ONNX implementation (Debian's python3-onnx).

For each model (the bundled sample plus models made here: an If with sub-graphs, typed-field
tensors, external data), runs `graphlens optimize MODEL -o OUT --passes none`, then asks the ONNX
checker (full check, with shape inference) to accept OUT and compares OUT with MODEL: the same
nodes with the same attributes, the same initializers (values, not encoding), the same inputs and
outputs. Prints one line per model and exits 1 on the first difference.

usage: roundtrip_check.py GRAPHLENS_BINARY SAMPLE_MODEL
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def if_model():
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    branch_out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])
    then_g = helper.make_graph([helper.make_node("Neg", ["r"], ["out"])], "then", [], [branch_out])
    else_g = helper.make_graph([helper.make_node("Abs", ["r"], ["out"])], "else", [], [branch_out])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g, else_branch=else_g),
    ]
    graph = helper.make_graph(nodes, "if_model", [cond, x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)], producer_name="roundtrip")


def typed_fields_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.5, -1.0, 2.0, 3.5])  # float_data
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [2, 2])
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["m"], name="mul"),
        helper.make_node("Reshape", ["m", "shape"], ["r"], name="reshape"),
        helper.make_node("Constant", [], ["flat"], name="flat",
                         value=helper.make_tensor("v", TensorProto.INT64, [1], [4])),
        helper.make_node("Reshape", ["r", "flat"], ["y"], name="back"),
    ]
    graph = helper.make_graph(nodes, "typed", [x], [y], [w, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="roundtrip")


def external_data_model(folder):
    rng = np.random.default_rng(7)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])
    w = numpy_helper.from_array(rng.standard_normal((64, 32), dtype=np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal((32,), dtype=np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="mm"),
             helper.make_node("Add", ["mm", "b"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "external", [x], [y], [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="roundtrip")
    path = os.path.join(folder, "external.onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="external.weights", size_threshold=0)
    return path


def attribute_values(node):
    """Attributes by name; tensors compared by type, dims and values, not by their encoding."""
    values = {}
    for attribute in node.attribute:
        value = helper.get_attribute_value(attribute)
        if isinstance(value, TensorProto):
            array = numpy_helper.to_array(value)
            value = (value.data_type, tuple(value.dims), array.tobytes())
        elif isinstance(value, onnx.GraphProto):
            value = value.SerializeToString()
        values[attribute.name] = (attribute.type, value)
    return values


def initializer_values(model, folder):
    onnx.load_external_data_for_model(model, folder)
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def compare(original_path, written_path):
    a = onnx.load(original_path, load_external_data=False)
    b = onnx.load(written_path, load_external_data=False)
    problems = []
    if [(n.op_type, n.domain, n.name, list(n.input), list(n.output)) for n in a.graph.node] != \
       [(n.op_type, n.domain, n.name, list(n.input), list(n.output)) for n in b.graph.node]:
        problems.append("nodes differ")
    for na, nb in zip(a.graph.node, b.graph.node):
        if attribute_values(na) != attribute_values(nb):
            problems.append(f"attributes of node {na.name!r} differ")
    if list(a.graph.input) != list(b.graph.input):
        problems.append("graph inputs differ")
    if list(a.graph.output) != list(b.graph.output):
        problems.append("graph outputs differ")
    opsets = lambda m: sorted((o.domain, o.version) for o in m.opset_import)  # "" set or unset: the same
    if opsets(a) != opsets(b) or a.ir_version != b.ir_version:
        problems.append("opsets or IR version differ")
    va = initializer_values(a, os.path.dirname(original_path))
    vb = initializer_values(b, os.path.dirname(written_path))
    if va.keys() != vb.keys():
        problems.append(f"initializer names differ: {sorted(va)} vs {sorted(vb)}")
    else:
        for name in va:
            if va[name].dtype != vb[name].dtype or va[name].shape != vb[name].shape \
                    or not np.array_equal(va[name], vb[name]):
                problems.append(f"initializer {name!r} differs")
    return problems


def main():
    binary, sample = sys.argv[1], sys.argv[2]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        models = [sample]
        for name, make in (("if.onnx", if_model), ("typed.onnx", typed_fields_model)):
            path = os.path.join(tmp, name)
            onnx.save_model(make(), path)
            models.append(path)
        ext_dir = os.path.join(tmp, "ext")
        os.mkdir(ext_dir)
        models.append(external_data_model(ext_dir))
        for index, model in enumerate(models):
            out_dir = os.path.join(tmp, f"out{index}")
            os.mkdir(out_dir)
            out = os.path.join(out_dir, os.path.basename(model))
            run = subprocess.run([binary, "optimize", model, "-o", out, "--passes", "none"],
                                 capture_output=True, text=True, timeout=120)
            if run.returncode != 0:
                print(f"FAIL {os.path.basename(model)}: graphlens exited {run.returncode}: {run.stderr.strip()}")
                failures += 1
                continue
            try:
                onnx.checker.check_model(out, full_check=True)
            except Exception as error:  # the checker's own exception types vary by version
                print(f"FAIL {os.path.basename(model)}: the ONNX checker rejects the output: {error}")
                failures += 1
                continue
            problems = compare(model, out)
            print(("FAIL " if problems else "ok   ") + os.path.basename(model) +
                  (": " + "; ".join(problems) if problems else ""))
            failures += bool(problems)
    print(f"{len(models) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
