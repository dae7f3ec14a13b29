#!/usr/bin/python3
# Generates sample_cnn.onnx: a small, deterministic, realistic CNN (stem, residual
# block, downsample block, classifier head) used as GraphLens' bundled sample model
# and as a test fixture. Node/tensor names follow PyTorch's ONNX export style.
#
# Usage: make_sample.py [OUTPUT_PATH]   (default: sample_cnn.onnx next to this script)

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 7
PRODUCER = "graphlens make_sample.py"
SEED = 2026


class GraphBuilder:
    """Collects nodes and initializers; names outputs like torch.onnx.export."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.initializers = []

    def add_init(self, name, array):
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op_type, name, inputs, n_outputs=1, outputs=None, **attrs):
        outputs = outputs or [f"{name}_output_{i}" for i in range(n_outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=name, **attrs))
        return outputs[0] if n_outputs == 1 else outputs

    def constant(self, name, array):
        """A Constant node carrying `array` as its `value` tensor attribute."""
        return self.node("Constant", name, [], value=numpy_helper.from_array(array))

    # ---- parameterised layers -------------------------------------------------

    def conv(self, scope, param, x, c_in, c_out, stride=1):
        """3x3 conv, pad 1, no bias (followed by BN). He-normal init."""
        fan_in = c_in * 3 * 3
        w = self.rng.standard_normal((c_out, c_in, 3, 3)).astype(np.float32)
        w *= np.float32(np.sqrt(2.0 / fan_in))
        w_name = self.add_init(f"{param}.weight", w)
        return self.node("Conv", f"/{scope}/Conv", [x, w_name],
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[stride, stride], dilations=[1, 1], group=1)

    def batchnorm(self, scope, param, x, channels):
        rng = self.rng
        gamma = rng.uniform(0.5, 1.5, channels).astype(np.float32)
        beta = (rng.standard_normal(channels) * 0.1).astype(np.float32)
        mean = (rng.standard_normal(channels) * 0.1).astype(np.float32)
        var = rng.uniform(0.5, 1.5, channels).astype(np.float32)
        inputs = [x,
                  self.add_init(f"{param}.weight", gamma),
                  self.add_init(f"{param}.bias", beta),
                  self.add_init(f"{param}.running_mean", mean),
                  self.add_init(f"{param}.running_var", var)]
        return self.node("BatchNormalization", f"/{scope}/BatchNormalization", inputs,
                         epsilon=1e-5, momentum=0.9)

    def relu(self, scope, x):
        return self.node("Relu", f"/{scope}/Relu", [x])


# ---- blocks ---------------------------------------------------------------------

def stem(b, x):
    x = b.conv("stem/conv", "stem.conv", x, 3, 16)
    x = b.batchnorm("stem/bn", "stem.bn", x, 16)
    return b.relu("stem/relu", x)


def residual_block(b, x, channels):
    identity = x
    y = b.conv("block1/conv1", "block1.conv1", x, channels, channels)
    y = b.batchnorm("block1/bn1", "block1.bn1", y, channels)
    y = b.relu("block1/relu1", y)
    y = b.conv("block1/conv2", "block1.conv2", y, channels, channels)
    y = b.batchnorm("block1/bn2", "block1.bn2", y, channels)
    y = b.node("Add", "/block1/Add", [y, identity])
    return b.relu("block1/relu2", y)


def downsample_block(b, x, c_in, c_out):
    x = b.conv("down/conv", "down.conv", x, c_in, c_out, stride=2)
    x = b.batchnorm("down/bn", "down.bn", x, c_out)
    x = b.relu("down/relu", x)
    # Layer-scale style multiply by a Constant scalar (1.0, numerically a no-op).
    scale = b.constant("/down/Constant", np.array(1.0, dtype=np.float32))
    return b.node("Mul", "/down/Mul", [x, scale])


def head(b, x, c_in, n_classes):
    x = b.node("GlobalAveragePool", "/head/pool/GlobalAveragePool", [x])
    x = b.node("Flatten", "/head/Flatten", [x], axis=1)
    ratio = b.constant("/head/dropout/Constant", np.array(0.1, dtype=np.float32))
    x = b.node("Dropout", "/head/dropout/Dropout", [x, ratio])  # inference: no training_mode
    x = b.node("Identity", "/head/Identity", [x])
    shape = b.constant("/head/Constant", np.array([1, c_in], dtype=np.int64))
    x = b.node("Reshape", "/head/Reshape", [x, shape])

    w = (b.rng.standard_normal((n_classes, c_in)) * np.sqrt(1.0 / c_in)).astype(np.float32)
    bias = (b.rng.standard_normal(n_classes) * 0.01).astype(np.float32)
    inputs = [x, b.add_init("head.fc.weight", w), b.add_init("head.fc.bias", bias)]
    return b.node("Gemm", "/head/fc/Gemm", inputs, outputs=["logits"],
                  alpha=1.0, beta=1.0, transB=1)


def build_model():
    b = GraphBuilder(np.random.default_rng(SEED))
    x = stem(b, "input")
    x = residual_block(b, x, 16)
    x = downsample_block(b, x, 16, 32)
    head(b, x, 32, 10)  # produces the graph output "logits"

    graph = helper.make_graph(
        b.nodes, "sample_cnn",
        inputs=[helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
        outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
        initializer=b.initializers)
    model = helper.make_model(graph, producer_name=PRODUCER,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    model.doc_string = "Small CNN sample for GraphLens (stem, residual block, downsample, head)."
    return model


def main():
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample_cnn.onnx")
    out = sys.argv[1] if len(sys.argv) > 1 else default
    model = build_model()
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, out)
    print(f"wrote {out}: {len(model.graph.node)} nodes, "
          f"{sum(int(np.prod(t.dims)) for t in model.graph.initializer)} parameters")


if __name__ == "__main__":
    main()
