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


# ---------------------------------------------------------------------------- issue 16 cases
# Hostile or contradictory models: constants whose data does not match their type or shape
# (once a heap overflow inside ONNX shape inference), values outside their declared type,
# and graphs whose old messages misled.

def reshape_model(shape_tensor, as_constant_node=False):
    """x int8 (1, 4) -> Reshape(x, shape) -> y; `shape_tensor` is the TensorProto of the shape."""
    x = helper.make_tensor_value_info("x", TensorProto.INT8, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.INT8, [2, 2])
    nodes, inits = [], []
    if as_constant_node:
        nodes.append(helper.make_node("Constant", [], ["shape"], name="shape_const", value=shape_tensor))
    else:
        inits.append(shape_tensor)
    nodes.append(helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"))
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits),
                             opset_imports=[helper.make_opsetid("", 13)])


def raw_shape(length):
    """An int64 shape (2,) whose raw_data holds `length` bytes (16 would be right)."""
    t = TensorProto(name="shape", data_type=TensorProto.INT64, dims=[2])
    t.raw_data = (np.array([2, 2], np.int64).tobytes() + b"\x00" * 16)[:length]
    return t


def qdq_int8_weights_in_int32_data(value):
    """QDQ Conv whose INT8 weights (int32_data) hold `value`: ONNX reads its low 8 bits."""
    model = qdq_conv()
    for i, t in enumerate(model.graph.initializer):
        if t.name == "w":
            w = TensorProto(name="w", data_type=TensorProto.INT8, dims=list(t.dims))
            w.int32_data.extend([value] + [1] * 11)
            model.graph.initializer[i].CopyFrom(w)
    return model


def qdq_uint8_input():
    """A uint8 QDQ Conv with input zero point 128 (x is declared UINT8)."""
    model = qdq_conv()
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.UINT8
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT8
    for i, t in enumerate(model.graph.initializer):
        if t.name == "z":
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.uint8(128), "z"))
    return model


def no_nodes():
    """A valid graph without nodes: its input is its output."""
    x = helper.make_tensor_value_info("x", TensorProto.INT8, [1, 4])
    return helper.make_model(helper.make_graph([], "g", [x], [x]), opset_imports=[helper.make_opsetid("", 13)])


def cycle():
    """a = Identity(b), b = Identity(a): a cycle of two nodes."""
    x = helper.make_tensor_value_info("x", TensorProto.INT8, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.INT8, [1, 4])
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="loop_a"),
             helper.make_node("Identity", ["a"], ["b"], name="loop_b"),
             helper.make_node("Identity", ["a"], ["y"], name="out")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", 13)])


def qdq_input_with_initializer():
    """QDQ Conv whose graph input x also has an initializer: x is a constant, not a run-time input."""
    model = qdq_conv()
    model.graph.initializer.append(numpy_helper.from_array(np.zeros((1, 2, 4, 4), np.int8), "x"))
    model.graph.node[0].output[0] = "xd"
    model.graph.node[2].input[0] = "xd"
    return model


def external_data(directory):
    """conv_requant with its weights 'w' in the external file w.bin next to the model."""
    model = conv_requant()
    for t in model.graph.initializer:
        if t.name == "w":
            with open(os.path.join(directory, "w.bin"), "wb") as f:
                f.write(t.raw_data)
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            t.external_data.add(key="location", value="w.bin")
    return model


save(reshape_model(raw_shape(13)), "raw_data_13_bytes_int64.onnx")
save(reshape_model(raw_shape(13), as_constant_node=True), "constant_raw_data_13_bytes_int64.onnx")
save(qdq_int8_weights_in_int32_data(1000), "int8_initializer_holds_1000.onnx")
save(qdq_uint8_input(), "qdq_uint8_input.onnx")
save(no_nodes(), "no_nodes.onnx")
save(cycle(), "cycle.onnx")
save(qdq_input_with_initializer(), "qdq_input_with_initializer.onnx")
os.makedirs(os.path.join(here, "external"), exist_ok=True)
save(external_data(os.path.join(here, "external")), os.path.join("external", "conv_requant_external.onnx"))


def external_data_outside(directory):
    """External data whose location leaves the model's directory ("../w.bin")."""
    model = external_data(directory)
    for t in model.graph.initializer:
        if t.name == "w":
            t.external_data[0].value = "../external/w.bin"
    return model


save(external_data_outside(os.path.join(here, "external")), os.path.join("external", "location_outside.onnx"))
