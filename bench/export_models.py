#!/usr/bin/python3
"""Exports torchvision models (random weights, eval mode) to ONNX for benchmarks and cross-checks.

usage: export_models.py OUTPUT_DIR [NAME ...]     (default: resnet18 mobilenet_v2 efficientnet_b0)
Uses Debian's python3-torch and python3-torchvision; nothing is downloaded. Input 1x3x224x224,
opset 13, the exporter's defaults otherwise (eval mode: it folds BatchNorm into Conv itself).
Pass --keep-batchnorm to export with training=PRESERVE, which keeps BatchNorm and Dropout nodes
(what the optimization passes are measured on).

Besides the torchvision models: bert_like (a BERT-style encoder, 12 layers, hidden 256, 4 heads,
sequence 128, token ids as input; nn.GELU and nn.LayerNorm export as their primitive ops at
opset 13), bert_like_deep (the same with 66 layers, about 6,000 nodes) and transformer_15k (169
layers, about 15,000 nodes, the size of a large export for the window's overview).
ocr_dbnet is a DBNet-style text detector (input 1x3x320x320): a conv backbone down to 1/32, an
FPN whose top-down path upsamples by Resize (nearest) and ConvTranspose, reflect-padded smoothing
convs (Pad), bilinear Resize of every level to 1/4, Concat, and a head of Conv + two
ConvTranspose + Sigmoid giving a probability map of the input's size.
Pass --dynamic to export the transformers with symbolic batch and sequence dims, as exports for
serving usually are.
"""
import os
import sys

import torch
import torchvision

class EncoderLayer(torch.nn.Module):
    """Self-attention written out (MatMul, Softmax), so every PyTorch version exports it."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)
        self.norm1 = torch.nn.LayerNorm(hidden)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(hidden, ffn), torch.nn.GELU(), torch.nn.Linear(ffn, hidden))
        self.norm2 = torch.nn.LayerNorm(hidden)
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        attention = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, dim=-1)
        context = (self.drop(attention) @ v).transpose(1, 2).reshape(b, s, h)
        x = self.norm1(x + self.drop(self.out(context)))
        return self.norm2(x + self.drop(self.ffn(x)))


class BertLike(torch.nn.Module):
    def __init__(self, layers, hidden=256, heads=4, ffn=1024, vocab=1000, seq=128):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.position = torch.nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        self.layers = torch.nn.Sequential(*[EncoderLayer(hidden, heads, ffn) for _ in range(layers)])
        self.pool = torch.nn.Linear(hidden, hidden)

    def forward(self, ids):
        x = self.layers(self.embed(ids) + self.position[:, : ids.shape[1]])
        return torch.tanh(self.pool(x[:, 0]))


def conv_bn_relu(cin, cout, stride=1):
    return torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False), torch.nn.BatchNorm2d(cout),
                               torch.nn.ReLU(inplace=True))


class OcrDbNet(torch.nn.Module):
    """DBNet-like: backbone strides 4..32, FPN with Resize and ConvTranspose upsampling, probability head."""

    def __init__(self, width=32, inner=64):
        super().__init__()
        chans = [width, width * 2, width * 4, width * 8]
        self.stem = torch.nn.Sequential(conv_bn_relu(3, width // 2, 2), conv_bn_relu(width // 2, width, 2))
        self.stages = torch.nn.ModuleList()
        cin = width
        for i, c in enumerate(chans):
            self.stages.append(torch.nn.Sequential(conv_bn_relu(cin, c, 1 if i == 0 else 2), conv_bn_relu(c, c)))
            cin = c
        self.lateral = torch.nn.ModuleList(torch.nn.Conv2d(c, inner, 1) for c in chans)
        self.up = torch.nn.ConvTranspose2d(inner, inner, 2, stride=2)  # 1/32 -> 1/16 by a learned upsampling
        self.smooth = torch.nn.ModuleList(torch.nn.Conv2d(inner, inner // 4, 3) for _ in chans)
        self.head = torch.nn.Sequential(
            torch.nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False), torch.nn.BatchNorm2d(inner // 4),
            torch.nn.ReLU(inplace=True), torch.nn.ConvTranspose2d(inner // 4, inner // 4, 2, 2),
            torch.nn.BatchNorm2d(inner // 4), torch.nn.ReLU(inplace=True), torch.nn.ConvTranspose2d(inner // 4, 1, 2, 2))

    def forward(self, x):
        features = []
        x = self.stem(x)
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        c2, c3, c4, c5 = [lateral(f) for lateral, f in zip(self.lateral, features)]
        p5 = c5
        p4 = c4 + self.up(p5)
        p3 = c3 + torch.nn.functional.interpolate(p4, scale_factor=2.0, mode="nearest")
        p2 = c2 + torch.nn.functional.interpolate(p3, scale_factor=2.0, mode="nearest")
        size = p2.shape[-2:]
        maps = []
        for p, smooth in zip((p2, p3, p4, p5), self.smooth):
            p = smooth(torch.nn.functional.pad(p, (1, 1, 1, 1), mode="reflect"))
            if p.shape[-1] != size[-1]:
                p = torch.nn.functional.interpolate(p, size=size, mode="bilinear", align_corners=False)
            maps.append(p)
        return torch.sigmoid(self.head(torch.cat(maps, dim=1)))


TRANSFORMERS = {"bert_like": 12, "bert_like_deep": 66, "transformer_15k": 169}

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


def export(name, out_dir, keep_batchnorm, dynamic):
    torch.manual_seed(0)
    if name in TRANSFORMERS:
        model, example = BertLike(TRANSFORMERS[name]).eval(), torch.randint(0, 1000, (1, 128))
    elif name == "ocr_dbnet":
        model, example = OcrDbNet().eval(), torch.randn(1, 3, 320, 320)
    else:
        model, example = MODELS[name](weights=None).eval(), torch.randn(1, 3, 224, 224)
    path = os.path.join(out_dir, f"{name}{'_bn' if keep_batchnorm else ''}.onnx")
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batchnorm else torch.onnx.TrainingMode.EVAL
    axes = {"input": {0: "batch", 1: "sequence"}} if dynamic and name in TRANSFORMERS else None
    with torch.no_grad():
        torch.onnx.export(model, example, path, opset_version=13,
                          input_names=["input"], output_names=["logits"], training=mode,
                          do_constant_folding=not keep_batchnorm, dynamic_axes=axes)
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    out_dir, names = args[0], args[1:] or ["resnet18", "mobilenet_v2", "efficientnet_b0"]
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name not in MODELS and name not in TRANSFORMERS and name != "ocr_dbnet":
            sys.exit(f"unknown model '{name}'; known: {', '.join(list(MODELS) + list(TRANSFORMERS) + ['ocr_dbnet'])}")
        export(name, out_dir, "--keep-batchnorm" in sys.argv, "--dynamic" in sys.argv)


if __name__ == "__main__":
    main()
