#!/usr/bin/python3
"""Writes the small ONNX models of the onnx2hpp CLI tests (run with Debian's /usr/bin/python3,
which has python3-onnx). The models are committed; this script documents how they were made."""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

here = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    onnx.save(model, os.path.join(here, name))


def conv_requant(input_shape=(1, 2, 4, 4), dynamic=False, drop_weight=False):
    """Deeploy-style: Conv with float-held integer weights, then RequantShift (domain '')."""
    rng = np.random.default_rng(7)
    w = rng.integers(-8, 8, size=(3, 2, 3, 3)).astype(np.float32)
    b = rng.integers(-50, 50, size=(3,)).astype(np.float32)
    mul = np.full((3, 1, 1), 3, np.float32)
    add = np.zeros((3, 1, 1), np.float32)
    dims = list(input_shape)
    if dynamic:
        dims[0] = "batch"
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, dims)
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(mul, "mul"), numpy_helper.from_array(add, "add")]
    if not drop_weight:
        inits.append(numpy_helper.from_array(w, "w"))
    nodes = [
        helper.make_node("Conv", ["input", "w", "b"], ["acc"], name="conv_0", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("RequantShift", ["acc", "mul", "add"], ["output"], name="rqs_0", div=256, n_levels_out=256,
                         signed=1),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def float_softmax():
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 10])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])
    graph = helper.make_graph([helper.make_node("Softmax", ["input"], ["output"], name="softmax_0", axis=1)],
                              "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


save(conv_requant(), "conv_requant.onnx")
save(conv_requant(dynamic=True), "dynamic_batch.onnx")
save(conv_requant(drop_weight=True), "missing_initializer.onnx")
save(float_softmax(), "float_softmax.onnx")
data = conv_requant().SerializeToString()
with open(os.path.join(here, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])
