#!/usr/bin/python3
"""Generates the ternary-weight test model of the analog-like engine (issue 13).

    make_analog_models.py OUTDIR

OUTDIR/ternary_convs/ holds network.onnx (Deeploy's integer dialect: Conv + RequantShift, every
weight -1, 0 or 1, so onnx2hpp marks the convolutions ternary), inputs.npz and three sets of
golden outputs, each computed here with numpy from the rules as docs/semantics.md states them:
  outputs.npz         the CPU's integers (reference.py), what the flat executor computes;
  outputs_analog.npz  every convolution with the analog array's numerics ("Analog-like engine":
                      inputs clamped to 7 bits, the sum clipped to the ADC's [-32, 31], then bias
                      and requantisation), what a target whose only accelerator is the analog
                      engine computes;
  outputs_mixed.npz   the DIANA-like preset's mixed policy: the first and the last convolution on
                      the digital engine (the CPU's integers), the middle one on the analog array.
Fixed seed: the files are the same on every run.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

rng = np.random.default_rng(13)

INPUT_BITS = 7
ADC_MIN, ADC_MAX = -32, 31


def analog_conv(x, w, b, strides, pads):
    """The analog array's convolution (docs/semantics.md, "Analog-like engine")."""
    lo, hi = -(1 << (INPUT_BITS - 1)), (1 << (INPUT_BITS - 1)) - 1
    s = reference.conv(np.clip(x, lo, hi), w, None, strides, pads, [1, 1], 1)
    y = np.clip(s, ADC_MIN, ADC_MAX)
    return y + b.reshape(1, -1, 1, 1) if b is not None else y


def run(model, data, analog):
    """Outputs of `model` with the convolutions named in `analog` on the analog array."""
    g = model.graph
    env = {i.name: numpy_helper.to_array(i).astype(np.int64) for i in g.initializer}
    env['x'] = np.asarray(data[0]).astype(np.int64)
    for node in g.node:
        if node.op_type == 'Conv' and node.name in analog:
            a = reference.attributes(node)
            x = [env[i] for i in node.input]
            env[node.output[0]] = analog_conv(x[0], x[1], x[2] if len(x) > 2 else None, a.get('strides', [1, 1]),
                                              a.get('pads', [0, 0, 0, 0]))
        else:
            reference.run_nodes([node], env)
    return [env[o.name] for o in g.output]


def ternary(name, *shape):
    """Sparse ternary weights: about 80% zeros, so that most sums stay inside the ADC's range."""
    w = rng.choice([-1, 0, 1], size=shape, p=[0.1, 0.8, 0.1])
    return numpy_helper.from_array(w.astype(np.float32), name)


def requant(name, x, y, channels):
    """A RequantShift (QuantLib's form): y = (x * mul + add) / 4, rounded, clipped to int8."""
    mul = numpy_helper.from_array(rng.integers(1, 5, [channels, 1, 1]).astype(np.float32), name + '.mul')
    add = numpy_helper.from_array(rng.integers(-8, 9, [channels, 1, 1]).astype(np.float32), name + '.add')
    node = helper.make_node('RequantShift', [x, mul.name, add.name], [y], name=name, div=4.0,
                            n_levels_out=[256.0], signed=[1.0])
    return node, [mul, add]


def main():
    root = os.path.join(sys.argv[1], 'ternary_convs')
    rq_a, c_a = requant('rq_a', 'ca', 'ya', 16)
    rq_b, c_b = requant('rq_b', 'cb', 'yb', 16)
    rq_c, c_c = requant('rq_c', 'cc', 'y', 8)
    nodes = [
        helper.make_node('Conv', ['x', 'wa', 'ba'], ['ca'], name='conv_a', kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        rq_a,
        helper.make_node('Conv', ['ya', 'wb', 'bb'], ['cb'], name='conv_b', kernel_shape=[1, 1]), rq_b,
        helper.make_node('MaxPool', ['yb'], ['mp'], name='pool', kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node('Conv', ['mp', 'wc', 'bc'], ['cc'], name='conv_c', kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        rq_c]
    bias = lambda name, n: numpy_helper.from_array(rng.integers(-20, 21, [n]).astype(np.float32), name)
    initializers = [ternary('wa', 16, 8, 3, 3), bias('ba', 16), ternary('wb', 16, 16, 1, 1), bias('bb', 16),
                    ternary('wc', 8, 16, 3, 3), bias('bc', 8)] + c_a + c_b + c_c
    graph = helper.make_graph(nodes, 'ternary_convs', [helper.make_tensor_value_info('x', TensorProto.FLOAT,
                                                                                      [1, 8, 8, 8])],
                              [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    # Small inputs with 5% outliers across the int8 range, so that the 7-bit clamp matters.
    x = rng.integers(-16, 17, [1, 8, 8, 8])
    outliers = rng.random(x.shape) < 0.05
    x[outliers] = rng.choice([-1, 1], size=outliers.sum()) * rng.integers(64, 128, outliers.sum())
    data = [x]
    cpu = reference.run(model, data)
    analog = run(model, data, {'conv_a', 'conv_b', 'conv_c'})
    mixed = run(model, data, {'conv_b'})
    model.graph.ClearField('output')
    model.graph.output.extend([helper.make_tensor_value_info('y', TensorProto.FLOAT, list(cpu[0].shape))])
    os.makedirs(root, exist_ok=True)
    onnx.save(model, os.path.join(root, 'network.onnx'))
    np.savez(os.path.join(root, 'inputs.npz'), *[x.astype(np.int64) for x in data])
    for name, outputs in (('outputs', cpu), ('outputs_analog', analog), ('outputs_mixed', mixed)):
        np.savez(os.path.join(root, name + '.npz'), *[y.astype(np.int64) for y in outputs])
    # The three must differ, or the test would not tell the engines apart.
    assert not np.array_equal(cpu[0], analog[0]) and not np.array_equal(cpu[0], mixed[0])
    assert not np.array_equal(analog[0], mixed[0])


if __name__ == '__main__':
    main()
