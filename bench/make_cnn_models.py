#!/usr/bin/python3
"""The torchvision CNNs this machine cannot export (no PyTorch here), built with onnx.helper.

squeezenet1_1, mobilenet_v3_small, efficientnet_b0, resnet18, resnet50 and mobilenet_v2 with torchvision's exact architectures
(layer sizes, strides, paddings, squeeze-and-excitation widths), written the way
torch.onnx.export at opset 17 writes them in PRESERVE mode: BatchNormalization nodes kept after
bias-free convolutions, nn.Hardswish as HardSwish, nn.Hardsigmoid as HardSigmoid(alpha=1/6,
beta=1/2), nn.SiLU as x * Sigmoid(x) (Sigmoid + Mul), AdaptiveAvgPool2d(1) as GlobalAveragePool,
torch.flatten(x, 1) as Flatten, nn.Linear as Gemm(transB=1). Squeeze-and-excitation blocks are
GlobalAveragePool -> Conv 1x1 -> activation -> Conv 1x1 -> HardSigmoid/Sigmoid -> Mul(scale, x).
Dropout is left out (an eval-mode export drops it).

Weights are random with a fixed seed and He-scaled (std sqrt(2 / fan_in)); BatchNorm statistics
are random too, with the projection BatchNorms of residual blocks scaled down so the residual
stream stays near unit scale through the network. Input "input" [1, 3, 224, 224], output "logits".

usage: make_cnn_models.py OUT_DIR [squeezenet1_1 mobilenet_v3_small efficientnet_b0 resnet18 resnet50
                                   mobilenet_v2]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = {}

    def fresh(self, prefix):
        n = self.count.get(prefix, 0)
        self.count[prefix] = n + 1
        return f"/{prefix}_{n}"

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    def node(self, op, inputs, prefix=None, **attrs):
        base = self.fresh(prefix or op)
        out = base + "_output_0"
        self.nodes.append(helper.make_node(op, inputs, [out], name=base + "/" + op, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, groups=1, bias=False, pad=None):
        base = self.fresh("conv")
        fan_in = (cin // groups) * k * k
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), (cout, cin // groups, k, k))
        inputs = [x, self.const(base + ".weight", w)]
        if bias:
            inputs.append(self.const(base + ".bias", self.rng.normal(0, 0.05, cout)))
        p = (k - 1) // 2 if pad is None else pad
        return self.node("Conv", inputs, "Conv", dilations=[1, 1], group=groups, kernel_shape=[k, k],
                         pads=[p, p, p, p], strides=[stride, stride])

    def bn(self, x, c, eps, scale=1.0):
        base = self.fresh("bn")
        gamma = self.rng.uniform(0.5, 1.0, c) * scale
        beta = self.rng.normal(0, 0.1, c)
        mean = self.rng.normal(0, 0.1, c)
        var = self.rng.uniform(0.5, 1.5, c)
        inputs = [x] + [self.const(f"{base}.{n}", a) for n, a in
                        (("weight", gamma), ("bias", beta), ("running_mean", mean), ("running_var", var))]
        return self.node("BatchNormalization", inputs, "BatchNormalization", epsilon=eps, momentum=0.9)

    def act(self, x, kind):
        if kind == "relu":
            return self.node("Relu", [x])
        if kind == "hardswish":
            return self.node("HardSwish", [x])
        if kind == "hardsigmoid":
            return self.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)
        if kind == "sigmoid":
            return self.node("Sigmoid", [x])
        if kind == "silu":
            return self.node("Mul", [x, self.node("Sigmoid", [x])])
        if kind == "relu6":  # nn.ReLU6 exports as Clip with scalar min and max inputs
            if not any(t.name == "relu6.min" for t in self.inits):
                self.const("relu6.min", np.float32(0.0))
                self.const("relu6.max", np.float32(6.0))
            return self.node("Clip", [x, "relu6.min", "relu6.max"])
        assert kind is None, kind
        return x

    def conv_bn_act(self, x, cin, cout, k, stride=1, groups=1, act="relu", eps=1e-5, scale=1.0):
        return self.act(self.bn(self.conv(x, cin, cout, k, stride, groups), cout, eps, scale), act)

    def squeeze_excitation(self, x, c, squeeze, act, scale_act):
        s = self.node("GlobalAveragePool", [x])
        s = self.act(self.conv(s, c, squeeze, 1, bias=True), act)
        s = self.act(self.conv(s, squeeze, c, 1, bias=True), scale_act)
        return self.node("Mul", [s, x])

    def linear(self, x, cin, cout):
        base = self.fresh("linear")
        w = self.const(base + ".weight", self.rng.normal(0, np.sqrt(1.0 / cin), (cout, cin)))
        b = self.const(base + ".bias", self.rng.normal(0, 0.01, cout))
        return self.node("Gemm", [x, w, b], "Gemm", alpha=1.0, beta=1.0, transB=1)

    def head(self, x):
        return self.node("Flatten", [self.node("GlobalAveragePool", [x])], axis=1)

    def model(self, y, classes=1000):
        self.nodes[-1].output[0] = "logits"
        for n in self.nodes:  # the last node's output was renamed
            n.input[:] = ["logits" if i == y else i for i in n.input]
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
            [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="pytorch", producer_version="2.1.0")
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def make_divisible(v, divisor=8):
    """torchvision's _make_divisible."""
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def squeezenet1_1():
    b = Builder("squeezenet1_1", 11)

    def fire(x, cin, squeeze, e1, e3):
        s = b.act(b.conv(x, cin, squeeze, 1, bias=True), "relu")
        left = b.act(b.conv(s, squeeze, e1, 1, bias=True), "relu")
        right = b.act(b.conv(s, squeeze, e3, 3, bias=True), "relu")
        return b.node("Concat", [left, right], axis=1)

    def maxpool(x):
        return b.node("MaxPool", [x], ceil_mode=1, kernel_shape=[3, 3], pads=[0, 0, 0, 0], strides=[2, 2])

    x = b.act(b.conv("input", 3, 64, 3, stride=2, bias=True, pad=0), "relu")
    x = maxpool(x)
    x = fire(x, 64, 16, 64, 64)
    x = fire(x, 128, 16, 64, 64)
    x = maxpool(x)
    x = fire(x, 128, 32, 128, 128)
    x = fire(x, 256, 32, 128, 128)
    x = maxpool(x)
    x = fire(x, 256, 48, 192, 192)
    x = fire(x, 384, 48, 192, 192)
    x = fire(x, 384, 64, 256, 256)
    x = fire(x, 512, 64, 256, 256)
    # classifier: Dropout, Conv 1x1 to the classes, ReLU, AdaptiveAvgPool2d((1, 1)); then flatten
    x = b.act(b.conv(x, 512, 1000, 1, bias=True), "relu")
    y = b.head(x)
    return b.model(y)


def mobilenet_v3_small():
    b = Builder("mobilenet_v3_small", 31)
    eps = 1e-3
    # input_c, kernel, expanded_c, out_c, use_se, activation, stride
    settings = [(16, 3, 16, 16, True, "relu", 2), (16, 3, 72, 24, False, "relu", 2),
                (24, 3, 88, 24, False, "relu", 1), (24, 5, 96, 40, True, "hardswish", 2),
                (40, 5, 240, 40, True, "hardswish", 1), (40, 5, 240, 40, True, "hardswish", 1),
                (40, 5, 120, 48, True, "hardswish", 1), (48, 5, 144, 48, True, "hardswish", 1),
                (48, 5, 288, 96, True, "hardswish", 2), (96, 5, 576, 96, True, "hardswish", 1),
                (96, 5, 576, 96, True, "hardswish", 1)]
    x = b.conv_bn_act("input", 3, 16, 3, stride=2, act="hardswish", eps=eps)
    for cin, k, exp, cout, se, act, stride in settings:
        residual = stride == 1 and cin == cout
        y = x
        if exp != cin:
            y = b.conv_bn_act(y, cin, exp, 1, act=act, eps=eps)
        y = b.conv_bn_act(y, exp, exp, k, stride=stride, groups=exp, act=act, eps=eps)
        if se:
            y = b.squeeze_excitation(y, exp, make_divisible(exp // 4), "relu", "hardsigmoid")
        y = b.conv_bn_act(y, exp, cout, 1, act=None, eps=eps, scale=0.5 if residual else 1.0)
        x = b.node("Add", [y, x]) if residual else y
    x = b.conv_bn_act(x, 96, 576, 1, act="hardswish", eps=eps)
    x = b.head(x)
    x = b.act(b.linear(x, 576, 1024), "hardswish")
    y = b.linear(x, 1024, 1000)
    return b.model(y)


def efficientnet_b0():
    b = Builder("efficientnet_b0", 50)
    eps = 1e-5
    # expand_ratio, kernel, stride, input_c, out_c, layers
    settings = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
                (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
    x = b.conv_bn_act("input", 3, 32, 3, stride=2, act="silu", eps=eps)
    for ratio, k, stride, cin, cout, layers in settings:
        for i in range(layers):
            block_in, block_stride = (cin, stride) if i == 0 else (cout, 1)
            residual = block_stride == 1 and block_in == cout
            exp = make_divisible(block_in * ratio)
            y = x
            if exp != block_in:
                y = b.conv_bn_act(y, block_in, exp, 1, act="silu", eps=eps)
            y = b.conv_bn_act(y, exp, exp, k, stride=block_stride, groups=exp, act="silu", eps=eps)
            y = b.squeeze_excitation(y, exp, max(1, block_in // 4), "silu", "sigmoid")
            y = b.conv_bn_act(y, exp, cout, 1, act=None, eps=eps, scale=0.5 if residual else 1.0)
            x = b.node("Add", [y, x]) if residual else y
    x = b.conv_bn_act(x, 320, 1280, 1, act="silu", eps=eps)
    x = b.head(x)
    y = b.linear(x, 1280, 1000)
    return b.model(y)


def resnet(name, bottleneck, layers, seed):
    """torchvision's ResNet v1.5 (the stride on the 3x3 convolution of a bottleneck)."""
    b = Builder(name, seed)
    expansion = 4 if bottleneck else 1
    x = b.conv_bn_act("input", 3, 64, 7, stride=2)
    x = b.node("MaxPool", [x], ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
               strides=[2, 2])
    cin = 64
    for stage, blocks in enumerate(layers):
        width = 64 << stage
        for i in range(blocks):
            stride = 2 if stage > 0 and i == 0 else 1
            cout = width * expansion
            if bottleneck:
                y = b.conv_bn_act(x, cin, width, 1)
                y = b.conv_bn_act(y, width, width, 3, stride=stride)
                y = b.conv_bn_act(y, width, cout, 1, act=None, scale=0.5)
            else:
                y = b.conv_bn_act(x, cin, width, 3, stride=stride)
                y = b.conv_bn_act(y, width, cout, 3, act=None, scale=0.5)
            shortcut = x
            if stride != 1 or cin != cout:
                shortcut = b.conv_bn_act(x, cin, cout, 1, stride=stride, act=None, scale=0.5)
            x = b.act(b.node("Add", [y, shortcut]), "relu")
            cin = cout
    x = b.head(x)
    y = b.linear(x, cin, 1000)
    return b.model(y)


def resnet18():
    return resnet("resnet18", False, [2, 2, 2, 2], 18)


def resnet50():
    return resnet("resnet50", True, [3, 4, 6, 3], 51)


def mobilenet_v2():
    b = Builder("mobilenet_v2", 20)
    # expand_ratio, out_c, repeats, stride
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    x = b.conv_bn_act("input", 3, 32, 3, stride=2, act="relu6")
    cin = 32
    for ratio, cout, repeats, first_stride in settings:
        for i in range(repeats):
            stride = first_stride if i == 0 else 1
            residual = stride == 1 and cin == cout
            exp = cin * ratio
            y = x
            if ratio != 1:
                y = b.conv_bn_act(y, cin, exp, 1, act="relu6")
            y = b.conv_bn_act(y, exp, exp, 3, stride=stride, groups=exp, act="relu6")
            y = b.conv_bn_act(y, exp, cout, 1, act=None, scale=0.5 if residual else 1.0)
            x = b.node("Add", [x, y]) if residual else y
            cin = cout
    x = b.conv_bn_act(x, 320, 1280, 1, act="relu6")
    x = b.head(x)
    y = b.linear(x, 1280, 1000)
    return b.model(y)


MODELS = {"squeezenet1_1": squeezenet1_1, "mobilenet_v3_small": mobilenet_v3_small,
          "efficientnet_b0": efficientnet_b0, "resnet18": resnet18, "resnet50": resnet50,
          "mobilenet_v2": mobilenet_v2}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or MODELS:
        path = os.path.join(out, name + ".onnx")
        onnx.save(MODELS[name](), path)
        print(path)


if __name__ == "__main__":
    main()
