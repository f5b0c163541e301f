#!/usr/bin/python3
"""ONNX backend node tests for the quantized ops, as onnx2hpp test cases (run with /usr/bin/python3).

    make_conformance_cases.py OUTDIR

Generates Debian's onnx 1.12 backend node tests (their generator needs numpy's removed
aliases back), then writes OUTDIR/<test>/{network.onnx, inputs.npz, outputs.npz, tolerance}
for each case listed in CASES: the first graph input stays the run-time input, every other
input (scales, zero points, weights) becomes an initializer holding the test's value, since
onnx2hpp needs them constant. `tolerance` is the largest difference allowed per element:
1 where the op is defined with real-valued scales (Tessera's integer requantization may
round differently from the float reference on near-ties), 0 for the pure integer ops.
The cases left out, and why, are listed in LEFT_OUT (and in tools/onnx2hpp/README.md).
"""
import glob
import os
import sys

import numpy as np

# Debian's onnx 1.12 test generator still uses the aliases numpy 1.24 removed.
np.float = float
np.int = int
np.bool = bool
np.object = object

import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

CASES = {
    'test_qlinearconv': 1,
    'test_qlinearmatmul_2D': 1,
    'test_convinteger_with_padding': 0,
    'test_convinteger_without_padding': 0,
    'test_matmulinteger': 0,
}

LEFT_OUT = {
    'test_qlinearmatmul_3D': 'b is a batched (2, 4, 3) constant: Tessera gemms take one weight matrix',
    'test_quantizelinear': 'float input: Tessera networks take integer inputs',
    'test_quantizelinear_axis': 'float input: Tessera networks take integer inputs',
    'test_dequantizelinear': 'float output: Tessera networks produce integer outputs',
    'test_dequantizelinear_axis': 'float output: Tessera networks produce integer outputs',
    'test_dynamicquantizelinear*': 'float input and run-time computed scales',
}


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    return t


def generate(node_root):
    if os.path.isdir(os.path.join(node_root, 'node', 'test_qlinearconv')):
        return
    from onnx.backend.test import cmd_tools
    argv = sys.argv
    sys.argv = ['backend-test-tools', 'generate-data', '-o', node_root]
    try:
        cmd_tools.main()
    finally:
        sys.argv = argv


def convert(case_dir, out_dir, tolerance):
    model = onnx.load(os.path.join(case_dir, 'model.onnx'))
    data = sorted(glob.glob(os.path.join(case_dir, 'test_data_set_0', 'input_*.pb')))
    outputs = sorted(glob.glob(os.path.join(case_dir, 'test_data_set_0', 'output_*.pb')))
    graph = model.graph
    inputs = list(graph.input)
    run_time = inputs[0]
    for value, path in zip(inputs[1:], data[1:]):
        t = read_pb(path)
        t.name = value.name
        graph.initializer.append(t)
    graph.ClearField('input')
    graph.input.append(run_time)
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(model, os.path.join(out_dir, 'network.onnx'))
    x = numpy_helper.to_array(read_pb(data[0]))
    np.savez(os.path.join(out_dir, 'inputs.npz'), x.astype(np.int64))
    ys = [numpy_helper.to_array(read_pb(p)).astype(np.int64) for p in outputs]
    np.savez(os.path.join(out_dir, 'outputs.npz'), *ys)
    with open(os.path.join(out_dir, 'tolerance'), 'w') as f:
        f.write('%d\n' % tolerance)


def main():
    out = sys.argv[1]
    node_root = os.path.join(out, '_onnx_backend')
    generate(node_root)
    for name, tolerance in CASES.items():
        convert(os.path.join(node_root, 'node', name), os.path.join(out, 'cases', name), tolerance)


if __name__ == '__main__':
    main()
