#!/usr/bin/python3
"""The float ends on the device (onnx2hpp --float-boundary) against ONNX Runtime.

    check_float_boundary.py models OUTDIR           # the models and their float inputs (configure time)
    check_float_boundary.py check RUNNER OUTDIR     # run Tessera and ONNX Runtime, compare
    check_float_boundary.py golden RUNNER CASE CORPUS_CASE_DIR WORKDIR
                                                    # a Deeploy Kernels/Mixed case against its golden data

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
| fake_mul_u8 | fake-quantized ends (Mul by 0.1, Add 3, Round, Clip [0, 255], Cast uint8; MaxPool 2x2; Cast, Sub 3, Div by 0.1) | 0 |
| fake_div_s8 | fake-quantized ends (Div by 0.1, Add 5, Round, Clip [-127, 127]; MaxPool 2x2; Sub 5, Mul by 0.1) | 0 |

The fake cases are written as Brevitas-style exporters write their ends (onnx2hpp
fake_quantization.hpp): an odd zero point added before rounding, a multiplier instead of a
divisor; their samples also hold the values where rounding the product before adding the zero
point differs from a fused multiply-add. Their `ends` file names, per float input, the tensor
whose integers the device must reproduce (the Clip's or the Cast's output), its integer type,
its type in the model, the output units' scale, and the input's arithmetic, operand and zero point.

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
    make_fake_models(root)


def fake_sample(rng, shape, scale, multiply, zp, lo, hi):
    """Random floats over the Clip's range and beyond, the model's own ties (the value before Round
    at k + 1/2), their neighbours, NaN-free edges (the model's Cast of a NaN is undefined)."""
    s = f32(scale)
    to_real = (lambda q: (q - zp) / float(s)) if multiply else (lambda q: (q - zp) * float(s))
    x = rng.uniform(to_real(lo) * 1.2 - 1, to_real(hi) * 1.2 + 1, size=shape).astype(np.float32).ravel()
    edges = [np.inf, -np.inf, 1e30, -1e30]
    for k in range(lo, min(hi, lo + 12)):
        t = f32(to_real(k + 0.5))
        edges += [t, np.nextafter(t, f32(np.inf)), np.nextafter(t, f32(-np.inf))]
    if multiply:  # where the product rounded before the add differs from a fused multiply-add
        found = 0
        for k in range(lo, hi):
            t = f32(to_real(k + 0.5))
            for c in (t, np.nextafter(t, f32(np.inf)), np.nextafter(t, f32(-np.inf))):
                two = np.rint(f32(f32(c * s) + f32(zp)))
                fused = np.rint(f32(np.float64(c) * np.float64(s) + zp))
                if two != fused and found < 12:
                    edges.append(c)
                    found += 1
        assert found >= 4, 'no product-then-add roundings found'
    edges = np.array(edges, dtype=np.float32)
    n = min(len(edges), x.size)
    x[:n] = edges[:n]
    return x.reshape(shape)


def make_fake_models(root):
    rng = np.random.default_rng(SEED + 1)
    vi = helper.make_tensor_value_info
    # fake_mul_u8: Mul by 0.1 (a multiplier), zero point 3 (odd), Clip [0, 255], Cast uint8.
    m, z = f32(0.1), 3
    x = fake_sample(rng, (1, 2, 6, 6), m, True, z, 0, 255)
    nodes = [helper.make_node('Mul', ['x', 'm'], ['xm']),
             helper.make_node('Add', ['xm', 'z'], ['xz']),
             helper.make_node('Round', ['xz'], ['xr']),
             helper.make_node('Clip', ['xr', 'lo', 'hi'], ['xc']),
             helper.make_node('Cast', ['xc'], ['xq'], to=TensorProto.UINT8),
             helper.make_node('MaxPool', ['xq'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node('Cast', ['p'], ['pf'], to=TensorProto.FLOAT),
             helper.make_node('Sub', ['pf', 'z'], ['ps']),
             helper.make_node('Div', ['ps', 'm'], ['y'])]
    inits = [scalar('m', TensorProto.FLOAT, m), scalar('z', TensorProto.FLOAT, z),
             scalar('lo', TensorProto.FLOAT, 0), scalar('hi', TensorProto.FLOAT, 255)]
    save(root, 'fake_mul_u8', nodes, inits, [vi('x', TensorProto.FLOAT, [1, 2, 6, 6])],
         [vi('y', TensorProto.FLOAT, [1, 2, 3, 3])], [x], 0)
    with open(os.path.join(root, 'fake_mul_u8', 'ends'), 'w') as f:
        f.write('x xq uint8 uint8 1 multiply 0.1 3\n')
    # fake_div_s8: Div by 0.1, zero point 5 (odd), Clip [-127, 127], no Cast (the integers stay float).
    s, z = f32(0.1), 5
    x = fake_sample(rng, (1, 3, 4, 4), s, False, z, -127, 127)
    nodes = [helper.make_node('Div', ['x', 's'], ['xs']),
             helper.make_node('Add', ['xs', 'z'], ['xz']),
             helper.make_node('Round', ['xz'], ['xr']),
             helper.make_node('Clip', ['xr', 'lo', 'hi'], ['xq']),
             helper.make_node('MaxPool', ['xq'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node('Sub', ['p', 'z'], ['ps']),
             helper.make_node('Mul', ['ps', 's'], ['y'])]
    inits = [scalar('s', TensorProto.FLOAT, s), scalar('z', TensorProto.FLOAT, z),
             scalar('lo', TensorProto.FLOAT, -127), scalar('hi', TensorProto.FLOAT, 127)]
    save(root, 'fake_div_s8', nodes, inits, [vi('x', TensorProto.FLOAT, [1, 3, 4, 4])],
         [vi('y', TensorProto.FLOAT, [1, 3, 2, 2])], [x], 0)
    with open(os.path.join(root, 'fake_div_s8', 'ends'), 'w') as f:
        f.write('x xq int8 float32 1 divide 0.1 5\n')


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
    # A fake-quantized case: the tensor that holds the device's integers, its type and the
    # output scale (for differences in output units).
    fake_scale = None
    fake_rule = {}  # float input -> (arithmetic, operand, zero point) of a fake-quantized case
    model_type = {}  # a fake case's integer tensors as the model types them
    ends = os.path.join(d, 'ends')
    if os.path.exists(ends):
        types = {'int8': TensorProto.INT8, 'uint8': TensorProto.UINT8, 'float32': TensorProto.FLOAT}
        for line in open(ends):
            x_name, q_name, q_type, kept_as, fake_scale, arithmetic, operand, zp = line.split()
            fake_rule[x_name] = (arithmetic, np.float32(operand), np.float32(zp))
            quantize_of[x_name] = q_name
            qtype[q_name] = types[q_type]
            model_type[q_name] = types[kept_as]
            fake_scale = float(fake_scale)
    # ONNX Runtime on the same inputs, the QuantizeLinear outputs of the float inputs as outputs too.
    cut = onnx.ModelProto()
    cut.CopyFrom(model)
    floats = [i for i in inputs if i.type.tensor_type.elem_type == TensorProto.FLOAT]
    for i in floats:
        q = quantize_of[i.name]
        cut.graph.output.append(helper.make_tensor_value_info(q, model_type.get(q, qtype[q]), None))
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
        theirs = ort(q, NP[model_type.get(q, qtype[q])]).astype(NP[qtype[q]])  # exact: integers in range
        bad = np.nonzero(mine != theirs)[0]
        q_node = next(n for n in model.graph.node if n.output[0] == q)
        if fake_scale is not None:  # the model's Div/Mul operand: ties of its own arithmetic
            scale = np.float32(1)
        else:
            scale = np.float32(next(t for t in model.graph.initializer if t.name == q_node.input[1]).float_data[0])
        with np.errstate(invalid='ignore', over='ignore'):
            if i.name in fake_rule:  # the model's own arithmetic, step by step in float32
                arithmetic, operand, zp = fake_rule[i.name]
                product = x * operand if arithmetic == 'multiply' else x / operand
                v = (product + zp).astype(np.float32)
                if arithmetic == 'multiply':  # a fused multiply-add rounds once
                    other = (x.astype(np.float64) * np.float64(operand) + np.float64(zp)).astype(np.float32)
                    why = 'a fused multiply-add'
                else:  # QuantizeLinear adds the zero point after rounding
                    other = np.rint(product) + zp
                    why = 'the zero point added after rounding'
                what = 'x %s %g + %g' % ('*' if arithmetic == 'multiply' else '/', operand, zp)
            else:
                v = x / scale  # float32, as the rule
                other = x * (np.float32(1) / scale)
                why, what = 'x * (1 / scale)', 'x / scale'
            ties = int(np.sum(np.isfinite(v) & (np.abs(v - np.trunc(v)) == np.float32(0.5))))
            matters = int(np.sum(np.isfinite(v) & (np.rint(v) != np.rint(other))))
        print('%s: input %s quantized on the device: %d of %d equal to ONNX Runtime (%d NaN, %d inf, %d exact '
              'ties of %s in float32, %d where %s would round elsewhere)'
              % (name, i.name, x.size - bad.size, x.size, int(np.isnan(x).sum()), int(np.isinf(x).sum()), ties,
                 what, matters, why))
        for j in bad[:8]:
            print('  element %d: x = %r, Tessera %d, ONNX Runtime %d' % (j, float(x[j]), mine[j], theirs[j]))
        ok = ok and bad.size == 0
    # (b) the float outputs within the case's tolerance (in output scale units).
    tolerance = int(open(os.path.join(d, 'tolerance')).read().split()[0])
    for k, o in enumerate(model.graph.output):
        dq = next(n for n in model.graph.node if n.output[0] == o.name)
        if fake_scale is not None:
            scale = fake_scale
        else:
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


def check_golden(runner, case, corpus_case, work):
    """A Deeploy Kernels/Mixed case (a float graph quantized or dequantized by float ops) run by the
    runner and compared with the corpus' golden outputs, exactly."""
    os.makedirs(work, exist_ok=True)
    model = onnx.load(os.path.join(corpus_case, 'network.onnx'))
    inputs = np.load(os.path.join(corpus_case, 'inputs.npz'))
    golden = np.load(os.path.join(corpus_case, 'outputs.npz'))
    for k, i in enumerate(graph_inputs(model)):
        inputs[i.name].tofile(os.path.join(work, 'input%d.bin' % k))  # float32, or the integers as stored
    r = subprocess.run([runner, case, work], capture_output=True, text=True)
    if r.returncode != 0:
        print('%s: the Tessera runner failed (%d): %s%s' % (case, r.returncode, r.stdout, r.stderr))
        return 1
    ok = True
    for k, o in enumerate(model.graph.output):
        want = golden[o.name].ravel()
        path = os.path.join(work, 'output%d.bin' % k)
        size = os.path.getsize(path)
        mine = np.fromfile(path, dtype=np.float32 if size == 4 * want.size else np.int8)
        equal = int(np.sum(mine.astype(np.float32) == want.astype(np.float32)))
        print('%s: output %s (%s on the device): %d of %d equal to the golden data' % (
            case, o.name, mine.dtype, equal, want.size))
        ok = ok and equal == want.size
    return 0 if ok else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'models':
        make_models(sys.argv[2])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == 'golden':
        return check_golden(*sys.argv[2:])
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
