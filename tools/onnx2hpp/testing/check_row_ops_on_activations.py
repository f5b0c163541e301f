#!/usr/bin/python3
"""Checks reference.py's row operators (ITAMax, ITAPartialMax, iLayerNorm, ...) against the
intermediate activations QuantLib stored for a corpus model (run with /usr/bin/python3).

    check_row_ops_on_activations.py MODEL_DIR [MODEL_DIR ...]

MODEL_DIR holds network.onnx, inputs.npz and activations.npz (Models/CCT/Int/ICCT, ICCT_ITA).
The activations are keyed by QuantLib module names, not ONNX tensor names: an ONNX tensor is
matched to the activation whose key ends with the tensor's name (less the "_<Op>_output_0"
suffix, lowercased, '.' as '_') and that has the same shape. The graph is evaluated node by node
with reference.py; every matched tensor is compared, then replaced by the stored activation, so
a node whose op reference.py lacks (iGELU, Gather, IntegerMean) only hides what depends on it
until the next stored activation. A row op whose output is not stored (ITAMax) is checked
through the MatMul and RequantShift that follow it. Fails unless every row op of the model was
checked, directly or through such a descendant, and every comparison matched exactly.
"""
import os
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

ROW_OPS = {'iSoftmax', 'ITAMax', 'ITAPartialMax', 'iRMSNorm', 'iLayerNorm', 'iNoNorm'}


def module_stem(name):
    """The QuantLib module part of an ONNX tensor name, lowercased, '' when there is none."""
    stem = re.sub(r'_[A-Za-z]+_output_\d+$', '', name)
    return '' if stem == name else stem.lower().replace('.', '_').lstrip('_')


def activation_key(name, shape, activations):
    """The one activation stored for ONNX tensor `name` (of `shape`, None when unknown), or None."""
    stem = module_stem(name)
    if not stem:
        return None  # a tensor name that carries no module name
    keys = [k for k in activations if k.endswith(stem) and (shape is None or activations[k].shape == tuple(shape))]
    return keys[0] if len(keys) == 1 else None


def check(model_dir):
    model = onnx.load(os.path.join(model_dir, 'network.onnx'))
    inputs = np.load(os.path.join(model_dir, 'inputs.npz'))
    stored = np.load(os.path.join(model_dir, 'activations.npz'))
    activations = {k: stored[k].astype(np.int64) for k in stored.files}
    g = model.graph
    env = {i.name: numpy_helper.to_array(i).astype(np.int64) for i in g.initializer}
    runtime = [i.name for i in g.input if i.name not in env]
    for name, key in zip(runtime, inputs.files):
        env[name] = inputs[key].astype(np.int64)
    # A module of several ops (MatMul + bias Add) stores the value of its last one only.
    last_of_module = {module_stem(n.output[0]): n.output[0] for n in g.node}
    unchecked = {}  # tensor -> the row ops whose unverified outputs flow into it
    pending = set()
    failures = 0
    for node in g.node:
        x = [env.get(i) if i else None for i in node.input]
        try:
            if any(v is None for v, i in zip(x, node.input) if i):
                raise NotImplementedError('an input depends on an op reference.py lacks')
            y = reference.node_output(node, x)
        except NotImplementedError:
            key = activation_key(node.output[0], None, activations)  # restart from the stored value
            if key is not None and last_of_module[module_stem(node.output[0])] == node.output[0]:
                env[node.output[0]] = activations[key]
            continue
        upstream = set().union(*(unchecked.get(i, set()) for i in node.input))
        if node.op_type in ROW_OPS:
            upstream.add(f'{node.op_type} {node.name}')
            pending.add(f'{node.op_type} {node.name}')
        out = node.output[0]
        key = activation_key(out, y.shape, activations) if last_of_module[module_stem(out)] == out else None
        if key is None:
            env[out], unchecked[out] = y, upstream
            continue
        same = np.array_equal(y, activations[key])
        if upstream or not same:
            print(f'{os.path.basename(model_dir)}: {node.op_type} {out} vs {key}: '
                  f'{"exact" if same else f"{int((y != activations[key]).sum())} differ"}'
                  + (f' (checks {", ".join(sorted(upstream))})' if upstream else ''))
        failures += 0 if same else 1
        if same:
            pending -= upstream
        env[out] = activations[key]
    for op in sorted(pending):
        print(f'{os.path.basename(model_dir)}: {op} was not checked against any stored activation')
    return failures + len(pending)


def main():
    failures = sum(check(d) for d in sys.argv[1:])
    print('all row ops match the stored activations' if failures == 0 else f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
