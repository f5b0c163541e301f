"""Integer numpy reference for onnx2hpp's synthetic test models (run with /usr/bin/python3).

Evaluates the ONNX ops onnx2hpp supports on true integer values (int64), with the dialect's
RequantShift and Tessera's AveragePool rounding (half up: floor((2*sum + count) / (2*count)),
see kernels/tessera/kernels/reference/pool.hpp). It exists to produce golden outputs for
models that exercise converter paths the Deeploy corpus does not reach (average pools,
transposes, layout copies, reshape chains, ...); it is not a general ONNX runtime.
"""
import math

import numpy as np
import onnx
from onnx import numpy_helper


def attributes(node):
    out = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, onnx.TensorProto):
            v = numpy_helper.to_array(v)
        if isinstance(v, bytes):
            v = v.decode()
        out[a.name] = v
    return out


def scalar(v):
    return np.asarray(v).reshape(-1)[0].item()


def conv(x, w, b, strides, pads, dilations, group, pad_value=0):
    """Convolution of (N, C, [H,] W) x with (F, C/group, [KH,] KW) w in the inputs' dtype (int64:
    exact; float64 for quantized_reference.py), padding with `pad_value`."""
    one_d = x.ndim == 3
    if one_d:
        x, w = x[:, :, None, :], w[:, :, None, :]
        strides, dilations, pads = [1] + list(strides), [1] + list(dilations), [0, pads[0], 0, pads[1]]
    n, _, h, width = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=pad_value)
    ho = (h + pads[0] + pads[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (width + pads[1] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((n, f, ho, wo), np.result_type(x, w))
    per_group = f // group
    for o in range(f):
        g = o // per_group
        for i in range(kh):
            for j in range(kw):
                y0, x0 = i * dilations[0], j * dilations[1]
                patch = xp[:, g * cg:(g + 1) * cg, y0:y0 + strides[0] * (ho - 1) + 1:strides[0],
                           x0:x0 + strides[1] * (wo - 1) + 1:strides[1]]
                out[:, o] += np.einsum('nchw,c->nhw', patch, w[o, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out[:, :, 0, :] if one_d else out


def pool(x, kernel, strides, pads, average, count_include_pad=False):
    one_d = x.ndim == 3
    if one_d:
        x = x[:, :, None, :]
        kernel, strides, pads = [1] + list(kernel), [1] + list(strides), [0, pads[0], 0, pads[1]]
    n, c, h, w = x.shape
    ho = (h + pads[0] + pads[2] - kernel[0]) // strides[0] + 1
    wo = (w + pads[1] + pads[3] - kernel[1]) // strides[1] + 1
    out = np.zeros((n, c, ho, wo), np.int64)
    for y in range(ho):
        for xx in range(wo):
            y0, x0 = y * strides[0] - pads[0], xx * strides[1] - pads[1]
            ys, xs, ye, xe = max(y0, 0), max(x0, 0), min(y0 + kernel[0], h), min(x0 + kernel[1], w)
            window = x[:, :, ys:ye, xs:xe]
            if not average:  # padded cells never win
                out[:, :, y, xx] = window.max(axis=(2, 3))
                continue
            if count_include_pad:
                count = ((min(y0 + kernel[0], h + pads[2]) - max(y0, -pads[0])) *
                         (min(x0 + kernel[1], w + pads[3]) - max(x0, -pads[1])))
            else:
                count = (ye - ys) * (xe - xs)
            out[:, :, y, xx] = np.floor_divide(2 * window.sum(axis=(2, 3)) + count, 2 * count)
    return out[:, :, 0, :] if one_d else out


def requant_shift(x, mul, add, div, levels, signed):
    def per_channel(p):  # QuantLib: a vector of C values is per channel (axis 1)
        p = np.asarray(p)
        if p.size > 1 and x.ndim >= 2 and p.size == x.shape[1] and p.shape[0] == p.size:
            return p.reshape([1, -1] + [1] * (x.ndim - 2))
        return p
    shift = int(round(np.log2(div)))
    y = (x * per_channel(mul) + per_channel(add) + ((1 << (shift - 1)) if shift > 0 else 0)) >> shift
    lo, hi = (-(levels // 2), levels // 2 - 1) if signed else (0, levels - 1)
    return np.clip(y, lo, hi)


# Deeploy's integer transformer ops, from docs/semantics.md ("Transformer-era operators"), on
# true values (an unsigned input needs no offset).

def c_divide(n, d):
    """C division (truncation toward zero) of int64 arrays."""
    n, d = np.broadcast_arrays(np.asarray(n, np.int64), np.asarray(d, np.int64))
    q = np.abs(n) // np.where(d == 0, 1, np.abs(d))
    return np.where((n < 0) != (d < 0), -q, q)


def divide_round_half_away(n, d):
    """(n + sign(n) * (d >> 1)) / d with C division; 0 where d == 0."""
    d = np.asarray(d, np.int64)
    return np.where(d == 0, 0, c_divide(n + np.sign(n) * (d >> 1), d))


def integer_mean(x, axes, keepdims):
    axes = tuple(sorted(a % x.ndim for a in axes))
    length = int(np.prod([x.shape[a] for a in axes]))
    acc = x.sum(axis=axes, keepdims=bool(keepdims))
    s = length.bit_length() - 1
    if length == 1 << s:  # a power of two: a rounding shift (half up)
        return (acc + ((1 << s) >> 1)) >> s if s > 0 else acc
    return divide_round_half_away(acc, length)


def hardswish(x, three, six, one_over_six):
    return x * (np.clip(x + three, 0, six) * one_over_six)


def gelu(x, b, one):
    q = np.minimum(np.abs(x), -b)
    d = q + b
    l_ = np.sign(x) * (one - d * d)
    return x * ((one + l_) >> 1)


def integer_div(a, b, delta, eps, eta):
    return divide_round_half_away(delta * eta * a, eta * b + eps)


def true_integer_div_fold(mul, add, div, y, Delta, eps, eta):
    """(mul', add', div') of the RequantShift that reads a TrueIntegerDiv, as Deeploy folds it:
    f = floor(Delta*eta / (y*eta + eps)), mul' = mul*f*256, add' = add*256, div' = div*256
    (the corpus spec; QuantLib's own rounding of the division fails Kernels/Integer/TrueIntegerDiv)."""
    f = int(Delta) * int(eta) // (int(y) * int(eta) + int(eps))
    return np.asarray(mul, np.int64) * f * 256, np.asarray(add, np.int64) * 256, int(div) * 256
# ---------------------------------------------------------------------------- row operators
# The dialect's softmaxes and normalizations over the last axis, on true values, written from
# ../../../../shared/spec/integer-semantics.md and docs/semantics.md (not from the C++ kernels).

def c_div(a, b):
    """C's `/`: truncation toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((np.asarray(a) < 0) != (np.asarray(b) < 0), -q, q)


def isqrt(a):
    """floor(sqrt(a)) elementwise, exact (Python integers)."""
    return np.array([math.isqrt(int(v)) for v in np.ravel(a)], np.int64).reshape(np.shape(a))


def i_softmax(x, coeff_a, coeff_b, coeff_c, log2, levels):
    xt = x - x.max(axis=-1, keepdims=True)
    z = np.clip(-c_div(xt, log2), 0, 31)
    p = xt + z * log2
    y = ((coeff_a * (p + coeff_b) ** 2 + coeff_c) >> z) & 0xffffffff
    s = y.sum(axis=-1, keepdims=True) & 0xffffffff
    return y * (levels - 1) // s


def ita_max(x, levels):
    shift = (x.max(axis=-1, keepdims=True) - x + 16) >> 5
    total = (256 >> shift).sum(axis=-1, keepdims=True)
    return ((levels - 1) * 256 // total) >> shift


def ita_partial_max(x, levels, group_width):
    """ITAMax streamed over column groups; the running max starts at -128 and the numerator is
    (n/2 - 1) * 256: Deeploy's C kernel, which the ICCT_ITA golden data follows."""
    m = np.full(x.shape[:-1] + (1,), -128, np.int64)
    total = np.zeros_like(m)
    for g in range(0, x.shape[-1], group_width):
        group = x[..., g:g + group_width]
        new_m = np.maximum(m, group.max(axis=-1, keepdims=True))
        total = np.where(new_m > m, total >> ((new_m - m + 16) >> 5), total)
        m = new_m
        total = total + (256 >> ((m - group + 16) >> 5)).sum(axis=-1, keepdims=True)
    return ((levels // 2 - 1) * 256 // total) >> ((m - x + 16) >> 5)


def i_rms_norm(x, w, shift, levels):
    r = isqrt((x * x).sum(axis=-1, keepdims=True) // x.shape[-1] + 1)
    return np.clip((x * w // r) >> shift, -(levels // 2), levels // 2 - 1)


def i_layer_norm(x, w, b, shift, levels):
    d = x - x.sum(axis=-1, keepdims=True) // x.shape[-1]
    r = isqrt((d * d).sum(axis=-1, keepdims=True) // x.shape[-1] + 1)
    return np.clip((d * w // r + b) >> shift, -(levels // 2), levels // 2 - 1)


def i_no_norm(x, w, b, mul, shift, levels):
    return np.clip(((x * w + b) * mul) >> shift, -(levels // 2), levels // 2 - 1)


def run(model, inputs):
    """Outputs of `model` (a list of int64 arrays) for `inputs`, given in graph-input order."""
    g = model.graph
    env = {i.name: numpy_helper.to_array(i).astype(np.int64) for i in g.initializer}
    runtime_inputs = [i.name for i in g.input if i.name not in env]
    for name, value in zip(runtime_inputs, inputs):
        env[name] = np.asarray(value).astype(np.int64)
    run_nodes(g.node, env)
    return [env[o.name] for o in g.output]


def node_output(node, x):
    """The first output of one node for its input values `x` (None for an omitted input)."""
    env = {name: value for name, value in zip(node.input, x) if name}
    run_nodes([node], env)
    return env[node.output[0]]


def run_nodes(nodes, env):
    """Evaluates `nodes` in order on `env` (tensor name -> int64 array), adding their outputs."""
    folded = {}  # the output of a TrueIntegerDiv -> its attributes, for the RequantShift that reads it
    for node in nodes:
        a = attributes(node)
        x = [env[i] if i else None for i in node.input]
        op = node.op_type
        spatial = x[0].ndim - 2 if x else 0
        if op == 'Conv':
            y = conv(x[0], x[1], x[2] if len(x) > 2 else None, a.get('strides', [1] * spatial),
                     a.get('pads', [0] * 2 * spatial), a.get('dilations', [1] * spatial), a.get('group', 1))
        elif op in ('MaxPool', 'AveragePool'):
            y = pool(x[0], a['kernel_shape'], a.get('strides', [1] * spatial), a.get('pads', [0] * 2 * spatial),
                     op == 'AveragePool', a.get('count_include_pad', 0))
        elif op == 'GlobalAveragePool':
            y = pool(x[0], list(x[0].shape[2:]), [1] * spatial, [0] * 2 * spatial, True)
        elif op == 'Gemm':
            b = x[1].T if a.get('transB', 0) else x[1]
            y = int(a.get('alpha', 1)) * (x[0] @ b)
            if len(x) > 2:
                y = y + int(a.get('beta', 1)) * x[2]
        elif op == 'MatMul':
            y = np.matmul(x[0], x[1])
        elif op == 'Add':
            y = x[0] + x[1]
        elif op == 'Sub':
            y = x[0] - x[1]
        elif op == 'RequantShift':
            levels = a['n_levels_out'] if 'n_levels_out' in a else a['n_levels']
            mul, add, div = x[1], x[2], scalar(a['div'])
            if node.input[0] in folded:
                mul, add, div = true_integer_div_fold(mul, add, div, **folded[node.input[0]])
            y = requant_shift(x[0], mul, add, div, int(scalar(levels)), int(scalar(a['signed'])))
        elif op == 'TrueIntegerDiv':  # folded into the RequantShift that reads it
            folded[node.output[0]] = {k: int(scalar(a[k])) for k in ('y', 'Delta', 'eps', 'eta')}
            y = x[0]
        elif op == 'Pad':
            rank = x[0].ndim
            value = scalar(x[2]) if len(x) > 2 and x[2] is not None else 0
            y = np.pad(x[0], [(x[1][i], x[1][i + rank]) for i in range(rank)], constant_values=value)
        elif op == 'Reshape':
            y = x[0].reshape([int(d) for d in x[1]])
        elif op == 'Flatten':
            axis = a.get('axis', 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
        elif op == 'Squeeze':
            y = np.squeeze(x[0], axis=tuple(int(d) for d in x[1]))
        elif op == 'Unsqueeze':
            y = x[0]
            for axis in sorted(int(d) for d in x[1]):
                y = np.expand_dims(y, axis)
        elif op == 'Identity':
            y = x[0]
        elif op == 'Transpose':
            y = np.transpose(x[0], a['perm'])
        elif op == 'Concat':
            y = np.concatenate(x, axis=a['axis'])
        elif op == 'Slice':
            starts, ends = x[1], x[2]
            axes = x[3] if len(x) > 3 else range(len(starts))
            steps = x[4] if len(x) > 4 else [1] * len(starts)
            index = [slice(None)] * x[0].ndim
            for s, e, axis, step in zip(starts, ends, axes, steps):
                index[int(axis)] = slice(int(s), int(e), int(step))
            y = x[0][tuple(index)]
        elif op == 'Mul':
            y = x[0] * x[1]
        elif op == 'iHardswish':
            y = hardswish(x[0], a['three'], a['six'], a['one_over_six'])
        elif op == 'iGELU':
            y = gelu(x[0], a['b'], a['one'])
        elif op == 'IntegerDiv':
            y = integer_div(x[0], x[1], a['Delta'], a['eps'], a['eta'])
        elif op in ('ReduceMean', 'IntegerMean', 'ReduceSum'):
            axes = list(x[1]) if len(x) > 1 else a.get('axes', list(range(x[0].ndim)))
            if op == 'ReduceSum':
                y = x[0].sum(axis=tuple(int(v) % x[0].ndim for v in axes), keepdims=bool(a.get('keepdims', 1)))
            else:
                y = integer_mean(x[0], [int(v) for v in axes], a.get('keepdims', 1))
        elif op == 'Gather':
            y = np.take(x[0], x[1], axis=a.get('axis', 0))
        elif op == 'iSoftmax':
            y = i_softmax(x[0], *(int(scalar(a[k])) for k in ('coeffA', 'coeffB', 'coeffC', 'log2', 'n_levels')))
        elif op == 'ITAMax':
            y = ita_max(x[0], int(scalar(a['n_levels'])))
        elif op == 'ITAPartialMax':
            y = ita_partial_max(x[0], int(scalar(a['n_levels'])), int(scalar(a['group_width'])))
        elif op in ('iRMSNorm', 'iLayerNorm', 'iNoNorm'):
            shift, levels = int(round(np.log2(scalar(a['D'])))), int(scalar(a['n_levels']))
            if op == 'iRMSNorm':
                y = i_rms_norm(x[0], x[1], shift, levels)
            elif op == 'iLayerNorm':
                y = i_layer_norm(x[0], x[1], x[2], shift, levels)
            else:
                y = i_no_norm(x[0], x[1], x[2], int(scalar(a['mul'])), shift, levels)
        else:
            raise NotImplementedError(op)
        env[node.output[0]] = y
