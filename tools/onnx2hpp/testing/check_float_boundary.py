#!/usr/bin/python3
"""The float ends on the device (onnx2hpp --float-boundary) against ONNX Runtime.

    check_float_boundary.py models OUTDIR           # the models and their float inputs (configure time)
    check_float_boundary.py check RUNNER OUTDIR     # run Tessera and ONNX Runtime, compare

`models` writes OUTDIR/<case>/network.onnx and input<i>.bin (raw little-endian, ONNX order:
float32 for a float input, the integer type for an integer one). Each model is
float input -> QuantizeLinear -> a quantized op -> QuantizeLinear -> DequantizeLinear -> float
output, with a non-power-of-two scale; the samples (numpy seed 1414) hold random values in and
beyond the range, every exact tie `(k + 1/2) * scale` that float32 keeps exact, the floats just
beside those ties, the ties of x * (1 / scale) that a division does not produce, NaN, +-inf and
+-1e30. Cases (the tolerance is in units of the output scale):

| case | middle op | tolerance |
|---|---|---|
| maxpool_s8 | MaxPool 2x2 (moves integers: exact) | 0 |
| conv_u8 | Conv 3x3, uint8 activations, zero point 128 | 1 (one requantization) |
| add_mixed | Add of the float input x and an int8 graph input b | 1 (one requantization) |

`check` runs RUNNER OUTDIR/<case> (tests/float_boundary/float_boundary_runner.cpp: the header
converted with --float-boundary, tessera::float_executor), which writes device_q<i>.bin (the
integers the network read for float input i) and output<i>.bin (float32, ONNX order), then
ONNX Runtime (onnxruntime-node, graph optimisations disabled) on the same inputs with the
QuantizeLinear outputs added as graph outputs. Requires (a) every device-quantized input equal
to ONNX Runtime's QuantizeLinear output, and (b) every float output equal to ONNX Runtime's
within the case's tolerance times the output scale (exactly equal floats where it is 0).
Exit 0 when all agree, 1 otherwise, 77 (skipped) without node or onnxruntime-node.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ort_oracle  # noqa: E402  (ort_available, the runner's location)

SEED = 1414
NP = {TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8, TensorProto.FLOAT: np.float32}
ORT = {TensorProto.INT8: 'int8', TensorProto.UINT8: 'uint8', TensorProto.FLOAT: 'float32'}


def f32(v):
    return np.float32(v)


def scalar(name, elem_type, value):
    return helper.make_tensor(name, elem_type, [], [value])


def sample(rng, shape, scale, zp, qtype):
    """Random floats over the range and beyond, then the edge values written over the first ones."""
    info = np.iinfo(NP[qtype])
    lo, hi = (info.min - zp) * float(scale), (info.max - zp) * float(scale)
    x = rng.uniform(lo * 1.2, hi * 1.2, size=shape).astype(np.float32).ravel()
    edges = [np.nan, np.inf, -np.inf, 1e30, -1e30, f32(hi * 1000), f32(lo * 1000)]
    s = f32(scale)
    for k in range(-6, 6):  # exact ties (when float32 keeps them) and their neighbours
        t = f32((k + 0.5) * float(s))
        edges += [t, np.nextafter(t, f32(np.inf)), np.nextafter(t, f32(-np.inf))]
    # The type's ends: (qmin - zp - 1/2) and (qmax - zp + 1/2) scale units, ties at the saturation.
    edges += [f32((info.min - zp - 0.5) * float(s)), f32((info.max - zp + 0.5) * float(s))]
    # Where x / s and x * (1 / s) round differently (for s = 0.1f: 1.55f, 3.2500002f).
    r = f32(1) / s
    found = 0
    for k in range(-40, 40):
        t = f32((k + 0.5) * float(s))
        for c in (t, np.nextafter(t, f32(np.inf)), np.nextafter(t, f32(-np.inf))):
            if np.rint(f32(c / s)) != np.rint(f32(c * r)) and found < 8:
                edges.append(c)
                found += 1
    edges = np.array(edges, dtype=np.float32)
    n = min(len(edges), x.size)
    x[:n] = edges[:n]
    return x.reshape(shape), found


def save(root, name, nodes, inits, inputs, outputs, data, tolerance):
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)], producer_name='check_float_boundary')
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, 'network.onnx'))
    for i, a in enumerate(data):
        a.tofile(os.path.join(d, 'input%d.bin' % i))
    with open(os.path.join(d, 'tolerance'), 'w') as f:
        f.write('%d\n' % tolerance)


def make_models(root):
    rng = np.random.default_rng(SEED)
    vi = helper.make_tensor_value_info
    # maxpool_s8: scale 0.1f (not a power of two), zero point -3.
    s, z = f32(0.1), -3
    x, found = sample(rng, (1, 3, 8, 8), s, z, TensorProto.INT8)
    assert found >= 4, 'no x / s vs x * (1 / s) differences found'
    nodes = [helper.make_node('QuantizeLinear', ['x', 's', 'z'], ['xq']),
             helper.make_node('DequantizeLinear', ['xq', 's', 'z'], ['xd']),
             helper.make_node('MaxPool', ['xd'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node('QuantizeLinear', ['p', 's', 'z'], ['pq']),
             helper.make_node('DequantizeLinear', ['pq', 's', 'z'], ['y'])]
    save(root, 'maxpool_s8', nodes, [scalar('s', TensorProto.FLOAT, s), scalar('z', TensorProto.INT8, z)],
         [vi('x', TensorProto.FLOAT, [1, 3, 8, 8])], [vi('y', TensorProto.FLOAT, [1, 3, 4, 4])], [x], 0)

    # conv_u8: uint8 activations (zero point 128), int8 per-tensor weights, int32 bias.
    sx, zx, sw, sy, zy = f32(0.0235294122), 128, f32(0.0125), f32(0.0470588244), 120
    x, _ = sample(rng, (1, 2, 6, 6), sx, zx, TensorProto.UINT8)
    w = rng.integers(-60, 61, size=(4, 2, 3, 3)).astype(np.int8)
    bias = rng.integers(-500, 501, size=(4,)).astype(np.int32)
    nodes = [helper.make_node('QuantizeLinear', ['x', 'sx', 'zx'], ['xq']),
             helper.make_node('DequantizeLinear', ['xq', 'sx', 'zx'], ['xd']),
             helper.make_node('DequantizeLinear', ['w', 'sw'], ['wd']),
             helper.make_node('DequantizeLinear', ['b', 'sb'], ['bd']),
             helper.make_node('Conv', ['xd', 'wd', 'bd'], ['c'], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node('QuantizeLinear', ['c', 'sy', 'zy'], ['cq']),
             helper.make_node('DequantizeLinear', ['cq', 'sy', 'zy'], ['y'])]
    inits = [scalar('sx', TensorProto.FLOAT, sx), scalar('zx', TensorProto.UINT8, zx),
             helper.make_tensor('w', TensorProto.INT8, w.shape, w.ravel().tolist()),
             scalar('sw', TensorProto.FLOAT, sw),
             helper.make_tensor('b', TensorProto.INT32, bias.shape, bias.tolist()),
             scalar('sb', TensorProto.FLOAT, f32(sx * sw)),
             scalar('sy', TensorProto.FLOAT, sy), scalar('zy', TensorProto.UINT8, zy)]
    save(root, 'conv_u8', nodes, inits, [vi('x', TensorProto.FLOAT, [1, 2, 6, 6])],
         [vi('y', TensorProto.FLOAT, [1, 4, 6, 6])], [x], 1)

    # add_mixed: a float input x and an int8 input b (already quantized by the caller), one Add.
    sa, za, sb, zb, so, zo = f32(0.07), 5, f32(0.05), -10, f32(0.11), 2
    x, _ = sample(rng, (1, 40), sa, za, TensorProto.INT8)
    b = rng.integers(-128, 128, size=(1, 40)).astype(np.int8)
    nodes = [helper.make_node('QuantizeLinear', ['x', 'sa', 'za'], ['xq']),
             helper.make_node('DequantizeLinear', ['xq', 'sa', 'za'], ['xd']),
             helper.make_node('DequantizeLinear', ['b', 'sb', 'zb'], ['bd']),
             helper.make_node('Add', ['xd', 'bd'], ['sum']),
             helper.make_node('QuantizeLinear', ['sum', 'so', 'zo'], ['sq']),
             helper.make_node('DequantizeLinear', ['sq', 'so', 'zo'], ['y'])]
    inits = [scalar('sa', TensorProto.FLOAT, sa), scalar('za', TensorProto.INT8, za),
             scalar('sb', TensorProto.FLOAT, sb), scalar('zb', TensorProto.INT8, zb),
             scalar('so', TensorProto.FLOAT, so), scalar('zo', TensorProto.INT8, zo)]
    save(root, 'add_mixed', nodes, inits, [vi('x', TensorProto.FLOAT, [1, 40]), vi('b', TensorProto.INT8, [1, 40])],
         [vi('y', TensorProto.FLOAT, [1, 40])], [x, b], 1)


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def check_case(runner, d, work):
    name = os.path.basename(d)
    model = onnx.load(os.path.join(d, 'network.onnx'))
    r = subprocess.run([runner, name, d], capture_output=True, text=True)
    if r.returncode != 0:
        print('%s: the Tessera runner failed (%d): %s%s' % (name, r.returncode, r.stdout, r.stderr))
        return False
    inputs = graph_inputs(model)
    quantize_of = {n.input[0]: n.output[0] for n in model.graph.node if n.op_type == 'QuantizeLinear'}
    qtype = {}
    for n in model.graph.node:
        if n.op_type == 'QuantizeLinear':
            zp = next(t for t in model.graph.initializer if t.name == n.input[2])
            qtype[n.output[0]] = zp.data_type
    # ONNX Runtime on the same inputs, the QuantizeLinear outputs of the float inputs as outputs too.
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    floats = [i for i in inputs if i.type.tensor_type.elem_type == TensorProto.FLOAT]
    for i in floats:
        q = quantize_of[i.name]
        cut.graph.output.append(helper.make_tensor_value_info(q, qtype[q], None))
    os.makedirs(work, exist_ok=True)
    cut_path = os.path.join(work, name + '.onnx')
    onnx.save(cut, cut_path)
    job_inputs = []
    for k, i in enumerate(inputs):
        t = i.type.tensor_type
        job_inputs.append({'name': i.name, 'type': ORT[t.elem_type], 'dims': [d_.dim_value for d_ in t.shape.dim],
                           'file': os.path.join(d, 'input%d.bin' % k)})
    outputs = [o.name for o in cut.graph.output]
    job = {'model': cut_path, 'optimized': False, 'inputs': job_inputs,
           'outputs': [{'name': o, 'file': os.path.join(work, '%s.%s.ort' % (name, o))} for o in outputs]}
    try:
        ort_oracle.run_jobs([job], work)
    except (RuntimeError, ort_oracle.OrtCannotRun) as e:
        print('%s: %s' % (name, e))
        return False

    def ort(o, dtype):
        values = ort_oracle.read_output(os.path.join(work, '%s.%s.ort' % (name, o))).reshape(-1)
        assert values.dtype == dtype, (o, values.dtype, dtype)
        return values

    ok = True
    # (a) the device's quantized float inputs against ONNX Runtime's QuantizeLinear, exactly.
    for k, i in enumerate(inputs):
        if i.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        q = quantize_of[i.name]
        x = np.fromfile(os.path.join(d, 'input%d.bin' % k), dtype=np.float32)
        mine = np.fromfile(os.path.join(d, 'device_q%d.bin' % k), dtype=NP[qtype[q]])
        theirs = ort(q, NP[qtype[q]])
        bad = np.nonzero(mine != theirs)[0]
        q_node = next(n for n in model.graph.node if n.output[0] == q)
        scale = np.float32(next(t for t in model.graph.initializer if t.name == q_node.input[1]).float_data[0])
        with np.errstate(invalid='ignore', over='ignore'):
            v = x / scale  # float32, as the rule
            ties = int(np.sum(np.isfinite(v) & (np.abs(v - np.trunc(v)) == np.float32(0.5))))
            division_matters = int(np.sum(np.isfinite(v) & (np.rint(v) != np.rint(x * (np.float32(1) / scale)))))
        print('%s: input %s quantized on the device: %d of %d equal to ONNX Runtime (%d NaN, %d inf, %d exact '
              'ties of x / scale in float32, %d where x * (1 / scale) would round elsewhere)'
              % (name, i.name, x.size - bad.size, x.size, int(np.isnan(x).sum()), int(np.isinf(x).sum()), ties,
                 division_matters))
        for j in bad[:8]:
            print('  element %d: x = %r, Tessera %d, ONNX Runtime %d' % (j, float(x[j]), mine[j], theirs[j]))
        ok = ok and bad.size == 0
    # (b) the float outputs within the case's tolerance (in output scale units).
    tolerance = int(open(os.path.join(d, 'tolerance')).read().split()[0])
    for k, o in enumerate(model.graph.output):
        dq = next(n for n in model.graph.node if n.output[0] == o.name)
        scale = float(next(t for t in model.graph.initializer if t.name == dq.input[1]).float_data[0])
        mine = np.fromfile(os.path.join(d, 'output%d.bin' % k), dtype=np.float32)
        theirs = ort(o.name, np.float32)
        units = np.abs(mine.astype(np.float64) - theirs.astype(np.float64)) / scale
        worst = float(units.max()) if units.size else 0.0
        exact = int(np.sum(mine == theirs))
        print('%s: output %s: %d of %d floats equal to ONNX Runtime, largest difference %.6g output units '
              '(tolerance %d)' % (name, o.name, exact, mine.size, worst, tolerance))
        good = exact == mine.size if tolerance == 0 else worst <= tolerance + 1e-6
        ok = ok and good and not np.isnan(mine).any()
    return ok


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'models':
        make_models(sys.argv[2])
        return 0
    if len(sys.argv) != 4 or sys.argv[1] != 'check':
        print(__doc__)
        return 2
    why = ort_oracle.ort_available()
    if why is not None:
        print('SKIPPED: ' + why)
        return ort_oracle.SKIP
    runner, root = sys.argv[2], sys.argv[3]
    cases = sorted(c for c in os.listdir(root) if os.path.exists(os.path.join(root, c, 'network.onnx')))
    ok = True
    for c in cases:
        ok = check_case(runner, os.path.join(root, c), os.path.join(root, '_ort')) and ok
    print('float boundary: %d cases, %s' % (len(cases), 'all agree with ONNX Runtime' if ok else 'DIFFERENCES'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
