#!/usr/bin/python3
"""Generates onnx2hpp's own test models (run with /usr/bin/python3, which has onnx + numpy).

    make_test_models.py OUTDIR

OUTDIR/supported/<case>/ hold network.onnx, inputs.npz and outputs.npz, laid out like a
corpus case (golden outputs from reference.py): each exercises converter paths the Deeploy
corpus does not reach. OUTDIR/broken/<case>.onnx are models onnx2hpp must reject, and
OUTDIR/broken/expected.txt lists "case|regular expression of the error|extra arguments".
A corpus model, when given (--corpus DIR), seeds the broken models that damage a real file.
"""
import argparse
import copy
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

rng = np.random.default_rng(1)


# ---------------------------------------------------------------------------- building blocks

def weights(name, *shape, lo=-20, hi=20):
    return numpy_helper.from_array(rng.integers(lo, hi, shape).astype(np.float32), name)


def int64s(name, values):
    return numpy_helper.from_array(np.asarray(values, np.int64), name)


def floats(name, values):
    return numpy_helper.from_array(np.asarray(values, np.float32), name)


def requant(name, x, y, channels=None, signed=1, div=2 ** 10, levels=256):
    """A RequantShift node (default domain, as QuantLib exports it) and its constants."""
    shape = [channels, 1, 1] if channels else []
    mul = floats(name + '.mul', rng.integers(1, 8, shape) if channels else rng.integers(1, 8))
    add = floats(name + '.add', rng.integers(-500, 500, shape) if channels else 0)
    node = helper.make_node('RequantShift', [x, mul.name, add.name], [y], name=name, div=float(div),
                            n_levels_out=[float(levels)], signed=[float(signed)])
    return node, [mul, add]


def value(name, shape, elem_type=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem_type, shape)


def u8(*shape):
    return rng.integers(0, 256, shape)


def s8(*shape):
    return rng.integers(-128, 128, shape)


def save_case(root, name, nodes, initializers, inputs, outputs, data, opset=13):
    graph = helper.make_graph(nodes, name, [value(n, s) for n, s in inputs], [value(n, None) for n in outputs],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)])
    model.ir_version = 8
    golden = reference.run(model, data)
    # ONNX 1.12's checker wants output shapes: declare the ones the reference computed.
    model.graph.ClearField('output')
    model.graph.output.extend([value(n, list(y.shape)) for n, y in zip(outputs, golden)])
    directory = os.path.join(root, name)
    os.makedirs(directory, exist_ok=True)
    onnx.save(model, os.path.join(directory, 'network.onnx'))
    np.savez(os.path.join(directory, 'inputs.npz'), *[x.astype(np.int64) for x in data])
    np.savez(os.path.join(directory, 'outputs.npz'), *[y.astype(np.int64) for y in golden])


# ---------------------------------------------------------------------------- supported cases

def supported_cases(root):
    # A zero Pad folded into a strided Conv with bias; per-channel requant; NHWC output.
    rq, c = requant('rq', 'c', 'y', channels=8)
    save_case(root, 'pad_conv_fold', [
        helper.make_node('Pad', ['x', 'pads', ''], ['xp'], name='pad', mode='constant'),
        helper.make_node('Conv', ['xp', 'w', 'b'], ['c'], name='conv', kernel_shape=[3, 3], strides=[2, 1]), rq],
        [int64s('pads', [0, 0, 1, 2, 0, 0, 1, 0]), weights('w', 8, 3, 3, 3), weights('b', 8, lo=-999, hi=999)] + c,
        [('x', [1, 3, 8, 8])], ['y'], [u8(1, 3, 8, 8)])

    # Concat on the channels of NHWC maps, strided channel Slice, padded MaxPool, and a
    # Flatten graph output (which must come out in ONNX order: a transpose is inserted).
    rq_a, c_a = requant('rq_a', 'ca', 'ya', channels=4)
    rq_b, c_b = requant('rq_b', 'cb', 'yb', channels=6)
    save_case(root, 'concat_slice_nhwc', [
        helper.make_node('Conv', ['x', 'wa'], ['ca'], name='conv_a', kernel_shape=[3, 3], pads=[1, 1, 1, 1]), rq_a,
        helper.make_node('Conv', ['x', 'wb'], ['cb'], name='conv_b', kernel_shape=[1, 1]), rq_b,
        helper.make_node('Concat', ['ya', 'yb'], ['cat'], name='cat', axis=1),
        helper.make_node('Slice', ['cat', 'st', 'en', 'ax', 'sp'], ['sl'], name='slice'),
        helper.make_node('MaxPool', ['sl'], ['mp'], name='pool', kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node('Flatten', ['mp'], ['flat'], name='flatten')],
        [weights('wa', 4, 3, 3, 3), weights('wb', 6, 3, 1, 1), int64s('st', [1]), int64s('en', [9]),
         int64s('ax', [1]), int64s('sp', [2])] + c_a + c_b,
        [('x', [1, 3, 6, 6])], ['mp', 'flat'], [u8(1, 3, 6, 6)])

    # Unsigned requant, AveragePool (with and without count_include_pad), GlobalAveragePool,
    # Flatten of a 1x1 map (no copy), Gemm with transB = 0 and a bias.
    rq_c, c_c = requant('rq_c', 'c', 'r', channels=5, signed=0)
    rq_g, c_g = requant('rq_g', 'g', 'y')
    save_case(root, 'average_pools_gemm', [
        helper.make_node('Conv', ['x', 'w'], ['c'], name='conv', kernel_shape=[3, 3], pads=[1, 1, 1, 1]), rq_c,
        helper.make_node('AveragePool', ['r'], ['ap'], name='avg', kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node('AveragePool', ['ap'], ['ap2'], name='avg_incl', kernel_shape=[2, 2], pads=[0, 0, 1, 1],
                         count_include_pad=1),
        helper.make_node('GlobalAveragePool', ['ap2'], ['gap'], name='gap'),
        helper.make_node('Flatten', ['gap'], ['fl'], name='flatten'),
        helper.make_node('Gemm', ['fl', 'wg', 'bg'], ['g'], name='gemm'), rq_g],
        [weights('w', 5, 2, 3, 3), weights('wg', 5, 7), weights('bg', 7, lo=-99, hi=99)] + c_c + c_g,
        [('x', [1, 2, 7, 7])], ['y', 'ap'], [u8(1, 2, 7, 7)])

    # 1D Conv (NWC), Transposes (relabelled, no copy), a run-time MatMul, an Add of an NWC map
    # and a graph input, a Transpose of a graph input as graph output.
    rq_1, c_1 = requant('rq_1', 'c', 'yc', channels=4)
    rq_m, c_m = requant('rq_m', 'mm', 'out_mm')
    save_case(root, 'transpose_matmul_1d', [
        helper.make_node('Conv', ['x', 'w'], ['c'], name='conv1d', kernel_shape=[3], pads=[1, 1]), rq_1,
        helper.make_node('Transpose', ['yc'], ['t'], name='transpose', perm=[0, 2, 1]),
        helper.make_node('MatMul', ['t', 'm'], ['mm'], name='matmul'), rq_m,
        helper.make_node('Add', ['yc', 'x'], ['sum'], name='add'),
        helper.make_node('Transpose', ['x'], ['xt'], name='transpose_in', perm=[2, 0, 1])],
        [weights('w', 4, 4, 3)] + c_1 + c_m,
        [('x', [1, 4, 6]), ('m', [1, 4, 3])], ['out_mm', 'sum', 'xt'], [s8(1, 4, 6), s8(1, 4, 3)])

    # Flatten -> Reshape chain into a MatMul + bias Add (the weights absorb the NHWC order),
    # GlobalAveragePool -> Squeeze -> Unsqueeze, Sub of a constant.
    rq_r, c_r = requant('rq_r', 'c', 'y', channels=4)
    save_case(root, 'reshape_chain', [
        helper.make_node('Conv', ['x', 'w'], ['c'], name='conv', kernel_shape=[3, 3], pads=[1, 1, 1, 1]), rq_r,
        helper.make_node('Flatten', ['y'], ['f'], name='flatten'),
        helper.make_node('Reshape', ['f', 'shape'], ['r'], name='reshape'),
        helper.make_node('MatMul', ['r', 'wm'], ['mm'], name='fc'),
        helper.make_node('Add', ['bm', 'mm'], ['fc_out'], name='fc_bias'),
        helper.make_node('GlobalAveragePool', ['y'], ['gap'], name='gap'),
        helper.make_node('Squeeze', ['gap', 'sq'], ['s'], name='squeeze'),
        helper.make_node('Unsqueeze', ['s', 'usq'], ['u'], name='unsqueeze'),
        helper.make_node('Sub', ['u', 'k'], ['d'], name='sub_const')],
        [weights('w', 4, 2, 3, 3), int64s('shape', [1, -1]), weights('wm', 64, 5), weights('bm', 5, lo=-50, hi=50),
         int64s('sq', [2, 3]), int64s('usq', [1]), weights('k', 4, lo=-50, hi=50)] + c_r,
        [('x', [1, 2, 4, 4])], ['fc_out', 'd'], [u8(1, 2, 4, 4)])

    # A graph input as graph output (copied), Identity of an input, an Add broadcasting a
    # lower-rank operand against an NHWC map, a per-channel constant Add, a Pad with a value.
    rq_i, c_i = requant('rq_i', 'c', 'y', channels=5)
    save_case(root, 'io_broadcast', [
        helper.make_node('Identity', ['x'], ['x_id'], name='ident'),
        helper.make_node('Conv', ['x', 'w'], ['c'], name='conv', kernel_shape=[1, 1]), rq_i,
        helper.make_node('Add', ['y', 'v'], ['yv'], name='add_vec'),
        helper.make_node('Add', ['y', 'cc'], ['yc'], name='add_chan'),
        helper.make_node('Pad', ['y', 'pp', 'pv'], ['yp'], name='pad_val', mode='constant')],
        [weights('w', 5, 3, 1, 1), weights('cc', 5, 1, 1, lo=-9, hi=9), int64s('pp', [0, 1, 1, 0, 0, 0, 0, 2]),
         floats('pv', -3)] + c_i,
        [('x', [1, 3, 4, 4]), ('v', [4])], ['x', 'x_id', 'yv', 'yc', 'yp'], [u8(1, 3, 4, 4), s8(4)])

    # Flatten of an NHWC map reshaped back to the same 4D shape before another Conv: no copies.
    rq_u, c_u = requant('rq_u', 'c', 'y', channels=4)
    rq_v, c_v = requant('rq_v', 'c2', 'z', channels=3)
    save_case(root, 'unflatten', [
        helper.make_node('Conv', ['x', 'w'], ['c'], name='conv', kernel_shape=[3, 3], pads=[1, 1, 1, 1]), rq_u,
        helper.make_node('Flatten', ['y'], ['f'], name='flatten'),
        helper.make_node('Reshape', ['f', 'shape'], ['r'], name='unflatten'),
        helper.make_node('Conv', ['r', 'w2'], ['c2'], name='conv2', kernel_shape=[1, 1]), rq_v],
        [weights('w', 4, 2, 3, 3), int64s('shape', [1, 4, 5, 5]), weights('w2', 3, 4, 1, 1)] + c_u + c_v,
        [('x', [1, 2, 5, 5])], ['z'], [u8(1, 2, 5, 5)])

    # The dialect's softmaxes over the last axis (docs/semantics.md): rows of 37 (groups of 16
    # and a leftover of 5; not a multiple of 4) with an all-equal row, a row of -128 and a row
    # of 127 and -128 (the widest spread); rows of one element; uint8 rows of 50 (all 255, all 0,
    # random; ITAPartialMax in groups of 5); and uint8 rows of 4096 whose iSoftmax sum exceeds
    # 2^31 (the all-equal row: 4096 * 1,010,000), so a signed 32-bit sum would fail. The second
    # iSoftmax has log2 = 7, so its exponent z reaches the clamp at 31.
    x = s8(2, 3, 37)
    x[0, 0], x[0, 1], x[0, 2, ::2], x[0, 2, 1::2] = 5, -128, 127, -128
    v = u8(3, 50)
    v[0], v[1] = 255, 0
    u = rng.integers(0, 121, (2, 4096))
    u[0] = 200
    u[1, rng.choice(4096, 8, replace=False)] = 255

    def i_softmax(name, src, dst, a, b, c, log2):
        return helper.make_node('iSoftmax', [src], [dst], name=name, coeffA=[float(a)], coeffB=[float(b)],
                                coeffC=[float(c)], log2=[float(log2)], n_levels=[256.0])

    def ita_partial(name, src, dst, width):
        return helper.make_node('ITAPartialMax', [src], [dst], name=name, group_width=width, n_levels=[256.0])

    save_case(root, 'row_softmaxes', [
        helper.make_node('ITAMax', ['x'], ['ita'], name='ita', n_levels=[256.0]),
        ita_partial('ita_partial', 'x', 'ita_partial', 16),
        i_softmax('isoftmax', 'x', 'isoftmax', 1, 345, 62395, 255),
        i_softmax('isoftmax_clamp', 'x', 'isoftmax_clamp', 3, -20, 5, 7),
        helper.make_node('ITAMax', ['e'], ['e_ita'], name='e_ita', n_levels=[256.0]),
        ita_partial('e_ita_partial', 'e', 'e_ita_partial', 16),
        i_softmax('e_isoftmax', 'e', 'e_isoftmax', 1, 173, 15599, 127),
        helper.make_node('ITAMax', ['v'], ['v_ita'], name='v_ita', n_levels=[256.0]),
        ita_partial('v_ita_partial', 'v', 'v_ita_partial', 5),
        i_softmax('u_isoftmax', 'u', 'u_isoftmax', 1, 1000, 10000, 16)],
        [], [('x', [2, 3, 37]), ('e', [4, 1]), ('v', [3, 50]), ('u', [2, 4096])],
        ['ita', 'ita_partial', 'isoftmax', 'isoftmax_clamp', 'e_ita', 'e_ita_partial', 'e_isoftmax', 'v_ita',
         'v_ita_partial', 'u_isoftmax'], [x, s8(4, 1), v, u])

    # The dialect's normalizations over the last axis: int8 rows of 23 (all equal, all -128,
    # alternating 127/-128, random) and uint8 rows (true values, no offset), negative weights
    # (floor division), outputs that clamp, rows of one element; iNoNorm with a weight per
    # element of a (rows, 23) matrix and a bias per column.
    x = s8(4, 23)
    x[0], x[1], x[2, ::2], x[2, 1::2] = 7, -128, 127, -128
    levels = {'n_levels': [256.0]}
    save_case(root, 'row_norms', [
        helper.make_node('iLayerNorm', ['x', 'ln_w', 'ln_b'], ['ln'], name='ln', D=[2.0 ** 14], **levels),
        helper.make_node('iRMSNorm', ['x', 'rms_w'], ['rms'], name='rms', D=2 ** 16, n_levels=256),
        helper.make_node('iNoNorm', ['x', 'nn_w', 'nn_b'], ['nn'], name='nn', D=[2.0 ** 16], mul=[425.0], **levels),
        helper.make_node('iLayerNorm', ['u', 'uln_w', 'uln_b'], ['u_ln'], name='u_ln', D=[2.0 ** 14], **levels),
        helper.make_node('iRMSNorm', ['u', 'urms_w'], ['u_rms'], name='u_rms', D=2 ** 16, n_levels=256),
        helper.make_node('iLayerNorm', ['one', 'one_w', 'one_b'], ['one_ln'], name='one_ln', D=[2.0 ** 10], **levels),
        helper.make_node('iRMSNorm', ['one', 'one_rw'], ['one_rms'], name='one_rms', D=[2.0 ** 12], **levels)],
        [weights('ln_w', 23, lo=-2000000, hi=2000000), weights('ln_b', 23, lo=-40000, hi=40000),
         weights('rms_w', 23, lo=-9000000, hi=9000000), weights('nn_w', 4, 23, lo=-127, hi=128),
         weights('nn_b', 23, lo=-5000, hi=5000), weights('uln_w', 1, 23, lo=-300000, hi=300000),
         weights('uln_b', 23, lo=-40000, hi=40000), weights('urms_w', 23, lo=-4000000, hi=4000000),
         weights('one_w', 1, lo=-99999, hi=99999), weights('one_b', 1, lo=-9999, hi=9999),
         weights('one_rw', 1, lo=-999999, hi=999999)],
        [('x', [4, 23]), ('u', [3, 23]), ('one', [5, 1])],
        ['ln', 'rms', 'nn', 'u_ln', 'u_rms', 'one_ln', 'one_rms'], [x, u8(3, 23), np.array([[-128], [127], [0], [-1], [5]])])


# ---------------------------------------------------------------------------- transformer ops

def transformer_elementwise_cases(root):
    """Deeploy's integer transformer ops (iGELU, IntegerDiv, Gather, IntegerMean/ReduceMean,
    ReduceSum, Mul), with their own generator so that the cases above keep their data."""
    r = np.random.default_rng(10)

    def rq(name, x, y, mul, add=0, div=2 ** 10):
        m, a = floats(name + '.mul', mul), floats(name + '.add', add)
        return helper.make_node('RequantShift', [x, m.name, a.name], [y], name=name, div=float(div),
                                n_levels_out=[256.0], signed=[1.0]), [m, a]

    # iGELU (the ICCT constants) raw and with a fused RequantShift, on every int8 value and on
    # int16 extremes; b*b > 2*one makes one + L negative and odd (the shift floors). iHardswish
    # on int16 values reaches both clamps of its gate.
    every = np.arange(-128, 128).reshape(1, 4, 64)
    wide = r.integers(-300, 300, (1, 4, 64))
    wide.flat[:6] = [-32768, 32767, -41, 41, -40, 40]
    gelu_rq, gelu_c = rq('gelu_rq', 'g2', 'g2q', 3, div=2 ** 12)
    save_case(root, 'igelu', [
        helper.make_node('iGELU', ['x'], ['g'], name='gelu', b=-40, one=1743),
        helper.make_node('iGELU', ['x'], ['g2'], name='gelu_fused', b=-30, one=800), gelu_rq,
        helper.make_node('iGELU', ['w'], ['gw'], name='gelu_wide', b=-40, one=1743),
        helper.make_node('iGELU', ['x'], ['gn'], name='gelu_negative', b=-61, one=501),
        helper.make_node('iHardswish', ['w'], ['hw'], name='hardswish_wide', three=100, six=200, one_over_six=3)],
        gelu_c, [('x', [1, 4, 64]), ('w', [1, 4, 64])], ['g', 'g2q', 'gw', 'gn', 'hw'], [every, wide])

    # IntegerDiv: a denominator broadcast along two axes, negative numerators and denominators,
    # exact halves (Delta = eta = 1, eps = 0: a / b with b in {2, 4, -2}); a fused RequantShift
    # (RQIntegerDiv); tensor x tensor Mul of int8 operands.
    a = r.integers(-128, 128, (1, 3, 4, 6))
    a.flat[:8] = [-128, 127, -3, 3, -6, 6, -5, 5]
    b = r.choice([2, 4, -2, 3, 7, -5, 1, 100], (1, 1, 4, 1))
    b.flat[:4] = [2, 4, -2, 3]
    div_rq, div_c = rq('div_rq', 'q2', 'q2q', 5, 7, div=2 ** 6)
    save_case(root, 'integer_div', [
        helper.make_node('IntegerDiv', ['a', 'b'], ['q'], name='div', Delta=1, eps=0, eta=1),
        helper.make_node('IntegerDiv', ['a', 'b'], ['q2'], name='div_scaled', Delta=256, eps=3, eta=5), div_rq,
        helper.make_node('Mul', ['a', 'b'], ['p'], name='mul')],
        div_c, [('a', [1, 3, 4, 6]), ('b', [1, 1, 4, 1])], ['q', 'q2q', 'p'], [a, b])

    # Gather along several axes: a scalar index (the class token: the axis goes), negative and
    # repeated indices, a 2D index array (rank grows), and on a Conv's NHWC output.
    w = numpy_helper.from_array(r.integers(-9, 9, (4, 5, 1, 1)).astype(np.float32), 'cw')
    conv_rq, conv_c = rq('conv_rq', 'c', 'cq', 2)
    save_case(root, 'gather_axes', [
        helper.make_node('Gather', ['x', 'token'], ['g1'], name='class_token', axis=1),
        helper.make_node('Gather', ['x', 'rows'], ['g2'], name='rows', axis=2),
        helper.make_node('Gather', ['x', 'grid'], ['g3'], name='grid', axis=-1),
        helper.make_node('Conv', ['x', 'cw'], ['c'], name='conv', kernel_shape=[1, 1]), conv_rq,
        helper.make_node('Gather', ['cq', 'chan'], ['g4'], name='channels', axis=1)],
        [int64s('token', 0), int64s('rows', [3, 0, -1, 3]), int64s('grid', [[1, 2], [5, 0]]),
         int64s('chan', [2, -1]), w] + conv_c,
        [('x', [1, 5, 4, 6])], ['g1', 'g2', 'g3', 'g4'], [r.integers(-128, 128, (1, 5, 4, 6))])

    # Means of uint8 values over lengths 6, 35 and 7 (not powers of two: half away from zero)
    # and of int8 values over 4 and 8 (a rounding shift) with ties and extreme rows; sums.
    u = r.integers(0, 256, (1, 6, 5, 7))
    u[0, :, 0, 0] = 255
    s = r.integers(-128, 128, (1, 4, 8))
    s[0, :, 0], s[0, :, 1], s[0, :, 2] = -128, 127, [-1, -1, 0, 0]  # -2 / 4: a tie
    s[0, :, 3] = [-3, -3, -3, -3 + 2]                               # -10 / 4 = -2.5
    save_case(root, 'integer_mean', [
        helper.make_node('IntegerMean', ['u'], ['m1'], name='mean_channels', axes=[1], keepdims=0),
        helper.make_node('ReduceMean', ['u'], ['m2'], name='mean_spatial', axes=[2, 3], keepdims=1),
        helper.make_node('ReduceMean', ['u'], ['m3'], name='mean_last', axes=[-1], keepdims=0),
        helper.make_node('ReduceMean', ['s'], ['m4'], name='mean_pow2', axes=[1], keepdims=0),
        helper.make_node('ReduceMean', ['s'], ['m5'], name='mean_all', axes=[1, 2], keepdims=1),
        helper.make_node('ReduceSum', ['u', 'sum_axes'], ['s1'], name='sum', keepdims=1),
        helper.make_node('ReduceSum', ['s', 'sum_last'], ['s2'], name='sum_last', keepdims=0)],
        [int64s('sum_axes', [1, 3]), int64s('sum_last', [-1])],
        [('u', [1, 6, 5, 7]), ('s', [1, 4, 8])], ['m1', 'm2', 'm3', 'm4', 'm5', 's1', 's2'], [u, s])


# ---------------------------------------------------------------------------- broken models

def broken_cases(root, corpus_model):
    os.makedirs(root, exist_ok=True)
    expected = []

    def save(name, model, pattern, extra=''):
        onnx.save(model, os.path.join(root, name + '.onnx'))
        expected.append(f'{name}|{pattern}|{extra}')

    x = value('x', [1, 3, 8, 8])
    y = value('y', [1, 4, 8, 8])
    fractional = numpy_helper.from_array(rng.normal(size=(4, 3, 3, 3)).astype(np.float32), 'w')
    integral = weights('w', 4, 3, 3, 3, lo=-5, hi=5)
    opset = [helper.make_opsetid('', 13)]

    def model(nodes, inits, outputs=(y,)):
        return helper.make_model(helper.make_graph(nodes, 'broken', [x], list(outputs), inits), opset_imports=opset)

    conv = helper.make_node('Conv', ['x', 'w'], ['c'], name='conv0', pads=[1, 1, 1, 1])
    save('float_relu', model([conv, helper.make_node('Relu', ['c'], ['y'], name='relu0')], [integral]),
         r"node 'relu0' \(Relu\): unsupported operator", '--input-type x=u8')
    save('float_softmax', model([helper.make_node('Softmax', ['x'], ['y'], name='sm')], [],
                                [value('y', [1, 3, 8, 8])]), r"node 'sm' \(Softmax\): unsupported operator")
    # Every unsupported operator in one run, grouped by op in order of first use (one of them
    # unnamed: named by its output), with a foreign domain named.
    chain = ['x', 'a', 'b', 'c', 'd', 'e', 'y']
    several = [helper.make_node('Softmax', [chain[i]], [chain[i + 1]], name=f'sm{i}' if i != 1 else '') for i in range(6)]
    several[3] = helper.make_node('Foo', ['c'], ['d'], name='foo', domain='acme')
    several_model = model(several, [], [value('y', [1, 3, 8, 8])])
    several_model.opset_import.append(helper.make_opsetid('acme', 1))
    save('several_unsupported', several_model,
         r"6 nodes use 2 operators onnx2hpp does not support: +Softmax: unsupported operator on 5 nodes "
         r"\('sm0', 'b', 'sm2', 'sm4' and 1 more\) +Foo: unsupported operator \(domain 'acme'\) on 1 node \('foo'\)")
    save('float_weights', model([helper.make_node('Conv', ['x', 'w'], ['y'], name='conv0', pads=[1, 1, 1, 1])],
                                [fractional]), r"node 'conv0' \(Conv\): weights 'w': element 0 = .* is not an integer",
         '--input-type x=u8')
    save('float_input', model([helper.make_node('Conv', ['x', 'w'], ['y'], name='conv0', pads=[1, 1, 1, 1])],
                              [integral]), r"graph input 'x' has ONNX type FLOAT: pass --input-type")
    save('checker_failure', model([helper.make_node('Conv', ['x', 'w'], ['y'], name='conv0', group=1.5)], [integral]),
         r'the ONNX checker rejects the model', '--input-type x=u8')
    dynamic = model([helper.make_node('Conv', ['x', 'w'], ['y'], name='conv0', pads=[1, 1, 1, 1])], [integral])
    dynamic.graph.input[0].type.tensor_type.shape.dim[0].dim_param = 'N'
    save('dynamic_dim', dynamic, r"graph input 'x' has a dynamic or negative dimension \('N'\)", '--input-type x=u8')
    # Empty graph inputs (an empty KV cache) are read by Concat alone, and only next to a non-empty operand.
    def empty_model(nodes, outputs, inputs=(('cache', [1, 2, 0, 4]), ('row', [1, 2, 1, 4]))):
        return helper.make_model(helper.make_graph(nodes, 'broken', [value(n, s) for n, s in inputs],
                                                   [value(n, s) for n, s in outputs], []), opset_imports=opset)
    empty_types = '--input-type cache=s8 --input-type row=s8'
    save('empty_input_not_concat', empty_model([helper.make_node('Transpose', ['cache'], ['y'], name='tr',
                                                                 perm=[0, 2, 1, 3])], [('y', [1, 0, 2, 4])]),
         r"graph input 'cache' is empty \(1, 2, 0, 4\): node 'tr' \(Transpose\) reads it; only a Concat", empty_types)
    save('empty_input_is_output', empty_model([helper.make_node('Concat', ['cache', 'row'], ['y'], name='cat', axis=2)],
                                              [('y', [1, 2, 1, 4]), ('cache', [1, 2, 0, 4])]),
         r"graph input 'cache' is empty \(1, 2, 0, 4\): it is also a graph output", empty_types)
    save('empty_concat', empty_model([helper.make_node('Concat', ['cache', 'other'], ['y'], name='cat', axis=2)],
                                     [('y', [1, 2, 0, 4])], (('cache', [1, 2, 0, 4]), ('other', [1, 2, 0, 4]))),
         r"node 'cat' \(Concat\): output 'y' would be empty", '--input-type cache=s8 --input-type other=s8')
    missing = model([helper.make_node('Conv', ['x', 'w'], ['y'], name='conv0', pads=[1, 1, 1, 1])], [])
    save('missing_initializer', missing, r"node 'conv0' \(Conv\): input 'w' is not a graph input, an initializer",
         '--input-type x=u8')
    # Deeploy's transformer ops: a TrueIntegerDiv with no RequantShift to fold into, an iGELU
    # whose b is not negative, a reduction to a scalar.
    save('true_integer_div_alone', model([helper.make_node('TrueIntegerDiv', ['x'], ['y'], name='tid', y=2, Delta=16,
                                                           eps=1, eta=100)], [], [value('y', [1, 3, 8, 8])]),
         r"node 'tid' \(TrueIntegerDiv\): supported only when its one reader is a RequantShift", '--input-type x=s8')
    save('igelu_positive_b', model([helper.make_node('iGELU', ['x'], ['y'], name='gelu', b=40, one=1743)], [],
                                   [value('y', [1, 3, 8, 8])]),
         r"node 'gelu' \(iGELU\): attribute 'b' = 40 must be negative", '--input-type x=s8')
    save('mean_to_scalar', model([helper.make_node('ReduceMean', ['x'], ['y'], name='mean', keepdims=0)], [],
                                 [value('y', [])]),
         r"node 'mean' \(ReduceMean\): a reduction over every axis without keepdims", '--input-type x=s8')
    # Row ops whose kernels' integers could overflow, or that are malformed.
    def row_model(node, inits, shape=(1, 4, 8)):
        graph = helper.make_graph([node], 'broken', [value('x', list(shape))], [value('y', list(shape))], inits)
        return helper.make_model(graph, opset_imports=opset)

    def i_softmax(c, shape=(1, 4, 8)):
        return row_model(helper.make_node('iSoftmax', ['x'], ['y'], name='sm', coeffA=[1.0], coeffB=[345.0],
                                          coeffC=[float(c)], log2=[255.0], n_levels=[256.0]), [], shape)

    save('isoftmax_row_sum_overflow', i_softmax(62395, (1, 2, 30000)),
         r"node 'sm' \(iSoftmax\): a row of 30000 exponentials up to 181420 can exceed the 32-bit sum",
         '--input-type x=s8')
    save('isoftmax_negative_exponential', i_softmax(-200000),
         r"\(iSoftmax\): the polynomial .* leaves \[0, 2\^32\) at x - max = ", '--input-type x=s8')
    save('ita_partial_group_width', row_model(helper.make_node('ITAPartialMax', ['x'], ['y'], name='ita',
                                                               group_width=0, n_levels=[256.0]), []),
         r"node 'ita' \(ITAPartialMax\): group_width = 0 must be at least 1", '--input-type x=s8')
    big = floats('w', np.full((8,), 2.0 ** 30))
    save('inonorm_overflow', row_model(helper.make_node('iNoNorm', ['x', 'w', 'b'], ['y'], name='nn', D=[2.0 ** 16],
                                                        mul=[2.0 ** 30], n_levels=[256.0]),
                                       [big, floats('b', np.zeros(8))]),
         r"node 'nn' \(iNoNorm\): \(x\*weight \+ bias\) \* mul can exceed 64 bits", '--input-type x=s8')
    save('ilayernorm_d', row_model(helper.make_node('iLayerNorm', ['x', 'w', 'b'], ['y'], name='ln', D=[1000.0],
                                                    n_levels=[256.0]), [big, floats('b', np.zeros(8))]),
         r"node 'ln' \(iLayerNorm\): D = 1000 is not a power of two", '--input-type x=s8')
    save('irmsnorm_weight_shape', row_model(helper.make_node('iRMSNorm', ['x', 'w'], ['y'], name='rms', D=2 ** 16,
                                                             n_levels=256), [floats('w', np.ones(7))]),
         r"node 'rms' \(iRMSNorm\): weight \(7\) does not broadcast to the input \(1, 4, 8\)", '--input-type x=s8')
    save('isoftmax_int32_input', row_model(helper.make_node('iSoftmax', ['x'], ['y'], name='sm', coeffA=[1.0],
                                                            coeffB=[345.0], coeffC=[62395.0], log2=[255.0],
                                                            n_levels=[256.0]), []),
         r"node 'sm' \(iSoftmax\): the input is .*; the kernel takes an 8-bit tensor", '--input-type x=s32')
    # Resize forms onnx2hpp does not compute exactly: cubic, a scale that is not output / input,
    # a resized channel axis, a linear Resize whose QuantizeLinear changes the scale.
    def resize_model(name, out_shape, inits, scales=None, sizes=None, **attrs):
        inputs = ['x', '', 'scales'] if scales is not None else ['x', '', '', 'sizes']
        inits = inits + ([floats('scales', scales)] if scales is not None else [int64s('sizes', sizes)])
        node = helper.make_node('Resize', inputs, ['y'], name=name, **attrs)
        return model([node], inits, [value('y', out_shape)])

    save('resize_cubic', resize_model('up', [1, 3, 16, 16], [], scales=[1, 1, 2, 2], mode='cubic'),
         r"node 'up' \(Resize\): mode 'cubic' is not supported \(supported: 'nearest', 'linear'\)",
         '--input-type x=u8')
    save('resize_crop', resize_model('up', [1, 3, 16, 16], [], scales=[1, 1, 2, 2], mode='linear',
                                     coordinate_transformation_mode='tf_crop_and_resize'),
         r"node 'up' \(Resize\): coordinate_transformation_mode 'tf_crop_and_resize' is not supported",
         '--input-type x=u8')
    save('resize_fractional_scale', resize_model('up', [1, 3, 12, 12], [], scales=[1, 1, 1.5625, 1.5625]),
         r"node 'up' \(Resize\): scale 1.5625 on axis 2 makes 8 x 1.5625 = 12.5, not a whole extent", '--input-type x=u8')
    save('resize_channels', resize_model('up', [1, 6, 8, 8], [], sizes=[1, 6, 8, 8]),
         r"node 'up' \(Resize\): resizes axis 1 \(the channels of 3 to 6\)", '--input-type x=u8')
    requantized = [helper.make_node('QuantizeLinear', ['x', 's', 'z'], ['q'], name='q_in'),
                   helper.make_node('DequantizeLinear', ['q', 's', 'z'], ['d'], name='dq'),
                   helper.make_node('Resize', ['d', '', 'scales'], ['r'], name='up', mode='linear'),
                   helper.make_node('QuantizeLinear', ['r', 's2', 'z'], ['y'], name='q_out')]
    save('resize_linear_requantized',
         model(requantized, [floats('s', 0.05), floats('s2', 0.1), numpy_helper.from_array(np.uint8(128), 'z'),
                             floats('scales', [1, 1, 2, 2])], [value('y', [1, 3, 16, 16], TensorProto.UINT8)]),
         r"node 'up' \(Resize\): a linear Resize on a dequantized tensor must be read only by QuantizeLinear nodes "
         r"with its input's scale and zero point .*QuantizeLinear 'q_out' quantizes to another scale")
    with open(os.path.join(root, 'garbage.onnx'), 'w') as f:
        f.write('this is not a model\n')
    expected.append(r"garbage|cannot parse .* as an ONNX model|")

    if corpus_model:
        with open(corpus_model, 'rb') as f:
            raw = f.read()
        with open(os.path.join(root, 'truncated.onnx'), 'wb') as f:
            f.write(raw[:len(raw) // 3])
        expected.append(r"truncated|cannot parse .* as an ONNX model|--input-type input=u8")
        original = onnx.load(corpus_model)
        damaged = copy.deepcopy(original)
        w = numpy_helper.to_array(damaged.graph.initializer[0]).copy()
        w.flat[5] = 300
        damaged.graph.initializer[0].CopyFrom(numpy_helper.from_array(w, damaged.graph.initializer[0].name))
        save('weights_out_of_range', damaged, r"weights: element 5 = 300 does not fit int8", '--input-type input=u8')
        damaged = copy.deepcopy(original)
        for node in damaged.graph.node:
            if node.op_type == 'RequantShift':
                for a in node.attribute:
                    if a.name == 'div':
                        a.t.raw_data = np.float32(1000.0).tobytes()
                break
        save('div_not_power_of_two', damaged, r"\(RequantShift\): div = 1000 is not a power of two",
             '--input-type input=u8')

    with open(os.path.join(root, 'expected.txt'), 'w') as f:
        f.write('\n'.join(expected) + '\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('outdir')
    parser.add_argument('--corpus', help='corpus root (…/corpus/deeploy): seeds models damaged from a real file')
    args = parser.parse_args()
    supported_cases(os.path.join(args.outdir, 'supported'))
    transformer_elementwise_cases(os.path.join(args.outdir, 'supported'))
    model = os.path.join(args.corpus, 'Models/miniMobileNet/network.onnx') if args.corpus else None
    broken_cases(os.path.join(args.outdir, 'broken'), model if model and os.path.exists(model) else None)


if __name__ == '__main__':
    main()
