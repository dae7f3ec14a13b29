#!/usr/bin/python3
"""Conversion check for the TensorFlow fixtures: each case of tests/fixtures/tf/cases is converted to
ONNX with `graphlens optimize MODEL -o model.onnx --passes none` and with `--passes default`; the ONNX
checker (full check, with shape inference) must accept the plain conversion, and `graphlens
conformance` must run both to the case's numpy outputs. (The optimized files are not checked: a graph
output that fold-constants turns into an initializer is written without its shape, which the full
check refuses; that is the exporter's, not the import's.) Prints one line per case and exits 1 on the first failure.

usage: tf_convert_check.py GRAPHLENS_BINARY CASES_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import onnx


def main():
    graphlens, cases = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for passes in ('none', 'default'):
            out_dir = os.path.join(tmp, passes)
            for case in sorted(os.listdir(cases)):
                src = os.path.join(cases, case)
                model = next(os.path.join(src, f) for f in ('model.json', 'model.pb') if os.path.exists(os.path.join(src, f)))
                dst = os.path.join(out_dir, case)
                os.makedirs(dst)
                shutil.copytree(os.path.join(src, 'test_data_set_0'), os.path.join(dst, 'test_data_set_0'))
                onnx_path = os.path.join(dst, 'model.onnx')
                subprocess.run([graphlens, 'optimize', model, '-o', onnx_path, '--passes', passes], check=True,
                               stdout=subprocess.DEVNULL)
                if passes == 'none':
                    onnx.checker.check_model(onnx.load(onnx_path), full_check=True)
                    print('%s: the ONNX checker accepts its conversion' % case)
            run = subprocess.run([graphlens, 'conformance', out_dir, '--rtol', '1e-4', '--atol', '1e-5'],
                                 capture_output=True, text=True)
            print(run.stdout.strip())
            if run.returncode != 0:
                print(run.stderr.strip())
                return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
