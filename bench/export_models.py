#!/usr/bin/python3
"""Exports torchvision models (random weights, eval mode) to ONNX for benchmarks and cross-checks.

usage: export_models.py OUTPUT_DIR [NAME ...]     (default: resnet18 mobilenet_v2 efficientnet_b0)
Uses Debian's python3-torch and python3-torchvision; nothing is downloaded. Input 1x3x224x224,
opset 13, the exporter's defaults otherwise (eval mode: it folds BatchNorm into Conv itself).
Pass --keep-batchnorm to export with training=PRESERVE, which keeps BatchNorm and Dropout nodes
(what the optimization passes are measured on).
"""
import os
import sys

import torch
import torchvision

MODELS = {
    "resnet18": torchvision.models.resnet18,
    "resnet50": torchvision.models.resnet50,
    "mobilenet_v2": torchvision.models.mobilenet_v2,
    "mobilenet_v3_large": torchvision.models.mobilenet_v3_large,
    "efficientnet_b0": torchvision.models.efficientnet_b0,
    "densenet121": torchvision.models.densenet121,
    "squeezenet1_1": torchvision.models.squeezenet1_1,
    "shufflenet_v2_x1_0": torchvision.models.shufflenet_v2_x1_0,
}


def export(name, out_dir, keep_batchnorm):
    torch.manual_seed(0)
    model = MODELS[name](weights=None).eval()
    path = os.path.join(out_dir, f"{name}{'_bn' if keep_batchnorm else ''}.onnx")
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batchnorm else torch.onnx.TrainingMode.EVAL
    with torch.no_grad():
        torch.onnx.export(model, torch.randn(1, 3, 224, 224), path, opset_version=13,
                          input_names=["input"], output_names=["logits"], training=mode,
                          do_constant_folding=not keep_batchnorm)
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    out_dir, names = args[0], args[1:] or ["resnet18", "mobilenet_v2", "efficientnet_b0"]
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name not in MODELS:
            sys.exit(f"unknown model '{name}'; known: {', '.join(MODELS)}")
        export(name, out_dir, "--keep-batchnorm" in sys.argv)


if __name__ == "__main__":
    main()
