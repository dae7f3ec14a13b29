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
        if name not in MODELS and name not in TRANSFORMERS:
            sys.exit(f"unknown model '{name}'; known: {', '.join(list(MODELS) + list(TRANSFORMERS))}")
        export(name, out_dir, "--keep-batchnorm" in sys.argv, "--dynamic" in sys.argv)


if __name__ == "__main__":
    main()
