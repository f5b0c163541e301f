"""Graphs written the way ONNX Runtime's quantizer (onnxruntime.quantization.quantize_static)
writes them, for make_exported_models.py. That quantizer is a Python package this machine cannot
install, so its two output formats are reproduced here with onnx.helper from a float network
with random weights (fixed seeds) and MinMax calibration on fixed-seed data:

- QOperator: QuantizeLinear of the float input, QLinearConv (a Relu after a Conv is folded into
  the output range), com.microsoft QLinearAdd (also for a MatMul's bias, a quantized constant
  B), QLinearConcat, QLinearAveragePool / QLinearGlobalAveragePool, QGemm, QLinearMatMul,
  MaxPool/Flatten on the integers, DequantizeLinear of the float output;
- QDQ: QuantizeLinear -> DequantizeLinear pairs on every activation, weights as a
  DequantizeLinear of int8 (per output channel for Conv), biases as a DequantizeLinear of int32
  with scale s_x * s_w, the float ops between them, MatMul + Add with the Add's constant as a
  DequantizeLinear of a quantized initializer.

Activations uint8 with zero points (rmin = min(0, min), rmax = max(0, max), scale =
(rmax - rmin) / 255), weights int8 symmetric.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import quantized_reference as qref
import reference


def activation_quantization(values):
    lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
    scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
    zero_point = np.uint8(np.clip(np.rint(-lo / np.float64(scale)), 0, 255))
    return scale, zero_point


def symmetric_weights(w, per_channel):
    axes = tuple(range(1, w.ndim)) if per_channel else None
    m = np.abs(w).max(axis=axes) if per_channel else np.abs(w).max()
    scale = np.asarray(np.maximum(m, 1e-8) / 127.0, np.float32)
    shape = (-1,) + (1,) * (w.ndim - 1) if per_channel else ()
    q = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


class builder:
    """Builds one network in one format ('qoperator' or 'qdq') while evaluating it in float on
    the calibration batch (the float model the quantizer would have been given)."""

    def __init__(self, fmt, name, calibration, rng):
        self.fmt, self.name, self.rng = fmt, name, rng
        self.nodes, self.inits, self.count = [], [], 0
        self.float = {}   # tensor -> float values over the calibration batch
        self.q = {}       # tensor -> (scale, zero point) of its quantized form
        self.shape = list(calibration.shape)
        self.shape[0] = 1
        self.float['input'] = calibration.astype(np.float64)
        self.input_shape = list(self.shape)
        x = self.quantize_activation('input', 'input_quantized')
        self.current = x

    # ------------------------------------------------------------------ helpers
    def fresh(self, base):
        self.count += 1
        return '%s_%d' % (base, self.count)

    def init(self, name, array, dtype=None):
        array = np.asarray(array) if dtype is None else np.asarray(array, dtype)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def qparams(self, tensor):
        s, z = self.q[tensor]
        base = tensor + '_'
        return self.init(base + 'scale', np.float32(s)), self.init(base + 'zero_point', np.uint8(z))

    def quantize_activation(self, float_name, q_name):
        """QuantizeLinear of a float tensor (the graph input, or in QDQ every activation)."""
        self.q[q_name] = activation_quantization(self.float[float_name])
        self.float[q_name] = self.float[float_name]
        s, z = self.qparams(q_name)
        self.nodes.append(helper.make_node('QuantizeLinear', [float_name, s, z], [q_name], name=q_name + '_Q'))
        return q_name

    def dequantized(self, q_name):
        """QDQ: the DequantizeLinear of an activation (one per reader, as the quantizer writes)."""
        s, z = q_name + '_scale', q_name + '_zero_point'
        out = self.fresh(q_name + '_dq')
        self.nodes.append(helper.make_node('DequantizeLinear', [q_name, s, z], [out], name=out))
        return out

    def dequantized_weights(self, name, q, scale, axis=None):
        zp = np.zeros(scale.shape, np.int8)
        self.init(name + '_quantized', q)
        self.init(name + '_scale', scale)
        self.init(name + '_zero_point', zp)
        out = name + '_dq'
        kw = {'axis': axis} if axis is not None and scale.ndim > 0 else {}
        self.nodes.append(helper.make_node('DequantizeLinear', [name + '_quantized', name + '_scale',
                                                                name + '_zero_point'], [out], name=out, **kw))
        return out

    def dequantized_bias(self, name, bias, scale):
        q = np.rint(bias / scale).astype(np.int32)
        self.init(name + '_quantized', q)
        self.init(name + '_scale', np.asarray(scale, np.float32))
        self.init(name + '_zero_point', np.zeros(np.shape(scale), np.int32))
        out = name + '_dq'
        kw = {'axis': 0} if np.ndim(scale) > 0 else {}
        self.nodes.append(helper.make_node('DequantizeLinear', [name + '_quantized', name + '_scale',
                                                                name + '_zero_point'], [out], name=out, **kw))
        return q, out

    def finish_float(self, out, values, relu=False):
        """Records the float result of an op (after a folded Relu) and names its quantized form."""
        self.float[out] = np.maximum(values, 0) if relu else values
        self.q[out] = activation_quantization(self.float[out])
        return out

    # ------------------------------------------------------------------ ops
    def conv(self, x, cout, kernel, stride=1, pad=0, relu=True, group=1, per_channel=True):
        xf = self.float[x]
        cin = xf.shape[1]
        one_d = xf.ndim == 3
        kshape = (cout, cin // group) + ((kernel,) if one_d else (kernel, kernel))
        fan_in = cin // group * kernel ** (1 if one_d else 2)
        w = self.rng.normal(0, np.sqrt(2.0 / fan_in), kshape)
        b = self.rng.normal(0, 0.1, cout)
        k = 1 if one_d else 2
        attrs = {'kernel_shape': [kernel] * k, 'strides': [stride] * k, 'pads': [pad] * 2 * k, 'group': group}
        wq, ws = symmetric_weights(w, per_channel)
        wf = wq.astype(np.float64) * ws.reshape((-1,) + (1,) * (w.ndim - 1) if per_channel else ())
        sx = np.float64(self.q[x][0])
        bscale = (sx * ws.astype(np.float64)).astype(np.float32)
        bq = np.rint(b / bscale).astype(np.int32)
        yf = reference.conv(xf, wf, bq * bscale.astype(np.float64), attrs['strides'], attrs['pads'], [1] * k, group)
        out = self.finish_float(self.fresh('conv'), yf, relu)
        name = out + '_w'
        if self.fmt == 'qoperator':
            s, z = self.qparams(out)
            xs, xz = x + '_scale', x + '_zero_point'
            self.init(name, wq)
            self.init(name + '_scale', ws)
            self.init(name + '_zero_point', np.zeros(ws.shape, np.int8))
            self.init(name + '_bias', bq)
            self.nodes.append(helper.make_node('QLinearConv', [x, xs, xz, name, name + '_scale', name + '_zero_point',
                                                               s, z, name + '_bias'], [out], name=out, **attrs))
            return out
        wd = self.dequantized_weights(name, wq, ws, axis=0)
        _, bd = self.dequantized_bias(name + '_bias', bq * bscale.astype(np.float64), bscale)
        conv_out = out + '_float'
        self.nodes.append(helper.make_node('Conv', [self.dequantized(x), wd, bd], [conv_out], name=out, **attrs))
        if relu:  # the quantizer keeps the Relu in QDQ form
            self.nodes.append(helper.make_node('Relu', [conv_out], [out + '_relu'], name=out + '_relu'))
            conv_out = out + '_relu'
        self.float[conv_out] = self.float[out]
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [conv_out, s, z], [out], name=out + '_Q'))
        return out

    def add(self, a, b, relu=False):
        out = self.finish_float(self.fresh('add'), self.float[a] + self.float[b], relu)
        if self.fmt == 'qoperator':
            s, z = self.qparams(out)
            self.nodes.append(helper.make_node('QLinearAdd', [a, a + '_scale', a + '_zero_point', b, b + '_scale',
                                                              b + '_zero_point', s, z], [out], name=out,
                                               domain='com.microsoft'))
            return out
        f = out + '_float'
        self.nodes.append(helper.make_node('Add', [self.dequantized(a), self.dequantized(b)], [f], name=out))
        if relu:
            self.nodes.append(helper.make_node('Relu', [f], [out + '_relu'], name=out + '_relu'))
            f = out + '_relu'
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def data_movement(self, op, x, values, **attrs):
        """MaxPool, Flatten, Reshape: the integers move, the quantization stays."""
        out = self.fresh(op.lower())
        self.float[out] = values
        self.q[out] = self.q[x]
        extra = []
        if op == 'Reshape':
            extra = [self.init(out + '_shape', np.asarray(attrs.pop('shape'), np.int64))]
        if op == 'Resize':  # X, roi (empty), scales or sizes
            scales, sizes = attrs.pop('scales'), attrs.pop('sizes')
            extra = ['', self.init(out + '_scales', np.asarray(scales, np.float32))] if scales is not None else \
                ['', '', self.init(out + '_sizes', np.asarray(sizes, np.int64))]
        if self.fmt == 'qoperator':
            self.nodes.append(helper.make_node(op, [x] + extra, [out], name=out, **attrs))
            self.inits.append(numpy_helper.from_array(np.float32(self.q[x][0]), out + '_scale'))
            self.inits.append(numpy_helper.from_array(np.uint8(self.q[x][1]), out + '_zero_point'))
            return out
        f = out + '_float'
        self.nodes.append(helper.make_node(op, [self.dequantized(x)] + extra, [f], name=out, **attrs))
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def max_pool(self, x, kernel, stride, pad=0, ceil_mode=0):
        a = {'kernel_shape': [kernel, kernel], 'strides': [stride, stride], 'pads': [pad] * 4, 'ceil_mode': ceil_mode}
        return self.data_movement('MaxPool', x, qref.pool(self.float[x], a, False), **a)

    def resize(self, x, mode, transform, nearest_mode=None, scales=None, sizes=None):
        """Resize with constant scales or sizes; the quantizer keeps its input's quantization
        (QOperator: a Resize of the integers; QDQ: QuantizeLinear to the input's parameters)."""
        a = {'mode': mode, 'coordinate_transformation_mode': transform}
        if nearest_mode is not None:
            a['nearest_mode'] = nearest_mode
        batch_sizes = None if sizes is None else [self.float[x].shape[0]] + list(sizes[1:])  # over the batch
        values = qref.resize(self.float[x], a, scales, batch_sizes)
        return self.data_movement('Resize', x, values, scales=scales, sizes=sizes, **a)

    def flatten(self, x):
        v = self.float[x]
        return self.data_movement('Flatten', x, v.reshape(v.shape[0], -1), axis=1)

    def average_pool(self, x, kernel, stride, pad, count_include_pad=0, ceil_mode=0, global_pool=False):
        a = {} if global_pool else {'kernel_shape': [kernel, kernel], 'strides': [stride, stride], 'pads': [pad] * 4,
                                    'count_include_pad': count_include_pad, 'ceil_mode': ceil_mode}
        out = self.finish_float(self.fresh('gap' if global_pool else 'avgpool'),
                                qref.pool(self.float[x], a, True, global_pool))
        op = 'GlobalAveragePool' if global_pool else 'AveragePool'
        if self.fmt == 'qoperator':
            s, z = self.qparams(out)
            extra = {'channels_last': 0} if global_pool else a
            self.nodes.append(helper.make_node('QLinear' + op, [x, x + '_scale', x + '_zero_point', s, z], [out],
                                               name=out, domain='com.microsoft', **extra))
            return out
        f = out + '_float'
        self.nodes.append(helper.make_node(op, [self.dequantized(x)], [f], name=out, **a))
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def concat(self, parts):
        out = self.finish_float(self.fresh('concat'), np.concatenate([self.float[p] for p in parts], axis=1))
        if self.fmt == 'qoperator':
            s, z = self.qparams(out)
            ins = [s, z]
            for p in parts:
                ins += [p, p + '_scale', p + '_zero_point']
            self.nodes.append(helper.make_node('QLinearConcat', ins, [out], name=out, domain='com.microsoft', axis=1))
            return out
        f = out + '_float'
        self.nodes.append(helper.make_node('Concat', [self.dequantized(p) for p in parts], [f], name=out, axis=1))
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def gemm(self, x, n, relu=False):
        """A Linear layer as the quantizer writes Gemm: QGemm (QOperator) or DQ -> Gemm -> Q."""
        xf = self.float[x]
        k = xf.shape[1]
        w = self.rng.normal(0, np.sqrt(2.0 / k), (n, k))
        b = self.rng.normal(0, 0.1, n)
        wq, ws = symmetric_weights(w, False)
        sx = np.float64(self.q[x][0])
        bscale = np.float32(sx * np.float64(ws))
        bq = np.rint(b / bscale).astype(np.int32)
        yf = xf @ (wq.astype(np.float64) * np.float64(ws)).T + bq * np.float64(bscale)
        out = self.finish_float(self.fresh('gemm'), yf, relu)
        name = out + '_w'
        if self.fmt == 'qoperator':
            s, z = self.qparams(out)
            self.init(name, wq)
            self.init(name + '_scale', ws)
            self.init(name + '_zero_point', np.int8(0))
            self.init(name + '_bias', bq)
            self.nodes.append(helper.make_node('QGemm', [x, x + '_scale', x + '_zero_point', name, name + '_scale',
                                                         name + '_zero_point', name + '_bias', s, z], [out],
                                               name=out, domain='com.microsoft', transB=1, alpha=1.0))
            return out
        wd = self.dequantized_weights(name, wq, ws)
        _, bd = self.dequantized_bias(name + '_bias', bq * np.float64(bscale), bscale)
        f = out + '_float'
        self.nodes.append(helper.make_node('Gemm', [self.dequantized(x), wd, bd], [f], name=out, transB=1))
        if relu:
            self.nodes.append(helper.make_node('Relu', [f], [out + '_relu'], name=out + '_relu'))
            f = out + '_relu'
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def matmul_add(self, x, n):
        """A Linear layer as the quantizer writes MatMul + Add: the MatMul quantized on its own
        (QLinearMatMul, or DQ -> MatMul -> Q), then the bias Add of a quantized constant
        (QLinearAdd with a constant B, or DQ -> Add(DQ(bias)) -> Q)."""
        xf = self.float[x]
        k = xf.shape[-1]
        w = self.rng.normal(0, np.sqrt(2.0 / k), (k, n))
        b = self.rng.normal(0, 0.3, n)
        wq, ws = symmetric_weights(w, False)
        mm = self.finish_float(self.fresh('matmul'), xf @ (wq.astype(np.float64) * np.float64(ws)))
        bias_s, bias_z = activation_quantization(b)
        bq = np.clip(np.rint(b / np.float64(bias_s)) + bias_z, 0, 255).astype(np.uint8)
        bf = (bq.astype(np.float64) - bias_z) * np.float64(bias_s)
        out = self.finish_float(self.fresh('add'), self.float[mm] + bf)
        name = mm + '_w'
        if self.fmt == 'qoperator':
            s, z = self.qparams(mm)
            self.init(name, wq)
            self.init(name + '_scale', ws)
            self.init(name + '_zero_point', np.int8(0))
            self.nodes.append(helper.make_node('QLinearMatMul', [x, x + '_scale', x + '_zero_point', name,
                                                                 name + '_scale', name + '_zero_point', s, z], [mm],
                                               name=mm))
            self.init(out + '_b', bq)
            self.init(out + '_b_scale', np.float32(bias_s))
            self.init(out + '_b_zero_point', np.uint8(bias_z))
            s, z = self.qparams(out)
            self.nodes.append(helper.make_node('QLinearAdd', [mm, mm + '_scale', mm + '_zero_point', out + '_b',
                                                              out + '_b_scale', out + '_b_zero_point', s, z], [out],
                                               name=out, domain='com.microsoft'))
            return out
        wd = self.dequantized_weights(name, wq, ws)
        f = mm + '_float'
        self.nodes.append(helper.make_node('MatMul', [self.dequantized(x), wd], [f], name=mm))
        s, z = self.qparams(mm)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [mm], name=mm + '_Q'))
        self.init(out + '_b', bq)
        self.init(out + '_b_scale', np.float32(bias_s))
        self.init(out + '_b_zero_point', np.uint8(bias_z))
        self.nodes.append(helper.make_node('DequantizeLinear', [out + '_b', out + '_b_scale', out + '_b_zero_point'],
                                           [out + '_b_dq'], name=out + '_b_dq'))
        f = out + '_float'
        self.nodes.append(helper.make_node('Add', [self.dequantized(mm), out + '_b_dq'], [f], name=out))
        s, z = self.qparams(out)
        self.nodes.append(helper.make_node('QuantizeLinear', [f, s, z], [out], name=out + '_Q'))
        return out

    def model(self, last):
        """Ends with DequantizeLinear to the float output, as the quantizer leaves it."""
        s, z = last + '_scale', last + '_zero_point'
        self.nodes.append(helper.make_node('DequantizeLinear', [last, s, z], ['output'], name='output_DQ'))
        shape = list(self.float[last].shape)
        shape[0] = 1
        seen, inits = set(), []
        for t in self.inits:  # one initializer per name (scales of shared tensors are written once)
            if t.name not in seen:
                seen.add(t.name)
                inits.append(t)
        graph = helper.make_graph(self.nodes, self.name,
                                  [helper.make_tensor_value_info('input', TensorProto.FLOAT, self.input_shape)],
                                  [helper.make_tensor_value_info('output', TensorProto.FLOAT, shape)], inits)
        opsets = [helper.make_opsetid('', 13), helper.make_opsetid('com.microsoft', 1)]
        m = helper.make_model(graph, opset_imports=opsets, producer_name='onnx2hpp testing (ORT quantizer form)')
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


# ---------------------------------------------------------------------------- networks

def resnet8(b):
    x = b.conv(b.current, 8, 3, 1, 1)
    for cout, stride in ((8, 1), (16, 2), (32, 2)):
        y = b.conv(x, cout, 3, stride, 1)
        y = b.conv(y, cout, 3, 1, 1, relu=False)
        short = x if stride == 1 and b.float[x].shape[1] == cout else b.conv(x, cout, 1, stride, 0, relu=False)
        x = b.add(y, short, relu=True)
    x = b.flatten(b.average_pool(x, None, None, None, global_pool=True))
    return b.gemm(x, 10)


def kws_1d(b):
    x = b.conv(b.current, 16, 3, 1, 1)
    x = b.conv(x, 24, 3, 2, 1)
    x = b.conv(x, 24, 3, 1, 1, group=24)
    x = b.conv(x, 32, 1, 1, 0)
    x = b.conv(x, 32, 3, 2, 1)
    x = b.flatten(b.average_pool(x, None, None, None, global_pool=True))
    return b.matmul_add(x, 12)


def inception(b):
    x = b.conv(b.current, 16, 3, 1, 1)
    x = b.max_pool(x, 3, 2, 0, ceil_mode=1)
    b1 = b.conv(x, 8, 1)
    b2 = b.conv(b.conv(x, 6, 1), 8, 3, 1, 1)
    b3 = b.conv(b.conv(x, 4, 1), 4, 5, 1, 2)
    b4 = b.conv(b.max_pool(x, 3, 1, 1), 4, 1)
    x = b.concat([b1, b2, b3, b4])
    x = b.average_pool(x, 3, 2, 1, count_include_pad=0)
    x = b.conv(x, 16, 1)
    x = b.flatten(b.average_pool(x, None, None, None, global_pool=True))
    return b.gemm(x, 10)


def upsampler(b):
    """Resize both ways ONNX Runtime's quantizer leaves it: bilinear x2 by scales (asymmetric,
    5x7 -> 10x14) and nearest by sizes (pytorch_half_pixel, round_prefer_ceil, 5x7 -> 7x9)."""
    x = b.conv(b.current, 6, 3, 1, 1)
    x = b.resize(x, 'linear', 'asymmetric', scales=[1, 1, 2, 2])
    x = b.conv(x, 6, 3, 2, 1)
    x = b.resize(x, 'nearest', 'pytorch_half_pixel', 'round_prefer_ceil', sizes=[1, 6, 7, 9])
    x = b.conv(x, 8, 3, 1, 1)
    x = b.flatten(b.average_pool(x, None, None, None, global_pool=True))
    return b.gemm(x, 10)


def gemm_head(b):
    x = b.gemm(b.current, 32, relu=True)
    x = b.gemm(x, 16, relu=True)
    return b.gemm(x, 10)


NETWORKS = {'resnet8': (resnet8, (3, 32, 32)), 'kws_1d': (kws_1d, (10, 49)), 'inception': (inception, (8, 17, 17)),
            'gemm_head': (gemm_head, (64,)), 'upsampler': (upsampler, (3, 5, 7))}


def build(net, fmt, calibration, seed):
    function, _ = NETWORKS[net]
    b = builder(fmt, 'ort_%s_%s' % (net, fmt), calibration, np.random.default_rng(seed))
    return b.model(function(b))
