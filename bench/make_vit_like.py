#!/usr/bin/python3
# Generates a large ViT-B/16-like ONNX model (~86M float32 parameters, ~345 MB) with
# random weights, for GraphLens load-time / layout benchmarks. Graph structure mirrors
# a PyTorch export of ViT-B/16 (patch embedding, class token, 12 encoder layers with
# LayerNormalization, multi-head attention, erf-form GELU MLP, classifier head).
#
# Usage: make_vit_like.py OUTPUT.onnx [--external-data]
#   --external-data  store all weights in one side file OUTPUT_BASENAME.data

import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8
SEED = 2026

IMAGE, PATCH, CHANNELS = 224, 16, 3
HIDDEN, HEADS, LAYERS, MLP, CLASSES = 768, 12, 12, 3072, 1000
HEAD_DIM = HIDDEN // HEADS
TOKENS = (IMAGE // PATCH) ** 2 + 1  # 196 patches + class token
LN_EPS = 1e-6


class GraphBuilder:
    """Collects nodes and initializers; names outputs like torch.onnx.export."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.initializers = []
        self.param_count = 0

    def add_init(self, name, array, trainable=True):
        self.initializers.append(numpy_helper.from_array(array, name))
        if trainable:
            self.param_count += array.size
        return name

    def weight(self, name, shape):
        w = self.rng.standard_normal(shape, dtype=np.float32)
        w *= np.float32(0.02)
        return self.add_init(name, w)

    def zeros(self, name, shape):
        return self.add_init(name, np.zeros(shape, dtype=np.float32))

    def ones(self, name, shape):
        return self.add_init(name, np.ones(shape, dtype=np.float32))

    def node(self, op_type, name, inputs, outputs=None, **attrs):
        outputs = outputs or [f"{name}_output_0"]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=name, **attrs))
        return outputs[0]

    # ---- shared layers ----------------------------------------------------------

    def linear(self, scope, param, x, d_in, d_out):
        """MatMul + Add; weight stored [in, out] as PyTorch exports it for 3-D inputs."""
        w = self.weight(f"{param}.weight", (d_in, d_out))
        b = self.zeros(f"{param}.bias", (d_out,))
        y = self.node("MatMul", f"/{scope}/MatMul", [x, w])
        return self.node("Add", f"/{scope}/Add", [b, y])

    def layer_norm(self, scope, param, x):
        inputs = [x, self.ones(f"{param}.weight", (HIDDEN,)), self.zeros(f"{param}.bias", (HIDDEN,))]
        return self.node("LayerNormalization", f"/{scope}/LayerNormalization", inputs,
                         axis=-1, epsilon=LN_EPS)


class Consts:
    """Shape tensors and scalars shared by all layers (non-trainable initializers)."""

    def __init__(self, b):
        def add(name, values, dtype):
            return b.add_init(name, np.array(values, dtype=dtype), trainable=False)

        self.patch_shape = add("const.patch_shape", [1, HIDDEN, -1], np.int64)
        self.heads_shape = add("const.heads_shape", [1, TOKENS, HEADS, HEAD_DIM], np.int64)
        self.hidden_shape = add("const.hidden_shape", [1, TOKENS, HIDDEN], np.int64)
        self.attn_scale = add("const.sqrt_head_dim", math.sqrt(HEAD_DIM), np.float32)
        self.sqrt2 = add("const.sqrt2", math.sqrt(2.0), np.float32)
        self.one = add("const.one", 1.0, np.float32)
        self.half = add("const.half", 0.5, np.float32)
        self.cls_index = add("const.cls_index", 0, np.int64)


# ---- blocks ---------------------------------------------------------------------

def embeddings(b, c, x):
    w = b.weight("embeddings.patch_embed.weight", (HIDDEN, CHANNELS, PATCH, PATCH))
    bias = b.zeros("embeddings.patch_embed.bias", (HIDDEN,))
    x = b.node("Conv", "/embeddings/patch_embed/Conv", [x, w, bias],
               kernel_shape=[PATCH, PATCH], strides=[PATCH, PATCH], pads=[0, 0, 0, 0])
    x = b.node("Reshape", "/embeddings/Reshape", [x, c.patch_shape])          # [1,768,196]
    x = b.node("Transpose", "/embeddings/Transpose", [x], perm=[0, 2, 1])     # [1,196,768]
    cls = b.weight("embeddings.cls_token", (1, 1, HIDDEN))
    x = b.node("Concat", "/embeddings/Concat", [cls, x], axis=1)              # [1,197,768]
    pos = b.weight("embeddings.position_embeddings", (1, TOKENS, HIDDEN))
    return b.node("Add", "/embeddings/Add", [x, pos])


def split_heads(b, c, scope, x, perm):
    x = b.node("Reshape", f"/{scope}/Reshape", [x, c.heads_shape])
    return b.node("Transpose", f"/{scope}/Transpose", [x], perm=perm)


def attention(b, c, i, x):
    s, p = f"encoder/layer.{i}/attention", f"encoder.layer.{i}.attention"
    q = b.linear(f"{s}/query", f"{p}.query", x, HIDDEN, HIDDEN)
    k = b.linear(f"{s}/key", f"{p}.key", x, HIDDEN, HIDDEN)
    v = b.linear(f"{s}/value", f"{p}.value", x, HIDDEN, HIDDEN)
    q = split_heads(b, c, f"{s}/query_heads", q, [0, 2, 1, 3])   # [1,12,197,64]
    k = split_heads(b, c, f"{s}/key_heads", k, [0, 2, 3, 1])     # [1,12,64,197]
    v = split_heads(b, c, f"{s}/value_heads", v, [0, 2, 1, 3])   # [1,12,197,64]
    scores = b.node("MatMul", f"/{s}/MatMul", [q, k])
    scores = b.node("Div", f"/{s}/Div", [scores, c.attn_scale])
    probs = b.node("Softmax", f"/{s}/Softmax", [scores], axis=-1)
    ctx = b.node("MatMul", f"/{s}/MatMul_1", [probs, v])
    ctx = b.node("Transpose", f"/{s}/Transpose", [ctx], perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", f"/{s}/Reshape", [ctx, c.hidden_shape])
    return b.linear(f"{s}/output", f"{p}.output", ctx, HIDDEN, HIDDEN)


def gelu_erf(b, c, scope, x):
    """0.5 * x * (1 + erf(x / sqrt(2))), as exported by PyTorch."""
    y = b.node("Div", f"/{scope}/Div", [x, c.sqrt2])
    y = b.node("Erf", f"/{scope}/Erf", [y])
    y = b.node("Add", f"/{scope}/Add", [y, c.one])
    y = b.node("Mul", f"/{scope}/Mul", [x, y])
    return b.node("Mul", f"/{scope}/Mul_1", [y, c.half])


def mlp(b, c, i, x):
    s, p = f"encoder/layer.{i}/mlp", f"encoder.layer.{i}.mlp"
    x = b.linear(f"{s}/fc1", f"{p}.fc1", x, HIDDEN, MLP)
    x = gelu_erf(b, c, f"{s}/act", x)
    return b.linear(f"{s}/fc2", f"{p}.fc2", x, MLP, HIDDEN)


def encoder_layer(b, c, i, x):
    s, p = f"encoder/layer.{i}", f"encoder.layer.{i}"
    h = b.layer_norm(f"{s}/layernorm_before", f"{p}.layernorm_before", x)
    x = b.node("Add", f"/{s}/Add", [attention(b, c, i, h), x])
    h = b.layer_norm(f"{s}/layernorm_after", f"{p}.layernorm_after", x)
    return b.node("Add", f"/{s}/Add_1", [mlp(b, c, i, h), x])


def classifier(b, c, x):
    x = b.layer_norm("layernorm", "layernorm", x)
    x = b.node("Gather", "/Gather", [x, c.cls_index], axis=1)                # [1,768]
    w = b.weight("classifier.weight", (CLASSES, HIDDEN))
    bias = b.zeros("classifier.bias", (CLASSES,))
    return b.node("Gemm", "/classifier/Gemm", [x, w, bias], outputs=["logits"],
                  alpha=1.0, beta=1.0, transB=1)


def build_model():
    b = GraphBuilder(np.random.default_rng(SEED))
    c = Consts(b)
    x = embeddings(b, c, "pixel_values")
    for i in range(LAYERS):
        x = encoder_layer(b, c, i, x)
    classifier(b, c, x)

    graph = helper.make_graph(
        b.nodes, "vit_like_b16",
        inputs=[helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT,
                                              [1, CHANNELS, IMAGE, IMAGE])],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES])],
        initializer=b.initializers)
    model = helper.make_model(graph, producer_name="graphlens make_vit_like.py",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    model.doc_string = "ViT-B/16-like benchmark model with random weights."
    return model, b.param_count


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("output", help="path of the .onnx file to write")
    ap.add_argument("--external-data", action="store_true",
                    help="store weights in <basename>.data next to the model")
    args = ap.parse_args()

    model, params = build_model()
    out_dir = os.path.dirname(os.path.abspath(args.output))
    os.makedirs(out_dir, exist_ok=True)
    if args.external_data:
        location = os.path.splitext(os.path.basename(args.output))[0] + ".data"
        onnx.save_model(model, args.output, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=location)
    else:
        onnx.save_model(model, args.output)
    onnx.checker.check_model(args.output)  # path-based: also works for > 2 GB / external data

    size = os.path.getsize(args.output)
    msg = f"wrote {args.output}: {len(model.graph.node)} nodes, {params:,} parameters, {size:,} bytes"
    if args.external_data:
        data = os.path.join(out_dir, location)
        msg += f" + {location} {os.path.getsize(data):,} bytes"
    print(msg)


if __name__ == "__main__":
    main()
