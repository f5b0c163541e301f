#!/usr/bin/python3
"""Standard quantized ONNX test models for onnx2hpp (run with /usr/bin/python3: onnx + numpy).

    make_quantized_models.py OUTDIR

Writes OUTDIR/cases/<case>/{network.onnx, inputs.npz, outputs.npz, tolerance[, classifier]}:
small QOperator (QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger, com.microsoft
QLinearAdd/QLinearMul/QLinearAveragePool/QLinearGlobalAveragePool/QLinearSigmoid/QLinearLeakyRelu)
and QDQ (QuantizeLinear/DequantizeLinear around Conv, Gemm, MatMul, Add, Mul, pools, Relu/Clip,
Sigmoid/Tanh/HardSigmoid/HardSwish/LeakyRelu, Reshape/Flatten) models,
int8 and uint8, per tensor and per channel, plus a small QDQ CNN classifier. Weights and
inputs come from fixed seeds; quantization parameters are calibrated on the float values
like a post-training quantizer would. The golden outputs are the float reference of the ONNX
semantics (quantized_reference.py): Tessera may differ by one unit (`tolerance`), and a
`classifier` case must agree on the top-1 class.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_reference as iref  # noqa: E402
import quantized_reference as qref  # noqa: E402

rng = np.random.default_rng(5)
ONNX_TYPE = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8,
             np.dtype(np.int32): TensorProto.INT32}


# ---------------------------------------------------------------------------- quantization

def calibrate(real, dtype, symmetric=False):
    """(scale, zero point) covering the values of `real`, as a min/max observer does."""
    info = np.iinfo(dtype)
    lo, hi = min(float(real.min()), 0.0), max(float(real.max()), 0.0)
    if symmetric:
        scale = max(abs(lo), abs(hi)) / ((info.max - info.min) / 2) or 1.0
        return np.float32(scale), dtype(0)
    scale = (hi - lo) / (info.max - info.min) or 1.0
    zp = int(np.clip(np.rint(info.min - lo / scale), info.min, info.max))
    return np.float32(scale), dtype(zp)


def quantize_weights(w, dtype, per_channel):
    """Weights quantized along axis 0 (int8 symmetric, uint8 with a zero point)."""
    axes = tuple(range(1, w.ndim))
    if dtype == np.int8:
        m = np.abs(w).max(axis=axes) if per_channel else np.full(w.shape[0], np.abs(w).max())
        scale = (m / 127).astype(np.float32)
        zp = np.zeros(w.shape[0], np.int8)
    else:
        lo = np.minimum(w.min(axis=axes) if per_channel else np.full(w.shape[0], w.min()), 0)
        hi = np.maximum(w.max(axis=axes) if per_channel else np.full(w.shape[0], w.max()), 0)
        scale = ((hi - lo) / 255).astype(np.float32)
        zp = np.clip(np.rint(-lo / scale), 0, 255).astype(np.uint8)
    shape = [-1] + [1] * (w.ndim - 1)
    q = np.clip(np.rint(w / scale.reshape(shape)) + zp.reshape(shape).astype(np.float64),
                np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)
    if not per_channel:
        return q, scale[:1].reshape(()), zp[:1].reshape(())
    return q, scale, zp


def activations(dtype, shape):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def tensor(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


# ---------------------------------------------------------------------------- saving

def save_case(root, name, nodes, initializers, inputs, outputs, data, tolerance=1, classifier=False, opset=13,
              microsoft=False):
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info(n, ONNX_TYPE[np.dtype(x.dtype)], list(x.shape))
                      for n, x in zip(inputs, data)],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outputs], initializers)
    opsets = [helper.make_opsetid('', opset)] + ([helper.make_opsetid('com.microsoft', 1)] if microsoft else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    golden = qref.run(model, data)
    model.graph.ClearField('output')
    model.graph.output.extend([helper.make_tensor_value_info(n, ONNX_TYPE[np.dtype(y.dtype)], list(y.shape))
                               for n, y in zip(outputs, golden)])
    directory = os.path.join(root, 'cases', name)
    os.makedirs(directory, exist_ok=True)
    onnx.save(model, os.path.join(directory, 'network.onnx'))
    np.savez(os.path.join(directory, 'inputs.npz'), *[x.astype(np.int64) for x in data])
    np.savez(os.path.join(directory, 'outputs.npz'), *[y.astype(np.int64) for y in golden])
    # The integer rule of docs/semantics.md, evaluated independently (integer_reference.py, which
    # covers the QDQ forms of Conv, Gemm, MatMul, Add, pools, Relu/Clip and data movement):
    # Tessera must equal it exactly where it applies.
    try:
        exact = iref.run(model, data)
    except NotImplementedError:
        exact = None
    if exact is not None:
        np.savez(os.path.join(directory, 'outputs_integer.npz'), *[y.astype(np.int64) for y in exact])
    with open(os.path.join(directory, 'tolerance'), 'w') as f:
        f.write('%d\n' % tolerance)
    if classifier:
        open(os.path.join(directory, 'classifier'), 'w').close()


# ---------------------------------------------------------------------------- QOperator

def qlinear_conv(root, name, x_type, w_type, per_channel, y_type, channels=4, filters=6, kernel=3, group=1,
                 pads=(1, 1, 1, 1), strides=(1, 1), size=8, bias=True):
    x = activations(x_type, (1, channels, size, size))
    x_scale, x_zp = np.float32(0.02), x_type(np.iinfo(x_type).min // 2 + 37 if x_type == np.uint8 else -9)
    if x_type == np.uint8:
        x_zp = np.uint8(131)
    w_real = rng.normal(0, 0.3, (filters, channels // group, kernel, kernel))
    w, w_scale, w_zp = quantize_weights(w_real, w_type, per_channel)
    acc_scale = (np.float64(x_scale) * w_scale.astype(np.float64)).reshape(-1)
    b = np.rint(rng.normal(0, 0.5, filters) / acc_scale).astype(np.int32) if bias else None
    a = dict(kernel_shape=[kernel, kernel], pads=list(pads), strides=list(strides), group=group)
    real = qref.conv(qref.dequantize(x, x_scale, x_zp), qref.dequantize(w, w_scale, w_zp, 0),
                     None if b is None else b * acc_scale, a)
    y_scale, y_zp = calibrate(real, y_type)
    inits = [tensor('x_scale', x_scale), tensor('x_zero_point', x_zp), tensor('w', w), tensor('w_scale', w_scale),
             tensor('w_zero_point', w_zp), tensor('y_scale', y_scale), tensor('y_zero_point', y_zp)]
    ins = ['x', 'x_scale', 'x_zero_point', 'w', 'w_scale', 'w_zero_point', 'y_scale', 'y_zero_point']
    if b is not None:
        inits.append(tensor('B', b))
        ins.append('B')
    save_case(root, name, [helper.make_node('QLinearConv', ins, ['y'], name='qconv', **a)], inits, ['x'], ['y'], [x])


def qlinear_matmul(root, name, a_type, b_type, per_column, y_type, m=3, k=16, n=10):
    a = activations(a_type, (m, k))
    a_scale, a_zp = np.float32(0.03), a_type(120 if a_type == np.uint8 else 4)
    b_real = rng.normal(0, 0.2, (n, k))
    bq, b_scale, b_zp = quantize_weights(b_real, b_type, per_column)
    real = qref.dequantize(a, a_scale, a_zp) @ qref.dequantize(bq, b_scale, b_zp, 0).T
    y_scale, y_zp = calibrate(real, y_type)
    inits = [tensor('a_scale', a_scale), tensor('a_zero_point', a_zp), tensor('b', bq.T.copy()),
             tensor('b_scale', b_scale), tensor('b_zero_point', b_zp), tensor('y_scale', y_scale),
             tensor('y_zero_point', y_zp)]
    node = helper.make_node('QLinearMatMul', ['a', 'a_scale', 'a_zero_point', 'b', 'b_scale', 'b_zero_point',
                                              'y_scale', 'y_zero_point'], ['y'], name='qmatmul')
    save_case(root, name, [node], inits, ['a'], ['y'], [a])


def integer_ops(root):
    # ConvInteger: uint8 input with a zero point and padding (an explicit pad with zx), uint8
    # weights with per-channel zero points (stored as int16 w - zw). Exact.
    x = activations(np.uint8, (1, 3, 6, 6))
    w = rng.integers(0, 256, (4, 3, 3, 3)).astype(np.uint8)
    node = helper.make_node('ConvInteger', ['x', 'w', 'x_zero_point', 'w_zero_point'], ['y'], name='conv_integer',
                            pads=[1, 1, 1, 1], strides=[2, 1])
    save_case(root, 'convinteger_u8_per_channel_zero_points', [node],
              [tensor('w', w), tensor('x_zero_point', np.uint8(77)),
               tensor('w_zero_point', np.array([128, 120, 131, 100], np.uint8))], ['x'], ['y'], [x], tolerance=0)
    # MatMulInteger: int8 x int8 with an input zero point. Exact.
    a = activations(np.int8, (4, 12))
    b = rng.integers(-128, 128, (12, 5)).astype(np.int8)
    node = helper.make_node('MatMulInteger', ['a', 'b', 'a_zero_point'], ['y'], name='matmul_integer')
    save_case(root, 'matmulinteger_s8', [node], [tensor('b', b), tensor('a_zero_point', np.int8(-3))], ['a'], ['y'],
              [a], tolerance=0)


def microsoft_ops(root):
    # QLinearAdd with different input scales (rescaled to a common int16 scale) and equal ones.
    for name, b_scale in (('qlinearadd_u8_different_scales', 0.037), ('qlinearadd_u8_same_scales', 0.02)):
        a = activations(np.uint8, (1, 4, 5, 5))
        b = activations(np.uint8, (1, 4, 5, 5))
        real = qref.dequantize(a, 0.02, np.uint8(128)) + qref.dequantize(b, b_scale, np.uint8(100))
        y_scale, y_zp = calibrate(real, np.uint8)
        inits = [tensor('a_scale', np.float32(0.02)), tensor('a_zp', np.uint8(128)),
                 tensor('b_scale', np.float32(b_scale)), tensor('b_zp', np.uint8(100)),
                 tensor('y_scale', y_scale), tensor('y_zp', y_zp)]
        node = helper.make_node('QLinearAdd', ['a', 'a_scale', 'a_zp', 'b', 'b_scale', 'b_zp', 'y_scale', 'y_zp'],
                                ['y'], name='qadd', domain='com.microsoft')
        save_case(root, name, [node], inits, ['a', 'b'], ['y'], [a, b], microsoft=True)
    # QLinearConcat on channels: two inputs in other quantizations (requantized first), one in
    # the output's (joined as it is).
    xs = [activations(np.uint8, (1, c, 4, 4)) for c in (2, 3, 1)]
    params = [(np.float32(0.02), np.uint8(128)), (np.float32(0.05), np.uint8(90))]
    real = np.concatenate([qref.dequantize(x, s_, z) for x, (s_, z) in zip(xs, params)], axis=1)
    y_scale, y_zp = calibrate(real, np.uint8)
    params.append((y_scale, y_zp))
    inits = [tensor('y_scale', y_scale), tensor('y_zp', y_zp)]
    ins = ['y_scale', 'y_zp']
    for i, (s_, z) in enumerate(params):
        inits += [tensor('s%d' % i, s_), tensor('z%d' % i, z)]
        ins += ['x%d' % i, 's%d' % i, 'z%d' % i]
    node = helper.make_node('QLinearConcat', ins, ['y'], name='qconcat', domain='com.microsoft', axis=1)
    save_case(root, 'qlinearconcat_u8', [node], inits, ['x0', 'x1', 'x2'], ['y'], xs, microsoft=True)
    # QLinearGlobalAveragePool and a padded QLinearAveragePool with count_include_pad (depthwise
    # convs of ones; the padding reads the zero point).
    x = activations(np.uint8, (1, 5, 6, 6))
    xr = qref.dequantize(x, 0.05, np.uint8(140))
    g_scale, g_zp = calibrate(qref.pool(xr, {}, True, True), np.uint8)
    pool_attrs = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)
    p_scale, p_zp = calibrate(qref.pool(xr, pool_attrs, True), np.uint8)
    inits = [tensor('x_scale', np.float32(0.05)), tensor('x_zp', np.uint8(140)), tensor('g_scale', g_scale),
             tensor('g_zp', g_zp), tensor('p_scale', p_scale), tensor('p_zp', p_zp)]
    nodes = [helper.make_node('QLinearGlobalAveragePool', ['x', 'x_scale', 'x_zp', 'g_scale', 'g_zp'], ['g'],
                              name='qgap', domain='com.microsoft', channels_last=0),
             helper.make_node('QLinearAveragePool', ['x', 'x_scale', 'x_zp', 'p_scale', 'p_zp'], ['p'],
                              name='qavgpool', domain='com.microsoft', **pool_attrs)]
    save_case(root, 'qlinear_average_pools_u8', nodes, inits, ['x'], ['g', 'p'], [x], microsoft=True)


def elementwise_cases(root):
    # QLinearMul with zero points on both inputs (the kernel's input offsets) and broadcasting:
    # int8 times a per-channel (1, C, 1, 1) operand, uint8 times a lower-rank (W,) operand.
    for name, dtype, a_zp, b_zp, b_shape in (('qlinearmul_s8_broadcast_channels', np.int8, -3, 5, (1, 4, 1, 1)),
                                             ('qlinearmul_u8_broadcast_rank', np.uint8, 131, 90, (6,))):
        a = activations(dtype, (1, 4, 5, 6))
        b = activations(dtype, b_shape)
        a_scale, b_scale = np.float32(0.03), np.float32(0.045)
        real = qref.dequantize(a, a_scale, dtype(a_zp)) * qref.dequantize(b, b_scale, dtype(b_zp))
        y_scale, y_zp = calibrate(real, dtype)
        inits = [tensor('a_scale', a_scale), tensor('a_zp', dtype(a_zp)), tensor('b_scale', b_scale),
                 tensor('b_zp', dtype(b_zp)), tensor('y_scale', y_scale), tensor('y_zp', y_zp)]
        node = helper.make_node('QLinearMul', ['a', 'a_scale', 'a_zp', 'b', 'b_scale', 'b_zp', 'y_scale', 'y_zp'],
                                ['y'], name='qmul', domain='com.microsoft')
        save_case(root, name, [node], inits, ['a', 'b'], ['y'], [a, b], microsoft=True)

    # QLinearSigmoid (uint8, the usual 1/256 output scale) and QLinearLeakyRelu (int8): lookup
    # tables computed from the float definition, so they match the reference exactly.
    x = activations(np.uint8, (1, 3, 7, 7))
    inits = [tensor('x_scale', np.float32(0.05)), tensor('x_zp', np.uint8(120)),
             tensor('y_scale', np.float32(1 / 256)), tensor('y_zp', np.uint8(0))]
    node = helper.make_node('QLinearSigmoid', ['x', 'x_scale', 'x_zp', 'y_scale', 'y_zp'], ['y'], name='qsigmoid',
                            domain='com.microsoft')
    save_case(root, 'qlinearsigmoid_u8', [node], inits, ['x'], ['y'], [x], tolerance=0, microsoft=True)
    x = activations(np.int8, (2, 20))
    inits = [tensor('x_scale', np.float32(0.04)), tensor('x_zp', np.int8(-10)),
             tensor('y_scale', np.float32(0.035)), tensor('y_zp', np.int8(-60))]
    node = helper.make_node('QLinearLeakyRelu', ['x', 'x_scale', 'x_zp', 'y_scale', 'y_zp'], ['y'], name='qleaky',
                            domain='com.microsoft', alpha=0.1)
    save_case(root, 'qlinearleakyrelu_s8', [node], inits, ['x'], ['y'], [x], tolerance=0, microsoft=True)


# ---------------------------------------------------------------------------- QDQ

class qdq_builder:
    """Builds a QDQ graph: DequantizeLinear of inputs/weights, float ops, QuantizeLinear."""

    def __init__(self):
        self.nodes, self.inits = [], []
        self.count = 0

    def name(self, base):
        self.count += 1
        return '%s_%d' % (base, self.count)

    def constant(self, value, base):
        n = self.name(base)
        self.inits.append(tensor(n, value))
        return n

    def dq(self, q, scale, zp, axis=None):
        out = self.name('dq')
        ins = [q, self.constant(scale, 'scale'), self.constant(zp, 'zp')]
        extra = {} if axis is None else {'axis': axis}
        self.nodes.append(helper.make_node('DequantizeLinear', ins, [out], name=out, **extra))
        return out

    def q(self, x, scale, zp, out=None):
        out = out or self.name('q')
        self.nodes.append(helper.make_node('QuantizeLinear', [x, self.constant(scale, 'scale'),
                                                              self.constant(zp, 'zp')], [out], name=out))
        return out

    def op(self, op_type, ins, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, ins, [out], name=out, **attrs))
        return out


def qdq_conv(b, x, real_x, x_scale, x_zp, filters, w_type, per_channel, out_type, activation=None, **attrs):
    """DQ(x) -> Conv(DQ(w), DQ(int32 bias)) [-> Relu/Clip] -> Q; returns (q name, real value, scale, zp)."""
    channels = real_x.shape[1] // attrs.get('group', 1)
    k = attrs['kernel_shape'][0]
    w_real = rng.normal(0, 0.25, (filters, channels, k, k))
    w, w_scale, w_zp = quantize_weights(w_real, w_type, per_channel)
    acc_scale = (np.float64(x_scale) * w_scale.astype(np.float64)).reshape(-1)
    bias = np.rint(rng.normal(0, 0.3, filters) / acc_scale).astype(np.int32)
    bias_scale = (np.float32(x_scale) * w_scale).astype(np.float32)
    wq = b.dq(b.constant(w, 'w'), w_scale, w_zp, 0 if per_channel else None)
    bq = b.dq(b.constant(bias, 'bias'), bias_scale, np.zeros(bias_scale.shape, np.int32), 0 if per_channel else None)
    y = b.op('Conv', [x, wq, bq], **attrs)
    real = qref.conv(real_x, qref.dequantize(w, w_scale, w_zp, 0), bias * bias_scale.astype(np.float64), attrs)
    if activation == 'relu':
        y, real = b.op('Relu', [y]), np.maximum(real, 0)
    elif activation == 'relu6':
        y = b.op('Clip', [y, b.constant(np.float32(0), 'min'), b.constant(np.float32(6), 'max')])
        real = np.clip(real, 0, 6)
    y_scale, y_zp = calibrate(real, out_type, symmetric=out_type == np.int8)
    if activation == 'relu6':  # calibrated below the clip: the clip bound saturates some
        y_scale = np.float32(y_scale * 0.8)
    return b.q(y, y_scale, y_zp), y_scale, y_zp


def qdq_cases(root):
    # Conv + Relu, int8 activations and per-channel int8 weights, strided and padded.
    for name, x_type, w_type, per_channel, activation in (
            ('qdq_conv_relu_s8_per_channel', np.int8, np.int8, True, 'relu'),
            ('qdq_conv_relu6_u8_per_tensor', np.uint8, np.int8, False, 'relu6'),
            ('qdq_conv_u8_weights_zero_point', np.uint8, np.uint8, True, None)):
        b = qdq_builder()
        x = activations(x_type, (1, 3, 9, 9))
        x_scale, x_zp = np.float32(0.04), x_type(10 if x_type == np.int8 else 120)
        xd = b.dq('x', x_scale, x_zp)
        y, _, _ = qdq_conv(b, xd, qref.dequantize(x, x_scale, x_zp), x_scale, x_zp, 8, w_type, per_channel, x_type,
                           activation, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
        b.nodes[-1].output[0] = 'y'
        save_case(root, name, b.nodes, b.inits, ['x'], ['y'], [x])

    # Depthwise conv (group = C) on uint8, per-channel weights.
    b = qdq_builder()
    x = activations(np.uint8, (1, 6, 7, 7))
    xd = b.dq('x', np.float32(0.03), np.uint8(128))
    qdq_conv(b, xd, qref.dequantize(x, 0.03, np.uint8(128)), np.float32(0.03), np.uint8(128), 6, np.int8, True,
             np.uint8, 'relu', kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=6)
    b.nodes[-1].output[0] = 'y'
    save_case(root, 'qdq_depthwise_u8', b.nodes, b.inits, ['x'], ['y'], [x])

    # Flatten -> Gemm (transB, per-channel) and MatMul with a constant B, uint8 in, int8 out.
    b = qdq_builder()
    x = activations(np.uint8, (1, 4, 3, 3))
    x_scale, x_zp = np.float32(0.05), np.uint8(100)
    flat = b.op('Flatten', [b.dq('x', x_scale, x_zp)])
    fq = b.q(flat, x_scale, x_zp)  # data movement keeps the quantization
    real = qref.dequantize(x, x_scale, x_zp).reshape(1, -1)
    w_real = rng.normal(0, 0.1, (10, 36))
    w, w_scale, w_zp = quantize_weights(w_real, np.int8, True)
    bias = np.rint(rng.normal(0, 0.2, 10) / (np.float64(x_scale) * w_scale)).astype(np.int32)
    g = b.op('Gemm', [b.dq(fq, x_scale, x_zp), b.dq(b.constant(w, 'w'), w_scale, w_zp, 0),
                      b.dq(b.constant(bias, 'b'), (x_scale * w_scale).astype(np.float32), np.zeros(10, np.int32), 0)],
             transB=1)
    g_real = real @ qref.dequantize(w, w_scale, w_zp, 0).T + bias * (np.float64(x_scale) * w_scale)
    g_scale, g_zp = calibrate(g_real, np.int8, symmetric=True)
    gq = b.q(g, g_scale, g_zp, 'logits')
    m_real_w = rng.normal(0, 0.2, (10, 6))
    mw, mw_scale, mw_zp = quantize_weights(m_real_w.T.copy(), np.int8, False)
    m = b.op('MatMul', [b.dq(gq, g_scale, g_zp), b.dq(b.constant(mw.T.copy(), 'mw'), mw_scale, mw_zp)])
    m_real = qref.dequantize(qref.quantize(g_real, g_scale, g_zp), g_scale, g_zp) @ \
        qref.dequantize(mw, mw_scale, mw_zp, 0).T
    # MatMul + Add of a quantized bias (ONNX Runtime's QDQ form of a Linear layer).
    mb_scale = np.float32(np.float32(g_scale) * np.float32(mw_scale))
    mb = np.rint(rng.normal(0, 0.5, 6) / np.float64(mb_scale)).astype(np.int32)
    m = b.op('Add', [m, b.dq(b.constant(mb, 'mb'), mb_scale, np.int32(0))])
    m_real = m_real + mb * np.float64(mb_scale)
    m_scale, m_zp = calibrate(m_real, np.uint8)
    b.q(m, m_scale, m_zp, 'y')
    save_case(root, 'qdq_gemm_matmul', b.nodes, b.inits, ['x'], ['logits', 'y'], [x])

    # Add of two int8 tensors (different scales) with a Relu; MaxPool, AveragePool (other
    # output scale), GlobalAveragePool, Reshape.
    b = qdq_builder()
    xa = activations(np.int8, (1, 4, 6, 6))
    xb = activations(np.int8, (1, 4, 6, 6))
    ra, rb = qref.dequantize(xa, 0.03, np.int8(-2)), qref.dequantize(xb, 0.05, np.int8(5))
    s = b.op('Relu', [b.op('Add', [b.dq('a', np.float32(0.03), np.int8(-2)), b.dq('b', np.float32(0.05), np.int8(5))])])
    s_real = np.maximum(ra + rb, 0)
    s_scale, s_zp = calibrate(s_real, np.int8)
    sq = b.q(s, s_scale, s_zp, 'sum')
    s_real = qref.dequantize(qref.quantize(s_real, s_scale, s_zp), s_scale, s_zp)
    mp = b.q(b.op('MaxPool', [b.dq(sq, s_scale, s_zp)], kernel_shape=[2, 2], strides=[2, 2]), s_scale, s_zp, 'maxpool')
    mp_real = qref.pool(s_real, dict(kernel_shape=[2, 2], strides=[2, 2]), False)
    ap_attrs = dict(kernel_shape=[2, 2], strides=[1, 1])
    ap_real = qref.pool(mp_real, ap_attrs, True)
    ap_scale, ap_zp = calibrate(ap_real, np.int8)
    ap = b.q(b.op('AveragePool', [b.dq(mp, s_scale, s_zp)], **ap_attrs), ap_scale, ap_zp, 'avgpool')
    gap_real = qref.pool(qref.dequantize(qref.quantize(ap_real, ap_scale, ap_zp), ap_scale, ap_zp), {}, True, True)
    gap_scale, gap_zp = calibrate(gap_real, np.int8)
    gap = b.q(b.op('GlobalAveragePool', [b.dq(ap, ap_scale, ap_zp)]), gap_scale, gap_zp)
    b.q(b.op('Reshape', [b.dq(gap, gap_scale, gap_zp), b.constant(np.array([1, 4], np.int64), 'shape')]),
        gap_scale, gap_zp, 'y')
    save_case(root, 'qdq_add_pools_reshape', b.nodes, b.inits, ['a', 'b'], ['sum', 'maxpool', 'avgpool', 'y'],
              [xa, xb])

    # torch's ReLU6/Hardtanh after a quantized conv: Q -> DQ -> Clip -> Q with the input's scale
    # and zero point (a clamp only; onnx2hpp narrows the conv's requantization clamp), twice in a
    # row (the second a Hardtanh to [-1, 5]: a lower bound below the first's).
    b = qdq_builder()
    x = activations(np.uint8, (1, 3, 9, 9))
    x_scale, x_zp = np.float32(0.04), np.uint8(120)
    xd = b.dq('x', x_scale, x_zp)
    y, y_scale, y_zp = qdq_conv(b, xd, qref.dequantize(x, x_scale, x_zp), x_scale, x_zp, 8, np.int8, False,
                                np.uint8, None, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    for lo, hi in ((0.0, 6.0), (-1.0, 5.0)):
        yc = b.op('Clip', [b.dq(y, y_scale, y_zp), b.constant(np.float32(lo), 'min'), b.constant(np.float32(hi), 'max')])
        y = b.q(yc, y_scale, y_zp)
    b.nodes[-1].output[0] = 'y'
    save_case(root, 'qdq_conv_then_relu6_same_scale', b.nodes, b.inits, ['x'], ['y'], [x])


def qdq_elementwise_cases(root):
    # Mul of two int8 tensors, then of the product by a DequantizeLinear of a constant (the
    # constant is stored as c - zc; a per-channel gate like squeeze-and-excitation's).
    b = qdq_builder()
    xa, xb = activations(np.int8, (1, 4, 3, 5)), activations(np.int8, (1, 4, 3, 5))
    ra, rb = qref.dequantize(xa, 0.03, np.int8(4)), qref.dequantize(xb, 0.02, np.int8(-7))
    p_real = ra * rb
    p_scale, p_zp = calibrate(p_real, np.int8)
    p = b.q(b.op('Mul', [b.dq('a', np.float32(0.03), np.int8(4)), b.dq('b', np.float32(0.02), np.int8(-7))]),
            p_scale, p_zp, 'product')
    gate = rng.integers(0, 256, (1, 4, 1, 1)).astype(np.uint8)
    g_real = qref.dequantize(qref.quantize(p_real, p_scale, p_zp), p_scale, p_zp) * \
        qref.dequantize(gate, np.float32(0.004), np.uint8(30))
    g_scale, g_zp = calibrate(g_real, np.uint8)
    b.q(b.op('Mul', [b.dq(b.constant(gate, 'gate'), np.float32(0.004), np.uint8(30)), b.dq(p, p_scale, p_zp)]),
        g_scale, g_zp, 'y')
    save_case(root, 'qdq_mul_s8_constant_gate', b.nodes, b.inits, ['a', 'b'], ['product', 'y'], [xa, xb])

    # Sigmoid, and the other elementwise float ops, each between DequantizeLinear and
    # QuantizeLinear; a Relu before a Sigmoid is part of its table. Exact (tolerance 0).
    b = qdq_builder()
    x = activations(np.int8, (1, 6, 4, 4))
    xd = b.dq('x', np.float32(0.06), np.int8(3))
    b.q(b.op('Sigmoid', [xd]), np.float32(1 / 256), np.int8(-128), 'sigmoid')
    b.q(b.op('Sigmoid', [b.op('Relu', [xd])]), np.float32(1 / 256), np.int8(-128), 'relu_sigmoid')
    b.q(b.op('Tanh', [xd]), np.float32(1 / 128), np.int8(0), 'tanh')
    b.q(b.op('HardSigmoid', [xd], alpha=0.25, beta=0.4), np.float32(1 / 255), np.uint8(0), 'hardsigmoid')
    b.q(b.op('HardSwish', [xd]), np.float32(0.04), np.int8(-100), 'hardswish')
    b.q(b.op('LeakyRelu', [xd], alpha=0.2), np.float32(0.05), np.int8(-20), 'leakyrelu')
    save_case(root, 'qdq_sigmoid_and_activations_s8', b.nodes, b.inits, ['x'],
              ['sigmoid', 'relu_sigmoid', 'tanh', 'hardsigmoid', 'hardswish', 'leakyrelu'], [x], tolerance=0,
              opset=14)  # HardSwish


def qdq_small_cnn(root, name, seed_inputs):
    """A small QDQ CNN classifier (conv-relu, depthwise conv-relu6, pointwise conv-relu, GAP,
    Gemm to 10 classes), calibrated on random inputs; several samples."""
    b = qdq_builder()
    xs = [activations(np.int8, (1, 3, 12, 12)) for _ in range(seed_inputs)]
    x_scale, x_zp = np.float32(0.02), np.int8(0)
    real = qref.dequantize(np.concatenate(xs), x_scale, x_zp)
    h, s1, z1 = qdq_conv(b, b.dq('x', x_scale, x_zp), real, x_scale, x_zp, 8, np.int8, True, np.int8, 'relu',
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])
    real = qref.dequantize(qref.run(model_of(b, ['x'], [h], [xs[0]]), [np.concatenate(xs)])[0], s1, z1)
    h, s2, z2 = qdq_conv(b, b.dq(h, s1, z1), real, s1, z1, 8, np.int8, True, np.int8, 'relu6',
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=8)
    real = qref.dequantize(qref.run(model_of(b, ['x'], [h], [xs[0]]), [np.concatenate(xs)])[0], s2, z2)
    h, s3, z3 = qdq_conv(b, b.dq(h, s2, z2), real, s2, z2, 16, np.int8, True, np.int8, 'relu',
                         kernel_shape=[1, 1])
    real = qref.dequantize(qref.run(model_of(b, ['x'], [h], [xs[0]]), [np.concatenate(xs)])[0], s3, z3)
    gap_real = qref.pool(real, {}, True, True)
    gs, gz = calibrate(gap_real, np.int8)
    h = b.q(b.op('GlobalAveragePool', [b.dq(h, s3, z3)]), gs, gz)
    h = b.q(b.op('Flatten', [b.dq(h, gs, gz)]), gs, gz)
    gap_q = qref.dequantize(qref.quantize(gap_real, gs, gz), gs, gz).reshape(len(xs), -1)
    w, w_scale, w_zp = quantize_weights(rng.normal(0, 0.3, (10, 16)), np.int8, True)
    logits_real = gap_q @ qref.dequantize(w, w_scale, w_zp, 0).T
    ls, lz = calibrate(logits_real, np.int8, symmetric=True)
    g = b.op('Gemm', [b.dq(h, gs, gz), b.dq(b.constant(w, 'fc_w'), w_scale, w_zp, 0)], transB=1)
    b.q(g, ls, lz, 'logits')
    for i, x in enumerate(xs):
        save_case(root, '%s_sample%d' % (name, i), b.nodes, b.inits, ['x'], ['logits'], [x], classifier=True)


def model_of(b, inputs, outputs, data):
    graph = helper.make_graph(
        list(b.nodes), 'partial', [helper.make_tensor_value_info(n, ONNX_TYPE[np.dtype(x.dtype)], None)
                                   for n, x in zip(inputs, data)],
        [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in outputs], list(b.inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])


# ---------------------------------------------------------------------------- broken models

def exported_op_cases(root):
    """The ops of issue 14 (models as exporters write them), one case each, golden data from
    the float reference; each within one unit (0 for the lookup table)."""
    # com.microsoft QGemm (ONNX Runtime's quantized Gemm): uint8 A with a zero point, int8 B
    # (transB = 1) per output column, int32 C in accumulator units.
    a = activations(np.uint8, (3, 20))
    a_scale, a_zp = np.float32(0.02), np.uint8(120)
    w, w_scale, w_zp = quantize_weights(rng.normal(0, 0.3, (7, 20)), np.int8, True)
    c = np.rint(rng.normal(0, 0.4, 7) / (np.float64(a_scale) * w_scale.astype(np.float64))).astype(np.int32)
    real = qref.dequantize(a, a_scale, a_zp) @ qref.dequantize(w, w_scale, w_zp, 0).T + \
        c * (np.float64(a_scale) * w_scale.astype(np.float64))
    y_scale, y_zp = calibrate(real, np.uint8)
    inits = [tensor('a_scale', a_scale), tensor('a_zp', a_zp), tensor('w', w), tensor('w_scale', w_scale),
             tensor('w_zp', w_zp), tensor('c', c), tensor('y_scale', y_scale), tensor('y_zp', y_zp)]
    node = helper.make_node('QGemm', ['a', 'a_scale', 'a_zp', 'w', 'w_scale', 'w_zp', 'c', 'y_scale', 'y_zp'], ['y'],
                            name='qgemm', domain='com.microsoft', transB=1, alpha=1.0)
    save_case(root, 'qgemm_u8_per_column', [node], inits, ['a'], ['y'], [a], microsoft=True)

    # ONNX Runtime's Linear as MatMul + Add: QLinearAdd of a run-time tensor and a quantized
    # constant (the bias), and the QDQ form, an Add of a DequantizeLinear of a constant.
    x = activations(np.uint8, (2, 12))
    bias = rng.integers(0, 256, (12,)).astype(np.uint8)
    real = qref.dequantize(x, 0.03, np.uint8(100)) + qref.dequantize(bias, 0.01, np.uint8(140))
    y_scale, y_zp = calibrate(real, np.uint8)
    inits = [tensor('x_scale', np.float32(0.03)), tensor('x_zp', np.uint8(100)), tensor('bias', bias),
             tensor('b_scale', np.float32(0.01)), tensor('b_zp', np.uint8(140)), tensor('y_scale', y_scale),
             tensor('y_zp', y_zp)]
    node = helper.make_node('QLinearAdd', ['x', 'x_scale', 'x_zp', 'bias', 'b_scale', 'b_zp', 'y_scale', 'y_zp'],
                            ['y'], name='qadd_bias', domain='com.microsoft')
    save_case(root, 'qlinearadd_constant_bias_u8', [node], inits, ['x'], ['y'], [x], microsoft=True)
    b = qdq_builder()
    b.q(b.op('Add', [b.dq('x', np.float32(0.03), np.uint8(100)),
                     b.dq(b.constant(bias, 'bias'), np.float32(0.01), np.uint8(140))]), y_scale, y_zp, 'y')
    save_case(root, 'qdq_add_constant_u8', b.nodes, b.inits, ['x'], ['y'], [x])

    # QDQ Concat of inputs in three quantizations (torch's cat), then a QuantizeLinear of its own.
    xs = [activations(np.uint8, (1, c, 5, 5)) for c in (3, 4, 2)]
    params = [(np.float32(0.02), np.uint8(10)), (np.float32(0.05), np.uint8(128)), (np.float32(0.011), np.uint8(0))]
    real = np.concatenate([qref.dequantize(v, sc, z) for v, (sc, z) in zip(xs, params)], axis=1)
    y_scale, y_zp = calibrate(real, np.uint8)
    b = qdq_builder()
    b.q(b.op('Concat', [b.dq('x%d' % i, sc, z) for i, (sc, z) in enumerate(params)], axis=1), y_scale, y_zp, 'y')
    save_case(root, 'qdq_concat_requantize_u8', b.nodes, b.inits, ['x0', 'x1', 'x2'], ['y'], xs)

    # Pools with ceil_mode = 1 (torchvision's GoogLeNet and SqueezeNet): a QDQ MaxPool, and a
    # padded QLinearAveragePool without count_include_pad, with its own output quantization.
    x = activations(np.uint8, (1, 3, 9, 10))
    b = qdq_builder()
    b.q(b.op('MaxPool', [b.dq('x', np.float32(0.04), np.uint8(90))], kernel_shape=[3, 3], strides=[2, 2],
             ceil_mode=1), np.float32(0.04), np.uint8(90), 'y')
    save_case(root, 'qdq_maxpool_ceil_mode_u8', b.nodes, b.inits, ['x'], ['y'], [x])
    xr = qref.dequantize(x, 0.04, np.uint8(90))
    outs, nodes, inits = [], [], [tensor('x_scale', np.float32(0.04)), tensor('x_zp', np.uint8(90))]
    for k, attrs in enumerate((dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0),
                               dict(kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 0, 1], count_include_pad=0,
                                    ceil_mode=1),
                               dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1))):
        p_scale, p_zp = calibrate(qref.pool(xr, attrs, True), np.uint8)
        p_scale = np.float32(p_scale * 0.37)  # a finer output scale than the input's: saturates some
        inits += [tensor('p%d_scale' % k, p_scale), tensor('p%d_zp' % k, p_zp)]
        nodes.append(helper.make_node('QLinearAveragePool', ['x', 'x_scale', 'x_zp', 'p%d_scale' % k, 'p%d_zp' % k],
                                      ['p%d' % k], name='qavgpool%d' % k, domain='com.microsoft', **attrs))
        outs.append('p%d' % k)
    save_case(root, 'qlinear_average_pool_padded_own_scale_u8', nodes, inits, ['x'], outs, [x], microsoft=True)

    # torch's hardswish at opset 13: HardSigmoid(x) * x, one lookup table (exact).
    x = activations(np.uint8, (1, 4, 5, 5))
    b = qdq_builder()
    d = b.dq('x', np.float32(0.05), np.uint8(128))
    b.q(b.op('Mul', [d, b.op('HardSigmoid', [d], alpha=1.0 / 6, beta=0.5)]), np.float32(0.03), np.uint8(20), 'y')
    save_case(root, 'qdq_hardsigmoid_mul_hardswish_u8', b.nodes, b.inits, ['x'], ['y'], [x], tolerance=0)

    # torch's mean over H and W: ReduceMean, keepdims 0 and 1.
    x = activations(np.uint8, (1, 6, 4, 7))
    xr = qref.dequantize(x, 0.05, np.uint8(30))
    m_scale, m_zp = calibrate(xr.mean(axis=(2, 3)), np.uint8)
    b = qdq_builder()
    d = b.dq('x', np.float32(0.05), np.uint8(30))
    b.q(b.op('ReduceMean', [d], axes=[2, 3], keepdims=0), m_scale, m_zp, 'mean')
    b.q(b.op('ReduceMean', [d], axes=[-1, -2], keepdims=1), m_scale, m_zp, 'mean_kept')
    save_case(root, 'qdq_reduce_mean_u8', b.nodes, b.inits, ['x'], ['mean', 'mean_kept'], [x])

    # A Shape-driven Reshape (torch's flatten(2) and x.view(x.size(0), -1)): Shape -> Gather /
    # Slice -> Unsqueeze -> Concat -> Reshape, folded into a constant shape offline.
    x = activations(np.uint8, (1, 6, 3, 5))
    b = qdq_builder()
    d = b.dq('x', np.float32(0.05), np.uint8(30))
    shape = b.op('Shape', [d])
    batch = b.op('Unsqueeze', [b.op('Gather', [shape, b.constant(np.int64(0), 'index')], axis=0),
                               b.constant(np.array([0], np.int64), 'axes')])
    lead = b.op('Slice', [shape, b.constant(np.array([0], np.int64), 'starts'),
                          b.constant(np.array([2], np.int64), 'ends')])
    flat2 = b.op('Concat', [lead, b.constant(np.array([-1], np.int64), 'minus_one')], axis=0)
    flat1 = b.op('Concat', [batch, b.constant(np.array([-1], np.int64), 'minus_one')], axis=0)
    b.q(b.op('Reshape', [d, flat2]), np.float32(0.05), np.uint8(30), 'flatten2')
    b.q(b.op('Reshape', [d, flat1]), np.float32(0.05), np.uint8(30), 'view')
    save_case(root, 'qdq_shape_driven_reshape_u8', b.nodes, b.inits, ['x'], ['flatten2', 'view'], [x], tolerance=0)


def broken_models(root):
    """OUTDIR/broken/<case>.onnx with expected.txt ("case|regex|extra args", as
    check_broken_models.sh reads it): quantized models onnx2hpp must reject naming node and op."""
    directory = os.path.join(root, 'broken')
    os.makedirs(directory, exist_ok=True)
    expected = []

    def save(name, nodes, inits, inputs, outputs, pattern, microsoft=False):
        graph = helper.make_graph(nodes, name, inputs, outputs, inits)
        opsets = [helper.make_opsetid('', 13)] + ([helper.make_opsetid('com.microsoft', 1)] if microsoft else [])
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 8
        onnx.save(model, os.path.join(directory, name + '.onnx'))
        expected.append('%s|%s|' % (name, pattern))

    u8 = TensorProto.UINT8
    common = [tensor('s', np.float32(0.1)), tensor('z', np.uint8(3)), tensor('s2', np.float32(0.2)),
              tensor('z2', np.uint8(7))]
    # A product of two run-time tensors with zero points.
    save('matmul_runtime_zero_points',
         [helper.make_node('QLinearMatMul', ['a', 's', 'z', 'b', 's', 'z', 's2', 'z2'], ['y'], name='qmm')], common,
         [helper.make_tensor_value_info('a', u8, [2, 3]), helper.make_tensor_value_info('b', u8, [3, 4])],
         [helper.make_tensor_value_info('y', u8, [2, 4])],
         r"node 'qmm' \(QLinearMatMul\): a product of two run-time tensors with zero points")
    # A float graph input read by a QuantizeLinear and by another op (only a lone
    # QuantizeLinear is taken off).
    save('float_input_read_twice',
         [helper.make_node('QuantizeLinear', ['x', 's', 'z'], ['y'], name='quant_in'),
          helper.make_node('Relu', ['x'], ['r'], name='relu'),
          helper.make_node('QuantizeLinear', ['r', 's', 'z'], ['y2'], name='quant_relu')], common,
         [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4])],
         [helper.make_tensor_value_info('y', u8, [1, 4]), helper.make_tensor_value_info('y2', u8, [1, 4])],
         r"node 'quant_in' \(QuantizeLinear\): the float graph input 'x' is also read by Relu 'relu'")
    # A Softmax on a dequantized tensor.
    save('softmax_on_dequantized',
         [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
          helper.make_node('Softmax', ['d'], ['e'], name='softmax'),
          helper.make_node('QuantizeLinear', ['e', 's2', 'z2'], ['y'], name='q')], common,
         [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', u8, [1, 4])],
         r"node 'softmax' \(Softmax\): unsupported operator")
    # A Sub on dequantized tensors (a supported op, not folded from QDQ).
    save('sub_on_dequantized',
         [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
          helper.make_node('Sub', ['d', 'd'], ['e'], name='sub'),
          helper.make_node('QuantizeLinear', ['e', 's2', 'z2'], ['y'], name='q')], common,
         [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', u8, [1, 4])],
         r"node 'sub' \(Sub\): this op on a dequantized \(float\) tensor is not supported")
    # A float graph output that is not a DequantizeLinear of an 8-bit tensor (a float op's).
    save('float_output_of_float_op',
         [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
          helper.make_node('Sigmoid', ['d'], ['e'], name='sigmoid')], common,
         [helper.make_tensor_value_info('x', u8, [1, 4])],
         [helper.make_tensor_value_info('e', TensorProto.FLOAT, [1, 4])],
         r"graph output 'e' is a float tensor computed by a float op")
    # A QDQ Concat of inputs in different quantizations that no QuantizeLinear reads.
    save('concat_different_quantization_unquantized',
         [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
          helper.make_node('DequantizeLinear', ['x', 's2', 'z2'], ['d2'], name='dq2'),
          helper.make_node('Concat', ['d', 'd2'], ['c'], name='concat', axis=1),
          helper.make_node('Relu', ['c'], ['r'], name='relu'),
          helper.make_node('QuantizeLinear', ['r', 's', 'z'], ['y'], name='q')], common,
         [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', u8, [1, 8])],
         r"node 'concat' \(Concat\): inputs have different quantization .* not read by QuantizeLinear alone")
    # ceil_mode = 1 that adds an output, with count_include_pad = 1 (those cells would count).
    save('average_pool_ceil_mode_count_include_pad',
         [helper.make_node('QLinearAveragePool', ['x', 's', 'z', 's', 'z'], ['y'], name='qavg', domain='com.microsoft',
                           kernel_shape=[2, 2], strides=[2, 2], count_include_pad=1, ceil_mode=1)], common,
         [helper.make_tensor_value_info('x', u8, [1, 1, 5, 5])], [helper.make_tensor_value_info('y', u8, [1, 1, 3, 3])],
         r"node 'qavg' \(QLinearAveragePool\): ceil_mode = 1 with count_include_pad = 1", microsoft=True)
    # A QGemm with a float output (no y_scale).
    save('qgemm_float_output',
         [helper.make_node('QGemm', ['x', 's', 'z', 'gw', 'gs', 'gz'], ['y'], name='qgemm', domain='com.microsoft',
                           transB=1)],
         common + [tensor('gw', np.ones((3, 4), np.int8)), tensor('gs', np.float32(0.1)), tensor('gz', np.int8(0))],
         [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 3])],
         r"node 'qgemm' \(QGemm\): a QGemm without y_scale", microsoft=True)
    # Per-axis quantization of a run-time tensor.
    save('per_axis_activation',
         [helper.make_node('DequantizeLinear', ['x', 'sv', 'zv'], ['d'], name='dq_axis', axis=1),
          helper.make_node('QuantizeLinear', ['d', 's2', 'z2'], ['y'], name='q')],
         common + [tensor('sv', np.array([0.1, 0.2], np.float32)), tensor('zv', np.array([1, 2], np.uint8))],
         [helper.make_tensor_value_info('x', u8, [1, 2])], [helper.make_tensor_value_info('y', u8, [1, 2])],
         r"node 'dq_axis' \(DequantizeLinear\): a per-axis DequantizeLinear of a run-time tensor")
    # An unsupported com.microsoft op.
    save('qlinear_softmax',
         [helper.make_node('QLinearSoftmax', ['x', 's', 'z', 's2', 'z2'], ['y'], name='qsoftmax',
                           domain='com.microsoft')],
         common, [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', u8, [1, 4])],
         r"node 'qsoftmax' \(QLinearSoftmax\): unsupported operator \(domain 'com.microsoft'\)", microsoft=True)
    # The float output of a Sigmoid read by another op than QuantizeLinear.
    save('sigmoid_not_quantized',
         [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
          helper.make_node('Sigmoid', ['d'], ['e'], name='sigmoid'),
          helper.make_node('Add', ['e', 'd'], ['f'], name='add'),
          helper.make_node('QuantizeLinear', ['f', 's2', 'z2'], ['y'], name='q')], common,
         [helper.make_tensor_value_info('x', u8, [1, 4])], [helper.make_tensor_value_info('y', u8, [1, 4])],
         r"node 'add' \(Add\): input A is the float output of Sigmoid: quantize it")
    with open(os.path.join(directory, 'expected.txt'), 'w') as f:
        f.write('\n'.join(expected) + '\n')


def main():
    root = sys.argv[1]
    broken_models(root)
    qlinear_conv(root, 'qlinearconv_u8_per_tensor', np.uint8, np.int8, False, np.uint8)
    qlinear_conv(root, 'qlinearconv_s8_per_channel_strided', np.int8, np.int8, True, np.int8, strides=(2, 2),
                 pads=(0, 1, 1, 0))
    qlinear_conv(root, 'qlinearconv_u8_weights_depthwise', np.uint8, np.uint8, True, np.uint8, channels=6,
                 filters=6, group=6)
    qlinear_conv(root, 'qlinearconv_pointwise_no_bias', np.uint8, np.int8, True, np.int8, kernel=1, pads=(0, 0, 0, 0),
                 bias=False)
    qlinear_matmul(root, 'qlinearmatmul_u8_per_column', np.uint8, np.int8, True, np.uint8)
    qlinear_matmul(root, 'qlinearmatmul_s8_u8_weights', np.int8, np.uint8, False, np.int8)
    integer_ops(root)
    microsoft_ops(root)
    qdq_cases(root)
    qdq_small_cnn(root, 'qdq_small_cnn', 3)
    elementwise_cases(root)
    qdq_elementwise_cases(root)
    exported_op_cases(root)


if __name__ == '__main__':
    main()
