#!/usr/bin/python3
"""Average pools and means whose float reference has many exact ties (docs/semantics.md,
"Rounding of means").

    make_tie_models.py cases ROOT    writes ROOT/cases/<name>/ (network.onnx, inputs.npz,
                                     outputs.npz = the float reference, outputs_integer.npz,
                                     tolerance 0, ort_tolerance 0) for tests/corpus
    make_tie_models.py check WORKDIR compares, on the same models, the float reference written
                                     from the ONNX specification, ONNX Runtime, and the integer
                                     rule of integer_reference.py with the rounding of means
                                     before and after the change (half up, half to even)

ONNX's float definition averages `s_x * (q - zx)` and QuantizeLinear rounds `mean / s_y` half
to even. A 2x2 window of equal-scale values has the mean `sum / 4`, a tie (k + 1/2) whenever the
sum is 2 mod 4: a quarter of the outputs of random data. Rounding them half up (the rule before
this change) reads one unit more on half of those. The cases cover every lowering of a mean:
QDQ GlobalAveragePool and ReduceMean (a depthwise conv of ones, then the requantization), QDQ
AveragePool with equal and with a power-of-two ratio of scales, a padded AveragePool without
count_include_pad (the int16 path), com.microsoft QLinearGlobalAveragePool and
QLinearAveragePool; int8 and uint8, odd and even zero points, extreme input values. The scales
are 0.0372 (as a ResNet-18 export has) or a power of two, and each case's outputs equal the
float reference exactly (tolerance 0) in Tessera (tests/corpus, ties/*), and ONNX Runtime's
exactly (ort/ties/*) where its float32 arithmetic keeps the ties exact.

The exact_means cases are windows of 6, 12 and 36 cells (2x3, 3x4, a 6x6 global pool) with
equal scales or a ratio of 2: their requantization divides by the count's odd part, since no
mul / 2^shift equals 1/6 (a fixed-point multiplier makes the exact ties near ties).

`check` exits 0 when the integer rule equals the float reference on every case, ONNX Runtime
equals it within the case's ort_tolerance (0 but for the float32 misses of the scale 0.0372),
and the rule before the change does not (half up for the first cases, half to even over a
fixed-point 1/count for exact_means: so the cases still tell the rules apart), 1
otherwise, 77 (ctest's SKIP_RETURN_CODE) when node or onnxruntime-node is missing (after the
numpy half has passed).
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_reference as iref  # noqa: E402
import make_quantized_models as mqm  # noqa: E402
import ort_oracle  # noqa: E402
import quantized_reference as qref  # noqa: E402

SEED = 14
SCALE = np.float32(0.0372)
DYADIC = np.float32(0.03125)


def tie_inputs(rng, dtype, shape, zero_point, spread=6):
    """Integers near the zero point (small sums: many exact ties), with the type's extremes in
    the last channel."""
    info = np.iinfo(dtype)
    x = np.clip(int(zero_point) + rng.integers(-spread, spread + 1, shape), info.min, info.max)
    x[:, -1] = rng.choice([info.min, info.max], x[:, -1].shape)
    return x.astype(dtype)


def save(root, name, nodes, inits, inputs, outputs, data, microsoft=False, ort_tolerance=0):
    mqm.save_case(root, name, nodes, inits, inputs, outputs, data, tolerance=0, microsoft=microsoft)
    with open(os.path.join(root, 'cases', name, 'ort_tolerance'), 'w') as f:
        f.write('%d\n' % ort_tolerance)


def cases(root):
    rng = np.random.default_rng(SEED)
    t = mqm.tensor
    # torch's ResNet-18 head: a QDQ GlobalAveragePool of a 2x2 map and the same mean written as
    # ReduceMean (keepdims 0), uint8 with an odd zero point, output quantization = input's. With
    # the scale 0.0372, ONNX Runtime's float32 evaluation (each s * q rounded to float32) misses a
    # few of the exact ties (6 of 256 here), so that case holds ONNX Runtime to one unit; with a
    # power-of-two scale float32 is exact and so is ONNX Runtime.
    x = tie_inputs(rng, np.uint8, (1, 256, 2, 2), 3)
    for name, scale, ort_tolerance in (('qdq_global_average_pool_2x2_u8', SCALE, 1),
                                       ('qdq_global_average_pool_2x2_u8_dyadic', DYADIC, 0)):
        inits = [t('s', scale), t('z', np.uint8(3))]
        nodes = [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
                 helper.make_node('GlobalAveragePool', ['d'], ['g'], name='gap'),
                 helper.make_node('QuantizeLinear', ['g', 's', 'z'], ['gq'], name='q_gap'),
                 helper.make_node('ReduceMean', ['d'], ['m'], name='mean', axes=[2, 3], keepdims=0),
                 helper.make_node('QuantizeLinear', ['m', 's', 'z'], ['mq'], name='q_mean')]
        save(root, name, nodes, inits, ['x'], ['gq', 'mq'], [x], ort_tolerance=ort_tolerance)
    # QDQ AveragePool 2x2/2 of int8: the same scale (zero point 0), twice the scale (zero point
    # -1: mean / 2 ties on odd sums of 4 too), and a padded 3x3 without count_include_pad (the
    # int16 path: counts 4, 6 and 9).
    # The scale is a power of two here: ONNX Runtime's float32 AveragePool rounds each s * q, so
    # with s = 0.0372 its means miss some exact ties (-1.5 computed as -1.4999999).
    x = tie_inputs(rng, np.int8, (1, 16, 6, 6), 0)
    inits = [t('s', DYADIC), t('z', np.int8(0)), t('s2', np.float32(2 * DYADIC)), t('z2', np.int8(-1))]
    two = dict(kernel_shape=[2, 2], strides=[2, 2])
    padded = dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=0)
    nodes = [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
             helper.make_node('AveragePool', ['d'], ['a'], name='avg', **two),
             helper.make_node('QuantizeLinear', ['a', 's', 'z'], ['aq'], name='q_avg'),
             helper.make_node('AveragePool', ['d'], ['b'], name='avg_half', **two),
             helper.make_node('QuantizeLinear', ['b', 's2', 'z2'], ['bq'], name='q_avg_half'),
             helper.make_node('AveragePool', ['d'], ['p'], name='avg_padded', **padded),
             helper.make_node('QuantizeLinear', ['p', 's', 'z'], ['pq'], name='q_avg_padded')]
    save(root, 'qdq_average_pools_s8', nodes, inits, ['x'], ['aq', 'bq', 'pq'], [x])
    # com.microsoft QLinearGlobalAveragePool over 4x4 (count 16) and QLinearAveragePool 2x2/2,
    # uint8. The output zero points are even: ONNX Runtime's kernels of these two ops round
    # `mean / s_y + zy` half to even, which differs from QuantizeLinear's
    # `round_half_even(mean / s_y) + zy` on ties when zy is odd (docs/semantics.md).
    x = tie_inputs(rng, np.uint8, (1, 32, 4, 4), 128, spread=9)
    inits = [t('s', SCALE), t('z', np.uint8(128)), t('z7', np.uint8(126))]
    nodes = [helper.make_node('QLinearGlobalAveragePool', ['x', 's', 'z', 's', 'z'], ['g'], name='qgap',
                              domain='com.microsoft', channels_last=0),
             helper.make_node('QLinearAveragePool', ['x', 's', 'z', 's', 'z7'], ['p'], name='qavg',
                              domain='com.microsoft', **two)]
    save(root, 'qlinear_average_pools_u8', nodes, inits, ['x'], ['g', 'p'], [x], microsoft=True)
    # Exact means: windows whose count is even but not a power of two (2x3: 6, 3x4: 12, a 6x6
    # global pool: 36, as MobileNetV2 at 192x192 ends), equal scales and a ratio of 2. No
    # mul / 2^shift equals 1/6, so a fixed-point multiplier turns the exact ties (sum = 6k + 3)
    # into near ties; the requantization divides by the count's odd part instead. (A multiplier
    # below 1/count moves a tie toward 0, right for +-0.5 but not for +-1.5: the sums must
    # reach those, hence the wider spread.)
    x = tie_inputs(rng, np.int8, (1, 64, 6, 6), 0, spread=12)
    inits = [t('s', DYADIC), t('z', np.int8(0)), t('s2', np.float32(2 * DYADIC)), t('z2', np.int8(-1))]
    nodes = [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
             helper.make_node('AveragePool', ['d'], ['a'], name='avg_2x3', kernel_shape=[2, 3], strides=[2, 3]),
             helper.make_node('QuantizeLinear', ['a', 's', 'z'], ['aq'], name='q_avg_2x3'),
             helper.make_node('AveragePool', ['d'], ['b'], name='avg_3x4', kernel_shape=[3, 4], strides=[3, 2]),
             helper.make_node('QuantizeLinear', ['b', 's2', 'z2'], ['bq'], name='q_avg_3x4_half'),
             helper.make_node('GlobalAveragePool', ['d'], ['g'], name='gap_6x6'),
             helper.make_node('QuantizeLinear', ['g', 's', 'z'], ['gq'], name='q_gap_6x6')]
    save(root, 'exact_means_s8', nodes, inits, ['x'], ['aq', 'bq', 'gq'], [x])
    x = tie_inputs(rng, np.uint8, (1, 256, 2, 3), 3)
    inits = [t('s', DYADIC), t('z', np.uint8(3))]
    nodes = [helper.make_node('DequantizeLinear', ['x', 's', 'z'], ['d'], name='dq'),
             helper.make_node('ReduceMean', ['d'], ['m'], name='mean_2x3', axes=[2, 3], keepdims=0),
             helper.make_node('QuantizeLinear', ['m', 's', 'z'], ['mq'], name='q_mean_2x3')]
    save(root, 'exact_means_u8', nodes, inits, ['x'], ['mq'], [x])


def share(a, b):
    return '%d of %d (%.1f%%)' % (np.count_nonzero(a != b), a.size, 100.0 * np.count_nonzero(a != b) / a.size)


def check(work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases(work)
    missing = ort_oracle.ort_available()
    failures, rows, jobs = [], [], []
    for name in sorted(os.listdir(os.path.join(work, 'cases'))):
        directory = os.path.join(work, 'cases', name)
        model = onnx.load(os.path.join(directory, 'network.onnx'))
        inputs = ort_oracle.load_npz(os.path.join(directory, 'inputs.npz'))
        typed = [x.astype(np.uint8 if i.type.tensor_type.elem_type == TensorProto.UINT8 else np.int8)
                 for x, i in zip(inputs, model.graph.input)]
        spec = ort_oracle.load_npz(os.path.join(directory, 'outputs.npz'))
        iref.MEANS_ROUND_HALF_EVEN, iref.EXACT_MEANS = True, True
        new = [np.asarray(y, np.int64) for y in iref.run(model, typed)]
        # The rule before the exact means (half to even over a fixed-point 1/count) for the
        # exact_means cases, before the half-to-even rounding (half up) for the others.
        exact_case = name.startswith('exact_means')
        iref.MEANS_ROUND_HALF_EVEN, iref.EXACT_MEANS = exact_case, False
        old = [np.asarray(y, np.int64) for y in iref.run(model, typed)]
        iref.MEANS_ROUND_HALF_EVEN, iref.EXACT_MEANS = True, True
        feeds = []
        for k, (x, i) in enumerate(zip(typed, model.graph.input)):
            file = os.path.join(work, '%s_in%d.raw' % (name, k))
            x.tofile(file)
            feeds.append({'name': i.name, 'type': str(x.dtype), 'dims': list(x.shape), 'file': file})
        outs = [os.path.join(work, '%s_out%d.raw' % (name, k)) for k in range(len(model.graph.output))]
        jobs.append({'model': os.path.join(directory, 'network.onnx'), 'optimized': False, 'inputs': feeds,
                     'outputs': [{'name': o.name, 'file': f} for o, f in zip(model.graph.output, outs)]})
        for k, o in enumerate(model.graph.output):
            rows.append((name, o.name, spec[k].astype(np.int64), new[k], old[k], outs[k],
                         ort_oracle.per_op_tolerance(directory)))
    if missing is None:
        ort_oracle.run_jobs(jobs, work)
    print('%-38s %-4s %-24s %-24s %s' % ('case', 'out', 'new rule vs float ref', 'old rule vs float ref',
                                         'ONNX Runtime vs float ref'))
    for name, out, spec, new, old, ort_file, ort_tolerance in rows:
        ort = ort_oracle.read_output(ort_file).astype(np.int64).reshape(spec.shape) if missing is None else None
        print('%-38s %-4s %-24s %-24s %s' % (name, out, share(new, spec), share(old, spec),
                                             share(ort, spec) if ort is not None else 'skipped'))
        if np.any(new != spec):
            failures.append('%s/%s: the integer rule differs from the float reference' % (name, out))
        if ort is not None and np.any(np.abs(ort - spec) > ort_tolerance):
            failures.append('%s/%s: ONNX Runtime differs from the float reference by more than %d'
                            % (name, out, ort_tolerance))
        if not np.any(old != spec):
            failures.append('%s/%s: the rule before the change equals the float reference: the case has no '
                            'ties it rounds differently' % (name, out))
    for f in failures:
        print('FAIL: ' + f)
    if failures:
        return 1
    if missing is not None:
        print('SKIPPED the ONNX Runtime half: ' + missing)
        return ort_oracle.SKIP
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('cases', 'check'):
        raise SystemExit(__doc__)
    if sys.argv[1] == 'cases':
        cases(sys.argv[2])
        return 0
    return check(sys.argv[2])


if __name__ == '__main__':
    sys.exit(main())
