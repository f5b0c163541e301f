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


# ---------------------------------------------------------------------------- issue 5 cases
# Float and wrong-opset models, and QDQ models whose per-axis scales do not run along the output
# channels (the class of the fuzzer's heap-buffer-overflow in qdq_gemm, see tests/fuzz).

def float_conv():
    """A float model, not integerized: Conv with fractional weights."""
    model = conv_requant()
    w = np.random.default_rng(3).normal(size=(3, 2, 3, 3)).astype(np.float32)
    for i, t in enumerate(model.graph.initializer):
        if t.name == "w":
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(w, "w"))
    return model


def qdq(nodes, inits, x_shape, y_shape, opset=13):
    """x (int8) -> nodes -> y (int8); `inits` maps names to numpy arrays."""
    x = helper.make_tensor_value_info("x", TensorProto.INT8, list(x_shape))
    y = helper.make_tensor_value_info("y", TensorProto.INT8, list(y_shape))
    tensors = [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y], tensors),
                             opset_imports=[helper.make_opsetid("", opset)])


def dq(name, x, scale, zp, **attrs):
    return helper.make_node("DequantizeLinear", [x, scale, zp], [name], name=name, **attrs)


activation = {"s": np.float32(0.1), "z": np.int8(0), "s_y": np.float32(0.2)}


def qdq_conv(weights_axis=0, bias_shape=None, opset=13, channels=2):
    """DequantizeLinear(x) -> Conv 1x1 (6 filters) -> QuantizeLinear; per-axis weight
    scales along `weights_axis`; a bias of `bias_shape` with one scale per row when given."""
    w = np.ones((6, channels, 1, 1), np.int8)
    extent = w.shape[weights_axis]
    inits = dict(activation, w=w, s_w=np.full(extent, 0.05, np.float32), z_w=np.zeros(extent, np.int8))
    nodes = [dq("dx", "x", "s", "z"), dq("dw", "w", "s_w", "z_w", axis=weights_axis)]
    conv_inputs = ["dx", "dw"]
    if bias_shape is not None:
        inits.update(b=np.zeros(bias_shape, np.int32), s_b=np.full(bias_shape[0], 0.005, np.float32),
                     z_b=np.zeros(bias_shape[0], np.int32))
        nodes.append(dq("db", "b", "s_b", "z_b", axis=0))
        conv_inputs.append("db")
    nodes += [helper.make_node("Conv", conv_inputs, ["c"], name="conv", kernel_shape=[1, 1]),
              helper.make_node("QuantizeLinear", ["c", "s_y", "z"], ["y"], name="q")]
    return qdq(nodes, inits, (1, channels, 4, 4), (1, 6, 4, 4), opset)


def qdq_gemm_scale_axis():
    """Gemm B (10, 16) with one scale per row (axis 0) instead of per output column (axis 1)."""
    inits = dict(activation, w=np.ones((10, 16), np.int8), s_w=np.full(10, 0.05, np.float32),
                 z_w=np.zeros(10, np.int8))
    nodes = [dq("dx", "x", "s", "z"), dq("dw", "w", "s_w", "z_w", axis=0),
             helper.make_node("Gemm", ["dx", "dw"], ["g"], name="gemm"),
             helper.make_node("QuantizeLinear", ["g", "s_y", "z"], ["y"], name="q")]
    return qdq(nodes, inits, (1, 10), (1, 16))


def qdq_average_pool_opset19():
    """AveragePool with `dilations`, an attribute opset 19 added (ONNX 1.12 knows up to 17)."""
    nodes = [dq("dx", "x", "s", "z"),
             helper.make_node("AveragePool", ["dx"], ["p"], name="pool", kernel_shape=[2, 2], dilations=[1, 1]),
             helper.make_node("QuantizeLinear", ["p", "s", "z"], ["y"], name="q")]
    return qdq(nodes, {"s": np.float32(0.1), "z": np.int8(0)}, (1, 2, 4, 4), (1, 2, 3, 3), opset=19)


def qdq_float_weights():
    """DequantizeLinear of float weights holding huge integers (ONNX types x int8/uint8/int32):
    their sum per filter overflowed int64 in the integer conv."""
    model = qdq_conv(channels=3)
    for i, t in enumerate(model.graph.initializer):
        if t.name == "w":
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.full((6, 3, 1, 1), 4e18, np.float32), "w"))
    return model


save(float_conv(), "float_conv.onnx")
save(qdq_float_weights(), "qdq_float_weights.onnx")
save(qdq_conv(opset=9), "opset_too_old.onnx")
save(qdq_average_pool_opset19(), "opset_too_new.onnx")
save(qdq_conv(weights_axis=1), "qdq_conv_scale_per_input_channel.onnx")
save(qdq_gemm_scale_axis(), "qdq_gemm_scale_per_row.onnx")
save(qdq_conv(bias_shape=(2, 3)), "qdq_bias_scale_per_row.onnx")
