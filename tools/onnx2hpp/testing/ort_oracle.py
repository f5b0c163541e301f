#!/usr/bin/python3
"""ONNX Runtime as a second oracle: Tessera's tensors against ONNX Runtime, op by op.

    ort_oracle.py CORPUS_TESTS WORKDIR TEST=CASE_DIR [TEST=CASE_DIR ...]

Each TEST is a test case of the corpus test executable (tests/corpus, `tessera_corpus_tests`)
whose directory CASE_DIR holds network.onnx and inputs.npz; the cases given together share one
network (the samples of one model). For every case:

1. the executable runs the fused network on the case's inputs (TESSERA_DUMP_TENSORS=DIR: the
   flat fused run alone, which writes every device tensor that is an ONNX tensor, in ONNX
   order);
2. for every quantized (integer) tensor T that Tessera computed and that a node of the graph
   produces, a sub-model is cut from the graph: T's producers back to the nearest integer
   tensors Tessera also computed (or graph inputs), which become the sub-model's inputs;
3. ONNX Runtime (onnxruntime-node, tools/onnx2hpp/testing/ort/run_ort.js) runs each sub-model
   with graph optimisations disabled -- the plain ONNX semantics: DequantizeLinear, the float
   op in float32, QuantizeLinear rounding half to even -- on Tessera's own values of its
   inputs, so each op is judged alone, not on the errors it inherits;
4. every such T must be within one unit of ONNX Runtime's value (docs/semantics.md: the
   per-requantization bound; 0 for a lookup table, which is exact, but one unit is allowed
   for float32 against float64 evaluation of its function at a tie), or within the number in
   CASE_DIR/ort_tolerance when there is one (0 for the exact-tie means of make_tie_models.py);
5. the whole network also runs in ONNX Runtime, unoptimised and optimised; the largest
   end-to-end difference is printed, and on classifiers (a `classifier` file in CASE_DIR) the
   top-1 class must equal ONNX Runtime's reference wherever ONNX Runtime's optimised and
   reference paths agree with each other (same class, outputs within one unit of each other).

Exit status 0 when everything agrees, 1 on a difference or failure, 77 (ctest
SKIP_RETURN_CODE) when node or onnxruntime-node is not installed: the test then reports itself
skipped, by name.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, 'ort', 'run_ort.js')
SKIP = 77
PER_OP_TOLERANCE = 1


def per_op_tolerance(case_dir):
    """PER_OP_TOLERANCE, or the case's own (the file ort_tolerance: 0 where the rule is exact)."""
    path = os.path.join(case_dir, 'ort_tolerance')
    if not os.path.exists(path):
        return PER_OP_TOLERANCE
    with open(path) as f:
        return int(f.read().split()[0])

ORT_TYPES = {TensorProto.UINT8: 'uint8', TensorProto.INT8: 'int8', TensorProto.INT16: 'int16',
             TensorProto.UINT16: 'uint16', TensorProto.INT32: 'int32', TensorProto.INT64: 'int64',
             TensorProto.FLOAT: 'float32', TensorProto.DOUBLE: 'float64'}
NP_TYPES = {'uint8': np.uint8, 'int8': np.int8, 'int16': np.int16, 'uint16': np.uint16, 'int32': np.int32,
            'int64': np.int64, 'float32': np.float32, 'float64': np.float64}
INTEGER_TYPES = (TensorProto.UINT8, TensorProto.INT8, TensorProto.INT16, TensorProto.UINT16, TensorProto.INT32)


def ort_available():
    """None when node and onnxruntime-node can run, else why not."""
    node = shutil.which('node')
    if node is None:
        return 'node is not installed (scripts/install-deps.sh installs nodejs, npm and onnxruntime-node)'
    probe = ("try{require(%r)}catch(e){require('onnxruntime-node')}" %
             os.path.join(HERE, 'ort', 'node_modules', 'onnxruntime-node'))
    r = subprocess.run([node, '-e', probe], capture_output=True, text=True)
    if r.returncode != 0:
        return ('onnxruntime-node is not installed in %s (ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix %s; '
                'scripts/install-deps.sh does it)' % (os.path.join(HERE, 'ort'), os.path.join(HERE, 'ort')))
    return None


def load_npz(path):
    with np.load(path) as z:
        return [z['arr_%d' % i] for i in range(len(z.files))]


DEVICE_TYPES = {'u8': TensorProto.UINT8, 's8': TensorProto.INT8, 's16': TensorProto.INT16,
                'u16': TensorProto.UINT16, 's32': TensorProto.INT32}


def read_dump(directory):
    """Tessera's tensors: name -> int64 array in ONNX shape, and name -> ONNX element type."""
    out, types = {}, {}
    with open(os.path.join(directory, 'tensors.txt')) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            dims = [int(d) for d in parts[3:]]
            values = np.fromfile(os.path.join(directory, parts[0]), dtype='<i8')
            out[parts[1]] = values.reshape(dims)
            types[parts[1]] = DEVICE_TYPES.get(parts[2])
    return out, types


# Integer ops whose constant int8 operand ONNX Runtime multiplies with a uint8 activation:
# op -> [(activation input, weight input, weight zero point input)].
U8S8_OPERANDS = {
    'QLinearConv': [(0, 3, 5)],
    'QLinearMatMul': [(0, 3, 5)],
    'QGemm': [(0, 3, 5)],
    'ConvInteger': [(0, 1, 3)],
    'MatMulInteger': [(0, 1, 3)],
}


def without_u8s8_saturation(model):
    """`model` with every constant int8 weight that meets a uint8 activation in an integer op
    re-expressed as uint8 (w + 128, zero point + 128): the same integers in exact arithmetic.
    ONNX Runtime's U8S8 kernels add pairs of u8 x s8 products in int16 with saturation
    (vpmaddubsw) on x86 CPUs without VNNI (its quantization guide says so), which moves outputs
    by up to ~30 units on such a machine (an AVX2 EPYC, 2026-11-27); its U8U8 kernels widen first
    and are exact. The rewrite keeps the oracle exact on every x86 CPU."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    types = {t.name: t.data_type for t in g.initializer}
    for v in list(g.input) + list(g.value_info):
        types.setdefault(v.name, v.type.tensor_type.elem_type)
    inferred = onnx.shape_inference.infer_shapes(model).graph
    for v in list(inferred.value_info) + list(inferred.input):
        types.setdefault(v.name, v.type.tensor_type.elem_type)
    for node in g.node:
        for act, w, zp in U8S8_OPERANDS.get(node.op_type, []):
            if len(node.input) <= w or types.get(node.input[act]) != TensorProto.UINT8:
                continue
            weight = inits.get(node.input[w])
            if weight is None or weight.data_type != TensorProto.INT8:
                continue
            zero = inits.get(node.input[zp]) if len(node.input) > zp and node.input[zp] else None
            if zero is not None and zero.data_type != TensorProto.INT8:
                continue
            values = numpy_helper.to_array(weight).astype(np.int16) + 128
            zeros = (numpy_helper.to_array(zero).astype(np.int16) if zero is not None else np.int16(0)) + 128
            w_name = node.input[w] + '_as_u8'
            zp_name = (zero.name if zero is not None else node.input[w] + '_zero_point') + '_as_u8'
            for name, array in ((w_name, values), (zp_name, np.asarray(zeros))):
                if name not in inits:  # constants shared by several nodes are converted once
                    inits[name] = numpy_helper.from_array(array.astype(np.uint8), name)
                    g.initializer.append(inits[name])
            while len(node.input) <= zp:
                node.input.append('')
            node.input[w], node.input[zp] = w_name, zp_name
    return model


class graph_info:
    """Producers, constants and element types of a model's tensors."""

    def __init__(self, model):
        self.model = model
        inferred = onnx.shape_inference.infer_shapes(model)
        g = inferred.graph
        self.types, self.shapes = {}, {}
        for v in list(g.input) + list(g.value_info) + list(g.output):
            t = v.type.tensor_type
            self.types[v.name] = t.elem_type
            self.shapes[v.name] = [d.dim_value if d.HasField('dim_value') else None for d in t.shape.dim] \
                if t.HasField('shape') else None
        self.initializers = {t.name for t in model.graph.initializer}
        for t in model.graph.initializer:
            self.types[t.name] = t.data_type
        self.inputs = [i.name for i in model.graph.input if i.name not in self.initializers]
        self.producer = {}
        for index, n in enumerate(model.graph.node):
            for o in n.output:
                if o:
                    self.producer[o] = index

        # QuantizeLinear outputs of float graph inputs (the float ends onnx2hpp takes off).
        self.boundary_inputs = {}
        for n in model.graph.node:
            if n.op_type == 'QuantizeLinear' and n.input[0] in self.inputs and \
                    self.types.get(n.input[0]) == TensorProto.FLOAT:
                self.boundary_inputs[n.output[0]] = n.input[0]

    def integer_input(self, name):
        """The integer tensor a graph input stands for (its QuantizeLinear's output if float)."""
        for q, x in self.boundary_inputs.items():
            if x == name:
                return q
        return name

    def integer_output(self, name):
        """The integer tensor a graph output stands for (its DequantizeLinear's input if float)."""
        node = self.model.graph.node[self.producer[name]] if name in self.producer else None
        if node is not None and node.op_type == 'DequantizeLinear' and self.types.get(name) == TensorProto.FLOAT:
            return node.input[0]
        return name

    def is_integer(self, name):
        return self.types.get(name) in INTEGER_TYPES

    def cut(self, target, known):
        """The nodes that compute `target` from the tensors in `known` (and constants), and the
        run-time tensors they read: (node indices in graph order, input names)."""
        nodes, inputs, stack = set(), [], [target]
        seen = set()
        while stack:
            name = stack.pop()
            if not name or name in seen or name in self.initializers:
                continue
            seen.add(name)
            if name != target and (name in known or name in self.inputs):
                inputs.append(name)
                continue
            if name not in self.producer:
                if name in self.inputs:
                    inputs.append(name)
                    continue
                raise ValueError('tensor %s has no producer' % name)
            index = self.producer[name]
            if index in nodes:
                continue
            nodes.add(index)
            node = self.model.graph.node[index]
            stack.extend(node.input)
            for a in node.attribute:  # subgraphs are not cut (no control flow in these models)
                if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
                    raise ValueError('node %s has a subgraph' % node.name)
        return sorted(nodes), inputs

    def submodel(self, nodes, inputs, outputs):
        g = self.model.graph
        used = {x for i in nodes for x in g.node[i].input}
        graph = helper.make_graph(
            [g.node[i] for i in nodes], 'cut',
            [helper.make_tensor_value_info(x, self.types[x], self.shapes.get(x)) for x in inputs],
            [helper.make_tensor_value_info(x, self.types[x], self.shapes.get(x)) for x in outputs],
            [t for t in g.initializer if t.name in used])
        m = helper.make_model(graph, opset_imports=list(self.model.opset_import))
        m.ir_version = self.model.ir_version
        return m


class OrtCannotRun(Exception):
    """ONNX Runtime has no kernel for a node of the model: the test is skipped, saying so."""


def run_jobs(jobs, work):
    path = os.path.join(work, 'jobs.json')
    with open(path, 'w') as f:
        json.dump({'jobs': jobs}, f)
    r = subprocess.run(['node', RUNNER, path], capture_output=True, text=True)
    if r.returncode != 0:
        message = r.stderr.strip() or r.stdout.strip()
        # ONNX Runtime's CPU kernels lack some valid forms (ConvInteger with per-channel weight
        # zero points, QLinearConv/QLinearMatMul of int8 activations with uint8 weights).
        for limit in ('Could not find an implementation', 'is not supported', 'not supported now'):
            if limit in message:
                line = re.sub(r'\x1b\[[0-9;]*m', '', message.splitlines()[-1])
                line = line.split('Status Message:')[-1].split(' const ')[-1].strip()
                raise OrtCannotRun(line[:300])
        raise RuntimeError('ONNX Runtime failed: ' + message)


def read_output(file):
    with open(file + '.json') as f:
        meta = json.load(f)
    return np.fromfile(file, dtype=NP_TYPES[meta['type']]).reshape(meta['dims'])


_written = [0]


def write_input(work, tag, name, values, elem_type):
    t = ORT_TYPES[elem_type]
    _written[0] += 1
    file = os.path.join(work, 'in_%s_%d.bin' % (tag, _written[0]))
    np.ascontiguousarray(values, dtype=np.dtype(NP_TYPES[t]).newbyteorder('<')).tofile(file)
    return {'name': name, 'type': t, 'dims': [int(d) for d in np.shape(values)], 'file': file}


def check_model(exe, work, cases):
    """cases: [(test name, case dir)] sharing one network. Returns the failure messages."""
    failures = []
    model_path = os.path.join(cases[0][1], 'network.onnx')
    model = without_u8s8_saturation(onnx.load(model_path))
    info = graph_info(model)
    os.makedirs(work, exist_ok=True)
    submodels = {}  # target -> (path, inputs)
    worst, compared, worst_tensor = 0, set(), ''
    not_compared = set()
    e2e_worst, top1_checked, top1_agreed, top1_skipped, ort_spread = 0, 0, 0, 0, 0
    for test, case_dir in cases:
        tag = test.replace('/', '_')
        dump = os.path.join(work, tag + '_tessera')
        shutil.rmtree(dump, ignore_errors=True)
        env = dict(os.environ, TESSERA_DUMP_TENSORS=dump)
        r = subprocess.run([exe, test], env=env, capture_output=True, text=True)
        if r.returncode != 0 and not os.path.exists(os.path.join(dump, 'tensors.txt')):
            failures.append('%s: the Tessera run failed (exit %d): %s' % (test, r.returncode,
                                                                          (r.stdout + r.stderr)[-2000:]))
        elif r.returncode != 0:  # judged by the test of that name; here only the tensors matter
            print('  note: %s differs from its golden data (ctest -R %s)' % (test, test))
        if not os.path.exists(os.path.join(dump, 'tensors.txt')):
            failures.append('%s: Tessera wrote no tensors' % test)
            continue
        tessera, tessera_types = read_dump(dump)
        for name, t in tessera_types.items():  # ops without a schema (com.microsoft) have no inferred type
            if name not in info.types and t is not None:
                info.types[name] = t
                info.shapes[name] = list(tessera[name].shape)
        # Float ends that onnx2hpp took off: Tessera's input is the QuantizeLinear's output, its
        # output the DequantizeLinear's input (already under that name in the dump).
        for q, float_input in info.boundary_inputs.items():
            if float_input in tessera:
                tessera[q] = tessera[float_input]
        # A tensor Tessera holds under one name is also every name it has through Casts that
        # keep its type and Identity nodes (torch writes Cast(QuantizeLinear(x), UINT8)).
        for name in list(tessera):
            current = name
            while current in info.producer:
                node = model.graph.node[info.producer[current]]
                if node.op_type not in ('Cast', 'Identity') or not info.is_integer(node.input[0]):
                    break
                current = node.input[0]
                tessera.setdefault(current, tessera[name])
        graph_inputs = load_npz(os.path.join(case_dir, 'inputs.npz'))
        # The dump names each tensor once (its last ONNX name). A graph input under another name
        # is the case's input; a QuantizeLinear output that is missing changed nothing (Tessera
        # emitted no requantization): it is its input's tensor, which Tessera names after the
        # float op (MaxPool, Concat, Reshape, ...) that computed it.
        for x, v in zip(info.inputs, graph_inputs):  # the dump holds what nodes wrote, not inputs
            tessera.setdefault(info.integer_input(x), np.asarray(v, np.int64))
        for n in model.graph.node:
            if n.op_type == 'QuantizeLinear' and n.output[0] not in tessera and n.input[0] in tessera:
                tessera[n.output[0]] = tessera[n.input[0]]
        known = {k for k in tessera if info.is_integer(k)}
        jobs, checks = [], []
        # Per op: each quantized tensor from Tessera's values of its op's inputs.
        for target in sorted(known):
            if target in info.inputs or target not in info.producer or target in info.boundary_inputs:
                continue
            if target not in submodels:
                nodes, inputs = info.cut(target, known)
                path = os.path.join(work, 'op_%d.onnx' % len(submodels))
                onnx.save(info.submodel(nodes, inputs, [target]), path)
                submodels[target] = (path, inputs)
            path, inputs = submodels[target]
            feeds = [write_input(work, tag, x, tessera[x], info.types[x]) for x in inputs]
            out = os.path.join(work, '%s_op_%d.bin' % (tag, len(checks)))
            jobs.append({'model': path, 'optimized': False, 'inputs': feeds, 'outputs': [{'name': target, 'file': out}]})
            checks.append((target, out))
        # End to end, reference and optimised, from the integer inputs to the integer outputs.
        outputs = [info.integer_output(o.name) for o in model.graph.output]
        starts = [info.integer_input(x) for x in info.inputs]
        if 'e2e' not in submodels:
            nodes = sorted({i for o in outputs for i in info.cut(o, set(starts))[0]})
            path = os.path.join(work, 'end_to_end.onnx')
            onnx.save(info.submodel(nodes, starts, outputs), path)
            submodels['e2e'] = (path, starts)
        feeds = [write_input(work, tag, x, v, info.types[x]) for x, v in zip(starts, graph_inputs)]
        ends = {}
        for optimized in (False, True):
            files = [os.path.join(work, '%s_e2e_%d_%d.bin' % (tag, optimized, k)) for k in range(len(outputs))]
            jobs.append({'model': submodels['e2e'][0], 'optimized': optimized, 'inputs': feeds,
                         'outputs': [{'name': o, 'file': f} for o, f in zip(outputs, files)]})
            ends[optimized] = files
        run_jobs(jobs, work)
        tolerance = per_op_tolerance(case_dir)
        for target, out in checks:
            want = read_output(out).astype(np.int64)
            got = tessera[target]
            if got.shape != want.shape:
                failures.append('%s: %s has shape %s in Tessera, %s in ONNX Runtime' % (test, target, got.shape,
                                                                                       want.shape))
                continue
            d = int(np.abs(got - want).max()) if got.size else 0
            compared.add(target)
            if d > worst:
                worst, worst_tensor = d, target
            if d > tolerance:
                bad = np.argwhere(np.abs(got - want) > tolerance)[0]
                failures.append('%s: %s (%s) differs from ONNX Runtime by %d (> %d) at %s on %d of %d elements: '
                                'Tessera %d, ONNX Runtime %d'
                                % (test, target, model.graph.node[info.producer[target]].op_type, d, tolerance,
                                   list(bad), int(np.count_nonzero(np.abs(got - want) > tolerance)), got.size,
                                   got[tuple(bad)], want[tuple(bad)]))
        not_compared |= {n for n in info.producer if info.is_integer(n) and n not in known and
                         model.graph.node[info.producer[n]].op_type not in ('Cast', 'Constant', 'ConstantOfShape')}
        for k, name in enumerate(outputs):
            if name not in tessera:
                failures.append('%s: output %s is not in the Tessera dump' % (test, name))
                continue
            ref = read_output(ends[False][k]).astype(np.int64)
            opt = read_output(ends[True][k]).astype(np.int64)
            got = tessera[name]
            e2e_worst = max(e2e_worst, int(np.abs(got - ref).max()))
            ort_spread = max(ort_spread, int(np.abs(opt - ref).max()))
            if os.path.exists(os.path.join(case_dir, 'classifier')) or \
                    os.path.exists(os.path.join(case_dir, 'top1_not_held')):
                # Top-1 is held where ONNX Runtime's own two paths agree: same class, and no
                # output more than one unit apart (else the sample sits where one-unit
                # differences of early layers decide the class, as they do between those paths).
                if np.argmax(ref) != np.argmax(opt) or int(np.abs(opt - ref).max()) > PER_OP_TOLERANCE:
                    top1_skipped += 1
                    if np.argmax(got) != np.argmax(ref):
                        print('  note: %s: top-1 %d, ONNX Runtime reference %d, optimised %d (max |optimised - '
                              'reference| %d): not held' % (test, np.argmax(got), np.argmax(ref), np.argmax(opt),
                                                            int(np.abs(opt - ref).max())))
                    continue
                top1_checked += 1
                if np.argmax(got) == np.argmax(ref):
                    top1_agreed += 1
                elif os.path.exists(os.path.join(case_dir, 'top1_not_held')):
                    with open(os.path.join(case_dir, 'top1_not_held')) as f:
                        print('  note: %s: top-1 class %d, ONNX Runtime %d: not held (%s)' % (
                            test, np.argmax(got), np.argmax(ref), f.read().strip()))
                else:
                    failures.append('%s: top-1 class %d, ONNX Runtime (reference and optimised) %d' % (
                        test, np.argmax(got), np.argmax(ref)))
    label = re.sub(r'_sample[0-9]+$', '', cases[0][0])
    print('%s: %d samples, %d quantized tensors compared op by op with ONNX Runtime (largest difference %d%s); '
          'end to end largest difference %d (ONNX Runtime optimised vs reference: %d)%s' % (
              label, len(cases), len(compared), worst, ' at ' + worst_tensor if worst else '', e2e_worst, ort_spread,
              '; top-1 equal on %d/%d samples held (%d not held: ONNX Runtime\'s paths differ there)'
              % (top1_agreed, top1_checked, top1_skipped) if top1_checked + top1_skipped else ''))
    if not_compared:
        print('  integer tensors Tessera does not hold (folded away): %s' % ', '.join(sorted(not_compared)[:20]))
    if not compared:
        failures.append('no tensor compared')
    return failures


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    why = ort_available()
    if why is not None:
        print('SKIPPED: ' + why)
        return SKIP
    exe, work = sys.argv[1], sys.argv[2]
    cases = [tuple(a.split('=', 1)) for a in sys.argv[3:]]
    try:
        failures = check_model(exe, work, cases)
    except OrtCannotRun as e:
        print('SKIPPED: ONNX Runtime cannot run this model: %s' % e)
        return SKIP
    except (RuntimeError, ValueError, OSError) as e:
        failures = [str(e)]
    for f in failures:
        print('FAIL: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
