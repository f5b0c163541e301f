#!/usr/bin/python3
"""The integer Resize rule (docs/semantics.md, "Resize"; integer_reference.resize) against the float
reference of the ONNX semantics (quantized_reference.resize) and against ONNX Runtime, over every
supported mode and coordinate transform and a set of up- and downscaling extents (fixed seed):

- nearest: the integer rule picks exactly the element the float reference and ONNX Runtime pick;
- linear: within one unit of the float reference (rounded half to even, as QuantizeLinear does)
  and of ONNX Runtime, both as a QDQ graph (DequantizeLinear -> float Resize -> QuantizeLinear
  with the same scale and zero point) and as a Resize of the uint8 tensor (QOperator form).

Tessera's kernel is held to the integer rule bit for bit by the exported models
(tests/models/exported/*upsample*, outputs_integer.npz). Exit status 0 when all agree, 1 on a
difference, 77 (ctest's SKIP_RETURN_CODE) when node or onnxruntime-node is missing.

    check_resize_rule.py WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_reference as iref  # noqa: E402
import ort_oracle  # noqa: E402
import quantized_reference as qref  # noqa: E402

SEED = 2026
MODES = [('nearest', t, r) for t in ('half_pixel', 'pytorch_half_pixel', 'align_corners', 'asymmetric')
         for r in ('round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil')]
MODES += [('linear', t, None) for t in ('half_pixel', 'pytorch_half_pixel', 'align_corners', 'asymmetric')]
# (H, W) -> (H', W'): x2, odd sizes up, downscaling, a 1-element output, a 1-element input.
EXTENTS = [((5, 7), (10, 14)), ((3, 5), (7, 9)), ((10, 10), (14, 14)), ((6, 9), (4, 6)), ((7, 3), (21, 12)),
           ((4, 4), (1, 3)), ((1, 5), (3, 5))]
SCALE, ZERO_POINT = np.float32(0.05), np.uint8(100)


def model(mode, transform, rounding, shape, sizes, qdq):
    attrs = {'mode': mode, 'coordinate_transformation_mode': transform}
    if rounding is not None:
        attrs['nearest_mode'] = rounding
    inits = [numpy_helper.from_array(np.asarray(sizes, np.int64), 'sizes')]
    if qdq:
        inits += [numpy_helper.from_array(SCALE, 's'), numpy_helper.from_array(ZERO_POINT, 'z')]
        nodes = [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d']),
                 helper.make_node('Resize', ['d', '', '', 'sizes'], ['r'], **attrs),
                 helper.make_node('QuantizeLinear', ['r', 's', 'z'], ['y'])]
    else:
        nodes = [helper.make_node('Resize', ['x', '', '', 'sizes'], ['y'], **attrs)]
    graph = helper.make_graph(nodes, 'resize', [helper.make_tensor_value_info('x', TensorProto.UINT8, shape)],
                              [helper.make_tensor_value_info('y', TensorProto.UINT8, sizes)], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    m.ir_version = 8
    return m, attrs


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rng = np.random.default_rng(SEED)
    jobs, cases = [], []
    for mode, transform, rounding in MODES:
        for (h, w), (oh, ow) in EXTENTS:
            shape, sizes = [1, 2, h, w], [1, 2, oh, ow]
            x = rng.integers(0, 256, shape).astype(np.uint8)
            exact = iref.resize(x, {'mode': mode, 'coordinate_transformation_mode': transform,
                                    'nearest_mode': rounding or 'round_prefer_floor'}, None, sizes)
            for qdq in (True, False):
                m, attrs = model(mode, transform, rounding, shape, sizes, qdq)
                name = 'case%d' % len(cases)
                onnx.save(m, os.path.join(work, name + '.onnx'))
                x.tofile(os.path.join(work, name + '_x.raw'))
                jobs.append({'model': os.path.join(work, name + '.onnx'), 'optimized': False,
                             'inputs': [{'name': 'x', 'type': 'uint8', 'dims': shape,
                                         'file': os.path.join(work, name + '_x.raw')}],
                             'outputs': [{'name': 'y', 'file': os.path.join(work, name + '_y.raw')}]})
                real = qref.resize(qref.dequantize(x, SCALE, ZERO_POINT), attrs, None, sizes)
                float_reference = qref.quantize(real, SCALE, ZERO_POINT).astype(np.int64)
                cases.append((name, '%s %s%s %dx%d -> %dx%d (%s)' % (
                    mode, transform, ' ' + rounding if rounding else '', h, w, oh, ow, 'QDQ' if qdq else 'uint8'),
                    mode, exact, float_reference))

    missing = ort_oracle.ort_available()
    if missing is None:
        with open(os.path.join(work, 'jobs.json'), 'w') as f:
            json.dump({'jobs': jobs}, f)
        r = subprocess.run(['node', ort_oracle.RUNNER, os.path.join(work, 'jobs.json')], capture_output=True,
                           text=True)
        if r.returncode != 0:
            print('ONNX Runtime failed:', r.stderr)
            return 1
    failures, worst = 0, {'nearest': 0, 'linear': 0}
    for name, what, mode, exact, float_reference in cases:
        allowed = 0 if mode == 'nearest' else 1
        against = [('float reference', float_reference)]
        if missing is None:
            ort = np.fromfile(os.path.join(work, name + '_y.raw'), np.uint8).reshape(exact.shape)
            against.append(('ONNX Runtime', ort.astype(np.int64)))
        for oracle, values in against:
            difference = int(np.abs(values - exact).max())
            worst[mode] = max(worst[mode], difference)
            if difference > allowed:
                failures += 1
                print('FAIL %s: %s differs by %d (allowed %d)' % (what, oracle, difference, allowed))
    print('%d cases (%d modes x %d extents, QDQ and uint8); largest difference from the float reference%s: '
          'nearest %d, linear %d' % (len(cases), len(MODES), len(EXTENTS),
                                     ' and ONNX Runtime' if missing is None else '', worst['nearest'],
                                     worst['linear']))
    if failures:
        return 1
    if missing is not None:
        print('SKIPPED the ONNX Runtime half: ' + missing)
        return ort_oracle.SKIP
    return 0


if __name__ == '__main__':
    sys.exit(main())
