"""Float reference of standard quantized ONNX (run with /usr/bin/python3, which has onnx + numpy).

Evaluates a QDQ or QOperator model the way the ONNX specification defines it: DequantizeLinear
gives real values scale * (q - zero_point), the float op runs in float64, and QuantizeLinear
rounds half to even and saturates. The QOperator ops are evaluated through their definition
(dequantize, float op, quantize); ConvInteger/MatMulInteger are exact integer ops. The golden
outputs of onnx2hpp's quantized test models come from here, never from Tessera.
"""
import math
from fractions import Fraction

import numpy as np
import onnx
from onnx import numpy_helper

import reference


def attributes(node):
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        out[a.name] = v
    return out


def per_axis(p, rank, axis):
    p = np.asarray(p, np.float64)
    if p.size == 1:
        return p.reshape(())
    shape = [1] * rank
    shape[axis] = p.size
    return p.reshape(shape)


def dequantize(q, scale, zero_point, axis=1):
    q = np.asarray(q)
    zp = np.zeros(1) if zero_point is None else zero_point
    return (q.astype(np.float64) - per_axis(zp, q.ndim, axis)) * per_axis(scale, q.ndim, axis)


def quantize(x, scale, zero_point):
    dtype = np.uint8 if zero_point is None else np.asarray(zero_point).dtype
    zp = 0 if zero_point is None else np.asarray(zero_point, np.float64).reshape(())
    info = np.iinfo(dtype)
    y = np.rint(x / np.float64(np.asarray(scale).reshape(()))) + zp
    return np.clip(y, info.min, info.max).astype(dtype)


def conv(x, w, b, a, pad_value=0.0):
    """Float (or exact integer, in float64) convolution with ONNX attributes `a`."""
    k = x.ndim - 2
    strides = list(a.get('strides', [1] * k))
    dilations = list(a.get('dilations', [1] * k))
    pads = list(a.get('pads', [0] * 2 * k))
    return reference.conv(x.astype(np.float64), w.astype(np.float64),
                          None if b is None else np.asarray(b, np.float64), strides, pads, dilations,
                          a.get('group', 1), pad_value)


def pool(x, a, average, global_pool=False):
    one_d = x.ndim == 3
    if one_d:
        x = x[:, :, None, :]
    n, c, h, w = x.shape
    if global_pool:
        kernel, strides, pads = [h, w], [1, 1], [0, 0, 0, 0]
    else:
        kernel, strides = list(a['kernel_shape']), list(a.get('strides', [1] * len(a['kernel_shape'])))
        pads = list(a.get('pads', [0] * (2 * len(kernel))))
        if one_d:
            kernel, strides, pads = [1] + kernel, [1] + strides, [0, pads[0], 0, pads[1]]
    include = a.get('count_include_pad', 0)

    def extent(size, k, s, p0, p1):
        room = size + p0 + p1 - k
        if not a.get('ceil_mode', 0):
            return room // s + 1
        out = -(-room // s) + 1  # ceil; a window starting in the end padding is dropped
        return out - 1 if (out - 1) * s >= size + p0 else out
    ho, wo = extent(h, kernel[0], strides[0], pads[0], pads[2]), extent(w, kernel[1], strides[1], pads[1], pads[3])
    out = np.zeros((n, c, ho, wo), np.float64)
    for y in range(ho):
        for xx in range(wo):
            y0, x0 = y * strides[0] - pads[0], xx * strides[1] - pads[1]
            ys, xs, ye, xe = max(y0, 0), max(x0, 0), min(y0 + kernel[0], h), min(x0 + kernel[1], w)
            window = x[:, :, ys:ye, xs:xe].astype(np.float64)
            if not average:
                out[:, :, y, xx] = window.max(axis=(2, 3))
                continue
            count = (ye - ys) * (xe - xs)
            if include:
                count = ((min(y0 + kernel[0], h + pads[2]) - max(y0, -pads[0])) *
                         (min(x0 + kernel[1], w + pads[3]) - max(x0, -pads[1])))
            out[:, :, y, xx] = window.sum(axis=(2, 3)) / count
    if not average:
        out = out.astype(x.dtype)
    return out[:, :, 0, :] if one_d else out


def resize(x, a, scales=None, sizes=None):
    """Float ONNX Resize (opset 11+) in float64, modes nearest and linear, from the formulas of
    the ONNX specification evaluated on real numbers: per resized axis the coordinate transform
    with the given scale (its exact float value) or output / input for sizes, computed as an
    exact fraction so that a coordinate on a rounding boundary is not moved by float rounding;
    nearest_mode rounding, or linear interpolation between the two neighbours with the float
    weight of that fraction (coordinates outside [0, in - 1] read the edge). Axes resize one
    after another (bilinear is the product of two linear interpolations); an axis whose extent
    and scale stay is copied."""
    mode = a.get('mode', 'nearest')
    transform = a.get('coordinate_transformation_mode', 'half_pixel')
    rounding = a.get('nearest_mode', 'round_prefer_floor')
    if mode not in ('nearest', 'linear'):
        raise NotImplementedError('Resize mode ' + mode)
    half = Fraction(1, 2)
    y = np.asarray(x, np.float64)
    for axis in range(y.ndim):
        extent = y.shape[axis]
        if sizes is not None:
            out = int(sizes[axis])
            scale = Fraction(out, extent)
        else:
            scale = Fraction(float(scales[axis]))
            out = int(np.floor(extent * float(scales[axis])))
        if out == extent and scale == 1:
            continue
        coords = []
        for o in range(out):
            if transform == 'half_pixel' or (transform == 'pytorch_half_pixel' and out > 1):
                coords.append((o + half) / scale - half)
            elif transform == 'align_corners' and out > 1:
                coords.append(Fraction(o * (extent - 1), out - 1))
            elif transform in ('pytorch_half_pixel', 'align_corners'):
                coords.append(Fraction(0))
            elif transform == 'asymmetric':
                coords.append(o / scale)
            else:
                raise NotImplementedError('coordinate_transformation_mode ' + transform)
        moved = np.moveaxis(y, axis, -1)
        if mode == 'nearest':
            pick = {'round_prefer_floor': lambda c: math.ceil(c - half), 'round_prefer_ceil': lambda c: math.floor(c + half),
                    'floor': math.floor, 'ceil': math.ceil}[rounding]
            index = np.array([min(max(pick(c), 0), extent - 1) for c in coords], np.int64)
            moved = moved[..., index]
        else:
            clamped = [min(max(c, Fraction(0)), Fraction(extent - 1)) for c in coords]
            lo = np.array([math.floor(c) for c in clamped], np.int64)
            hi = np.minimum(lo + 1, extent - 1)
            r = np.array([float(c - math.floor(c)) for c in clamped])
            moved = moved[..., lo] * (1 - r) + moved[..., hi] * r
        y = np.moveaxis(moved, -1, axis)
    return y


def resize_inputs(ins):
    """(scales, sizes) of a Resize's inputs (opset 11+: X, roi, scales, sizes); absent or empty -> None."""
    def given(v):
        return None if v is None or np.asarray(v).size == 0 else np.asarray(v).reshape(-1)
    return given(ins[2]), given(ins[3])


def float_function(op, a):
    """The float definition of an elementwise op, written as onnx2hpp's lookup tables evaluate it
    (float attributes are the float32 values the model stores)."""
    if op in ('Sigmoid', 'QLinearSigmoid'):
        return lambda x: 1.0 / (1.0 + np.exp(-x))
    if op == 'Tanh':
        return np.tanh
    if op == 'HardSwish':
        return lambda x: x * np.maximum(0.0, np.minimum(1.0, x / 6.0 + 0.5))
    if op == 'HardSigmoid':
        alpha, beta = float(np.float32(a.get('alpha', 0.2))), float(np.float32(a.get('beta', 0.5)))
        return lambda x: np.maximum(0.0, np.minimum(1.0, alpha * x + beta))
    if op in ('LeakyRelu', 'QLinearLeakyRelu'):
        alpha = float(np.float32(a.get('alpha', 0.01)))
        return lambda x: np.where(x >= 0, x, alpha * x)
    return None


def run(model, inputs, forced=None, differences=None):
    """The graph outputs of `model` (a ModelProto) for the graph inputs `inputs` (a list).

    With `forced` (tensor name -> integers), each listed tensor is compared with the float
    reference's value (largest |difference| into `differences[name]`) and then replaced by the
    forced value: every op is evaluated on the inputs another implementation gave it, which
    measures each op's own error rather than the errors it inherits."""
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in env]
    for name, value in zip(names, inputs):
        env[name] = value
    opset = {o.domain: o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')}.get('', 13)

    for node in model.graph.node:
        a = attributes(node)
        ins = [env[i] if i else None for i in node.input]
        ins += [None] * 10
        op = node.op_type
        if op == 'Constant':
            y = numpy_helper.to_array(a['value'])
        elif op == 'DequantizeLinear':
            y = dequantize(ins[0], ins[1], ins[2], a.get('axis', 1))
        elif op == 'QuantizeLinear':
            y = quantize(ins[0], ins[1], ins[2])
        elif op == 'QLinearConv':
            x = dequantize(ins[0], ins[1], ins[2])
            w = dequantize(ins[3], ins[4], ins[5], 0)
            bias_scale = (np.float64(ins[1]) * np.asarray(ins[4], np.float64)).reshape(-1)
            b = None if ins[8] is None else ins[8].astype(np.float64) * bias_scale
            y = quantize(conv(x, w, b, a), ins[6], ins[7])
        elif op == 'QLinearMatMul':
            x = dequantize(ins[0], ins[1], ins[2])
            w = dequantize(ins[3], ins[4], ins[5], ins[3].ndim - 1)
            y = quantize(np.matmul(x, w), ins[6], ins[7])
        elif op == 'ConvInteger':
            x = ins[0].astype(np.float64) - (0 if ins[2] is None else np.float64(ins[2]))
            w = ins[1].astype(np.float64) - (0 if ins[3] is None else per_axis(ins[3], ins[1].ndim, 0))
            y = conv(x, w, None, a).astype(np.int32)
        elif op == 'MatMulInteger':
            x = ins[0].astype(np.int64) - (0 if ins[2] is None else np.int64(np.asarray(ins[2]).reshape(())))
            w = ins[1].astype(np.int64) - (0 if ins[3] is None else np.asarray(ins[3], np.int64))
            y = np.matmul(x, w).astype(np.int32)
        elif op == 'QLinearAdd':
            y = quantize(dequantize(ins[0], ins[1], ins[2]) + dequantize(ins[3], ins[4], ins[5]), ins[6], ins[7])
        elif op == 'QLinearMul':
            y = quantize(dequantize(ins[0], ins[1], ins[2]) * dequantize(ins[3], ins[4], ins[5]), ins[6], ins[7])
        elif op in ('QLinearSigmoid', 'QLinearLeakyRelu'):
            y = quantize(float_function(op, a)(dequantize(ins[0], ins[1], ins[2])), ins[3], ins[4])
        elif float_function(op, a) is not None:
            y = float_function(op, a)(ins[0])
        elif op == 'QLinearConcat':
            parts = [dequantize(ins[i], ins[i + 1], ins[i + 2]) for i in range(2, len(node.input), 3)]
            y = quantize(np.concatenate(parts, axis=a['axis']), ins[0], ins[1])
        elif op in ('QLinearAveragePool', 'QLinearGlobalAveragePool'):
            x = dequantize(ins[0], ins[1], ins[2])
            y = quantize(pool(x, a, True, op == 'QLinearGlobalAveragePool'), ins[3], ins[4])
        elif op == 'QGemm':  # com.microsoft: A, a_scale, a_zp, B, b_scale, b_zp, C, y_scale, y_zp
            aa = dequantize(ins[0], ins[1], ins[2])
            bb = dequantize(ins[3], ins[4], ins[5], 0 if a.get('transB', 0) else 1)
            aa = aa.T if a.get('transA', 0) else aa
            bb = bb.T if a.get('transB', 0) else bb
            y = a.get('alpha', 1.0) * (aa @ bb)
            if ins[6] is not None:
                c_scale = np.float64(ins[1]) * np.asarray(ins[4], np.float64).reshape(-1)
                y = y + ins[6].astype(np.float64) * c_scale
            y = y if ins[7] is None else quantize(y, ins[7], ins[8])
        elif op == 'Shape':
            y = np.asarray(np.shape(ins[0]), np.int64)[a.get('start', 0):a.get('end', None)]
        elif op == 'Gather':
            y = np.take(ins[0], np.asarray(ins[1], np.int64), axis=a.get('axis', 0))
        elif op == 'Slice':  # opset >= 10: starts, ends, axes, steps as inputs
            y = np.asarray(ins[0])
            axes = list(range(len(ins[1]))) if ins[3] is None else [int(v) for v in ins[3]]
            steps = [1] * len(axes) if ins[4] is None else [int(v) for v in ins[4]]
            index = [slice(None)] * y.ndim
            for axis, start, end, step in zip(axes, ins[1], ins[2], steps):
                index[axis] = slice(int(start), int(end), step)
            y = y[tuple(index)]
        elif op == 'Unsqueeze':
            y = np.asarray(ins[0])
            axes = a.get('axes') if ins[1] is None else list(ins[1])
            for axis in sorted(int(x) % (y.ndim + len(axes)) for x in axes):
                y = np.expand_dims(y, axis)
        elif op == 'Concat':
            y = np.concatenate(ins[:len(node.input)], axis=a['axis'])
        elif op == 'ReduceMean':
            axes = a.get('axes') if ins[1] is None else list(ins[1])
            axes = tuple(range(ins[0].ndim)) if axes is None else tuple(int(x) for x in axes)
            y = np.mean(ins[0], axis=axes, keepdims=bool(a.get('keepdims', 1)))
        elif op == 'Conv':
            y = conv(ins[0], ins[1], ins[2], a)
        elif op == 'Gemm':
            aa = ins[0].T if a.get('transA', 0) else ins[0]
            bb = ins[1].T if a.get('transB', 0) else ins[1]
            y = a.get('alpha', 1.0) * (aa @ bb)
            if ins[2] is not None:
                y = y + a.get('beta', 1.0) * ins[2]
        elif op == 'MatMul':
            y = np.matmul(ins[0], ins[1])
        elif op == 'Add':
            y = ins[0] + ins[1]
        elif op == 'Mul':
            y = ins[0] * ins[1]
        elif op == 'Relu':
            y = np.maximum(ins[0], 0)
        elif op == 'Clip':
            lo, hi = (a.get('min', -np.inf), a.get('max', np.inf)) if opset < 11 else (ins[1], ins[2])
            y = np.clip(ins[0], -np.inf if lo is None else lo, np.inf if hi is None else hi)
        elif op in ('MaxPool', 'AveragePool'):
            y = pool(ins[0], a, op == 'AveragePool')
        elif op in ('GlobalAveragePool', 'GlobalMaxPool'):
            y = pool(ins[0], a, op == 'GlobalAveragePool', True)
        elif op == 'Reshape':
            shape = [d if d != 0 else ins[0].shape[i] for i, d in enumerate(ins[1])]
            y = ins[0].reshape(shape)
        elif op == 'Flatten':
            axis = a.get('axis', 1)
            y = ins[0].reshape(int(np.prod(ins[0].shape[:axis])), -1)
        elif op == 'Cast':  # float to integer truncates, as ONNX does
            y = np.asarray(ins[0]).astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a['to']])
        elif op == 'ConstantOfShape':
            value = numpy_helper.to_array(a['value']).reshape(-1) if 'value' in a else np.zeros(1, np.float32)
            y = np.full([int(d) for d in ins[0]], value[0], value.dtype)
        elif op == 'Pad':
            pads = list(a['pads']) if opset < 11 else [int(p) for p in ins[1]]
            value = a.get('value', 0.0) if opset < 11 else (0 if ins[2] is None else np.asarray(ins[2]).item())
            if a.get('mode', 'constant') != 'constant':
                raise NotImplementedError('Pad mode ' + a['mode'])
            rank = ins[0].ndim
            y = np.pad(ins[0], [(pads[i], pads[i + rank]) for i in range(rank)], constant_values=value)
        elif op == 'Resize':
            if opset < 11:
                raise NotImplementedError('Resize before opset 11')
            scales, sizes = resize_inputs(ins)
            x = ins[0]
            y = resize(x, a, scales, sizes)
            if np.issubdtype(np.asarray(x).dtype, np.integer):  # QOperator: the integers, same quantization
                info = np.iinfo(np.asarray(x).dtype)
                y = np.clip(np.rint(y), info.min, info.max).astype(np.asarray(x).dtype)
        else:
            raise NotImplementedError(op)
        if forced is not None and node.output[0] in forced:
            given = np.asarray(forced[node.output[0]])
            differences[node.output[0]] = int(np.abs(given.astype(np.int64) - np.asarray(y).astype(np.int64)).max())
            y = given.astype(np.asarray(y).dtype)
        env[node.output[0]] = y
    return [env[o.name] for o in model.graph.output]
