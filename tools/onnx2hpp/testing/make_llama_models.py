#!/usr/bin/python3
"""Small Llama-style decoders in Deeploy's integer dialect, with a numpy reference (run with
/usr/bin/python3: Debian's python3-onnx and python3-numpy).

    make_llama_models.py model OUT.onnx [--d-model 64 --heads 16 --layers 8 --d-ff 256]
                               (--cache N | --prompt S) [--seed 0] [--softmax ITAMax]
    make_llama_models.py cases OUTDIR [--spec] [--softmax ITAMax]   # the CI cases, golden data
    make_llama_models.py check [CORPUS_ROOT] [--spec | size options] [--softmax ITAMax]
    make_llama_models.py bench OUTDIR [--spec | size options]   # benchmarks/qemu/decoder_firmware.cpp

`model` writes the spec's size unless told otherwise (and OUT_inputs.npz, OUT_outputs.npz);
`cases` and `check` the CI size (d_model 32, 8 heads, 2 layers, d_ff 64) unless --spec.

The decoder is the shape of ../../../../shared/spec/integer-semantics.md (its last paragraph):
per layer an iRMSNorm, Q/K/V MatMuls, the rotary embedding as a MatMul with a per-position
head_dim x head_dim matrix (a graph input), Q K^T through a TrueIntegerDiv (1/sqrt(head_dim),
folded into the RequantShift after it as Deeploy folds it), iSoftmax (or ITAMax), times V, the output
MatMul and a residual Add; then an iRMSNorm, a gated feed-forward (gate MatMul, iHardswish,
up MatMul, Mul, down MatMul) and a second residual Add; a final iRMSNorm. Every MatMul, Add,
Mul and iHardswish is followed by a RequantShift (mul, add initializers, attributes div, n_levels_out,
signed), as QuantLib exports them. Each layer's K and V caches [1, heads, N, head_dim] are
graph inputs, Concat(cache, new rows, axis=-2) grows them, the grown caches are graph outputs.

Two exports of one set of weights (the seed):
- one step (`--cache N`): one token x [1, 1, d_model], its rotary matrix [1, hd, hd], caches
  of N positions in; the token's output and caches of N + 1 positions out;
- prefill, the `_parallel` form (`--prompt S`): S tokens [1, S, d_model], S rotary matrices,
  empty caches [1, heads, 0, head_dim] in; S outputs and caches of S positions out.

Causality. The prefill form adds a constant [1, 1, S, N + S] int32 bias to Q K^T before the
requantization: `offset` on and below the diagonal, -2^24 above it (the one-step form adds
`offset` to every score, so that the two compute the same scores). A masked score saturates
to -128 and the iSoftmax constants (coeffA 256, coeffB 5, coeffC 15, log2 4) make its term
exactly 0 whenever the row's largest score is at least -72 (z >= 14 shifts every polynomial
value, at most 10240 < 2^14, to 0); `offset` centres the scores at +48 so that this holds.
Then step-by-step decoding with the explicit caches equals the prefill bit for bit, which
`check` verifies. ITAMax cannot mask so (256 >> shift >= 1 for every int8 score): with it the
prefill differs from the steps.

The reference (`decoder`) is written from the spec's rules with reference.py's operators
(RequantShift, iRMSNorm, iSoftmax, iHardswish, the TrueIntegerDiv fold), directly on the
weights: it does not read the ONNX graph. `check` also runs every generated graph through
reference.run (a node-by-node interpreter) and requires the two to agree, and first checks the
operators on the corpus cases they come from (golden outputs and stored activations).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

LEVELS = 256
RMS_SHIFT = 16  # iRMSNorm D = 2^16; weights ~ 32 * 2^16, so outputs have an RMS near 32
SOFTMAX = dict(coeffA=256, coeffB=5, coeffC=15, log2=4)  # see "Causality" above
HARDSWISH = dict(three=32, six=64, one_over_six=43)  # an int8 input with 3.0 ~ 32 (43 ~ 2^8 / 6)
TRUE_DIV = dict(Delta=2 ** 14, eps=1, eta=200000)  # with y = sqrt(head_dim): factor 8191 for y = 2
MASKED = -2 ** 24
SCORE_CENTRE = 48  # int8 units the unmasked scores are centred on
SCORE_STD = 8.0  # their spread: with log2 = 4 (a halving per 4 units) a wider one makes most weights 0
TARGET_STD = 24.0  # int8 units each requantized activation is scaled to (calibration)


class config:
    def __init__(self, d_model=64, heads=16, layers=8, d_ff=256, seed=0, softmax='iSoftmax'):
        assert d_model % heads == 0, 'd_model must be a multiple of heads'
        assert softmax in ('iSoftmax', 'ITAMax')
        self.d_model, self.heads, self.layers, self.d_ff, self.seed = d_model, heads, layers, d_ff, seed
        self.softmax = softmax
        self.head_dim = d_model // heads
        self.true_div_y = int(round(np.sqrt(self.head_dim)))

    def name(self):
        return f'd{self.d_model}_h{self.heads}_l{self.layers}_f{self.d_ff}_s{self.seed}' + \
            ('_itamax' if self.softmax == 'ITAMax' else '')


SPEC = dict(d_model=64, heads=16, layers=8, d_ff=256)  # the language model of the spec
CI = dict(d_model=32, heads=8, layers=2, d_ff=64)  # the CI cases


# ---------------------------------------------------------------------------- the reference

def true_div_factor(cfg):
    """Deeploy's integer factor of TrueIntegerDiv: floor(Delta*eta / (y*eta + eps))."""
    return TRUE_DIV['Delta'] * TRUE_DIV['eta'] // (cfg.true_div_y * TRUE_DIV['eta'] + TRUE_DIV['eps'])


def rotary(positions, head_dim, scale=64, base=100.0):
    """Per position a head_dim x head_dim int8 matrix: rotations of the pairs (2i, 2i+1) by
    position * base^(-2i/head_dim), times `scale` (rows: input feature, columns: output)."""
    out = np.zeros((len(positions), head_dim, head_dim), np.int64)
    for n, p in enumerate(positions):
        for i in range(head_dim // 2):
            a = p * base ** (-2.0 * i / head_dim)
            c, s = int(round(scale * np.cos(a))), int(round(scale * np.sin(a)))
            out[n, 2 * i, 2 * i], out[n, 2 * i, 2 * i + 1] = c, s
            out[n, 2 * i + 1, 2 * i], out[n, 2 * i + 1, 2 * i + 1] = -s, c
    return out


class parameters:
    """Weights (int8), RMSNorm weights (int32) and the requantization constants of one decoder.
    The constants are chosen by `calibrated` on a run of the reference itself."""

    def __init__(self, cfg):
        rng = np.random.default_rng(cfg.seed)
        d, f = cfg.d_model, cfg.d_ff
        self.cfg = cfg
        self.weights = {}
        for layer in range(cfg.layers):
            for name, shape in (('wq', (d, d)), ('wk', (d, d)), ('wv', (d, d)), ('wo', (d, d)),
                                ('w_gate', (d, f)), ('w_up', (d, f)), ('w_down', (f, d))):
                self.weights[f'layers.{layer}.{name}'] = rng.integers(-64, 64, shape)
            for name in ('attn_norm', 'ffn_norm'):
                self.weights[f'layers.{layer}.{name}'] = norm_weights(rng, d)
        self.weights['final_norm'] = norm_weights(rng, d)
        self.requant = {}  # name -> (mul, add, shift)
        self.score_offset = {}  # layer -> int32 offset added to Q K^T
        self.calibrating = False


def norm_weights(rng, d):
    return np.round(32 * 2 ** RMS_SHIFT * rng.uniform(0.75, 1.25, d)).astype(np.int64)


def choose_multiplier(acc, target, max_mul=255, factor=1):
    """(mul, shift) with acc * mul * factor / 2^shift of standard deviation `target`, mul <= max_mul."""
    m = target / max(float(np.std(acc)), 1.0) / factor
    shift = 0
    while m * 2 ** (shift + 1) <= max_mul and shift < 40:
        shift += 1
    return max(1, int(round(m * 2 ** shift))), shift


class statistics:
    """Per requantization: values at the clamp bounds and zeros, over every run."""

    def __init__(self):
        self.saturated, self.zeros, self.total = {}, {}, {}

    def add(self, name, y, lo, hi):
        key = name.split('.', 2)[-1] if name.startswith('layers.') else name
        self.saturated[key] = self.saturated.get(key, 0) + int(((y == lo) | (y == hi)).sum())
        self.zeros[key] = self.zeros.get(key, 0) + int((y == 0).sum())
        self.total[key] = self.total.get(key, 0) + y.size

    def report(self):
        lines = []
        for k in self.total:
            lines.append(f'  {k:12s} saturated {100.0 * self.saturated[k] / self.total[k]:5.2f}%  '
                         f'zero {100.0 * self.zeros[k] / self.total[k]:5.2f}%')
        sat, tot = sum(self.saturated.values()), sum(self.total.values())
        lines.append(f'  all          saturated {100.0 * sat / tot:5.2f}% of {tot} values')
        return '\n'.join(lines)


def decoder(params, x, rope, caches, causal, stats=None, trace=None):
    """The decoder on true integer values (int64 arrays).

    x [1, S, d_model] int8 tokens, rope [S, hd, hd] their rotary matrices, caches a list of
    (k, v) per layer, each [1, heads, N, hd] int8; `causal` masks the scores of later tokens
    (the prefill form; a one-step network has S = 1); `trace`, a dict, receives every
    requantized tensor by name. Returns (y [1, S, d_model], caches of
    N + S positions)."""
    cfg, w = params.cfg, params.weights
    s_len, h, hd = x.shape[1], cfg.heads, cfg.head_dim

    def rq(name, acc, signed=True, target=TARGET_STD, max_mul=255, fold=None, masked=None):
        if params.calibrating and name not in params.requant:
            factor = true_div_factor(cfg) if fold else 1
            mul, shift = choose_multiplier(acc, target, max_mul, factor)
            params.requant[name] = (mul, 0, shift)
        mul, add, shift = params.requant[name]
        if fold:  # TrueIntegerDiv folded into this RequantShift (Deeploy's rule)
            mul, add, div = reference.true_integer_div_fold(mul, add, 2 ** shift, cfg.true_div_y, **TRUE_DIV)
        else:
            div = 2 ** shift
        y = reference.requant_shift(acc, mul, add, div, LEVELS, int(signed))
        if trace is not None:
            trace[name] = y
        if stats is not None:  # a masked score is meant to saturate: not counted
            stats.add(name, y if masked is None else y[~masked], -LEVELS // 2 if signed else 0,
                      LEVELS // 2 - 1 if signed else LEVELS - 1)
        return y

    def rms(name, v):
        y = reference.i_rms_norm(v, w[name], RMS_SHIFT, LEVELS)
        if stats is not None:
            stats.add(name, y, -LEVELS // 2, LEVELS // 2 - 1)
        return y

    new_caches = []
    for layer, (k_cache, v_cache) in enumerate(caches):
        p = f'layers.{layer}.'
        a = rms(p + 'attn_norm', x)
        q = rq(p + 'q', a @ w[p + 'wq'])
        k = rq(p + 'k', a @ w[p + 'wk'])
        v = rq(p + 'v', a @ w[p + 'wv'])
        # rotary: [S, heads, hd] @ [S, hd, hd], batched over the positions
        q = rq(p + 'q_rope', q.reshape(s_len, h, hd) @ rope).transpose(1, 0, 2)[None]
        k = rq(p + 'k_rope', k.reshape(s_len, h, hd) @ rope).transpose(1, 0, 2)[None]
        v = v.reshape(1, s_len, h, hd).transpose(0, 2, 1, 3)
        keys = np.concatenate([k_cache, k], axis=2)
        values = np.concatenate([v_cache, v], axis=2)
        new_caches.append((keys, values))
        scores = q @ keys.transpose(0, 1, 3, 2)  # [1, heads, S, N + S]
        if params.calibrating and layer not in params.score_offset:
            mul, shift = choose_multiplier(scores, SCORE_STD, 1023, true_div_factor(cfg))
            gain = mul * true_div_factor(cfg) / 2 ** shift
            params.score_offset[layer] = int(round(SCORE_CENTRE / gain))
            params.requant[p + 'scores'] = (mul, 0, shift)
        bias = score_bias(params.score_offset[layer], keys.shape[2] - s_len, s_len, causal)
        masked = np.broadcast_to(bias == MASKED, scores.shape)
        scores = rq(p + 'scores', scores + bias, fold=True, masked=masked)
        if cfg.softmax == 'ITAMax':
            attn = reference.ita_max(scores, LEVELS)  # uint8
        else:
            attn = reference.i_softmax(scores, *SOFTMAX.values(), LEVELS)  # uint8
        if stats is not None:  # saturated: 255, a row with one winner; masked scores not counted
            stats.add(p + 'softmax', attn[~masked], -1, LEVELS - 1)
        o = rq(p + 'attn', attn @ values)  # [1, heads, S, hd]
        o = rq(p + 'out', o.transpose(0, 2, 1, 3).reshape(1, s_len, cfg.d_model) @ w[p + 'wo'])
        x = rq(p + 'residual1', x + o)
        f = rms(p + 'ffn_norm', x)
        g = rq(p + 'gate', f @ w[p + 'w_gate'])
        g = rq(p + 'hardswish', reference.hardswish(g, **HARDSWISH))
        u = rq(p + 'up', f @ w[p + 'w_up'])
        m = rq(p + 'gated', g * u)
        dn = rq(p + 'down', m @ w[p + 'w_down'])
        x = rq(p + 'residual2', x + dn)
    return rms('final_norm', x), new_caches


def score_bias(offset, n, s_len, causal):
    """[1, 1, S, N + S]: `offset`, and MASKED where token i would see a later token."""
    bias = np.full((1, 1, s_len, n + s_len), offset, np.int64)
    if causal:
        for i in range(s_len):
            bias[0, 0, i, n + i + 1:] = MASKED
    return bias


def random_tokens(rng, cfg, s_len):
    return rng.integers(-128, 128, (1, s_len, cfg.d_model))


def random_caches(rng, cfg, n):
    return [(rng.integers(-64, 64, (1, cfg.heads, n, cfg.head_dim)),
             rng.integers(-64, 64, (1, cfg.heads, n, cfg.head_dim))) for _ in range(cfg.layers)]


def calibrated(cfg):
    """The decoder's parameters with requantization constants chosen on a calibration run: a
    prompt of 16 tokens after 16 cached positions."""
    params = parameters(cfg)
    rng = np.random.default_rng(cfg.seed + 1000)
    params.calibrating = True
    decoder(params, random_tokens(rng, cfg, 16), rotary(range(16, 32), cfg.head_dim), random_caches(rng, cfg, 16),
            True)
    params.calibrating = False
    return params


# ---------------------------------------------------------------------------- the ONNX graph

class graph_builder:
    def __init__(self):
        self.nodes, self.initializers = [], []

    def const(self, name, values, dtype=np.float32):
        self.initializers.append(numpy_helper.from_array(np.asarray(values, dtype), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def requant(self, name, x, params, signed=True):
        mul, add, shift = params.requant[name]
        return self.node('RequantShift', [x, self.const(name + '.requant_mul', mul), self.const(name + '.requant_add', add)], name,
                         div=onnx_float(2 ** shift), n_levels_out=onnx_float(LEVELS), signed=onnx_float(int(signed)))

    def matmul(self, name, x, weight):
        return self.node('MatMul', [x, self.const(name + '.weight', weight)], name + '.matmul')


def onnx_float(v):
    """An attribute as QuantLib writes it: a one-element float tensor."""
    return helper.make_tensor('value', TensorProto.FLOAT, [1], [float(v)])


def build(params, cache, prompt):
    """The one-step network (prompt 1, `cache` positions) or the prefill (cache 0, `prompt` tokens)."""
    cfg = params.cfg
    b = graph_builder()
    d, h, hd, s_len = cfg.d_model, cfg.heads, cfg.head_dim, prompt
    causal = s_len > 1
    inputs = [('x', [1, s_len, d]), ('rope', [s_len, hd, hd])]
    outputs = []
    x = 'x'
    heads_shape = b.const('shape.heads', [s_len, h, hd], np.int64)
    split_shape = b.const('shape.split', [1, s_len, h, hd], np.int64)
    merged_shape = b.const('shape.merged', [1, s_len, d], np.int64)
    factor_attrs = dict(y=cfg.true_div_y, **TRUE_DIV)
    for layer in range(cfg.layers):
        p = f'layers.{layer}.'
        inputs += [(f'k_cache_{layer}', [1, h, cache, hd]), (f'v_cache_{layer}', [1, h, cache, hd])]
        a = b.node('iRMSNorm', [x, b.const(p + 'attn_norm.weight', params.weights[p + 'attn_norm'])], p + 'attn_norm',
                   D=2 ** RMS_SHIFT, n_levels=LEVELS)
        proj = {}
        for name in ('q', 'k', 'v'):
            proj[name] = b.requant(p + name, b.matmul(p + name, a, params.weights[p + 'w' + name]), params)
        rotated = {}
        for name in ('q', 'k'):
            t = b.node('Reshape', [proj[name], heads_shape], p + name + '.heads')
            t = b.requant(p + name + '_rope', b.node('MatMul', [t, 'rope'], p + name + '_rope.matmul'), params)
            t = b.node('Transpose', [t], p + name + '.transposed', perm=[1, 0, 2])
            rotated[name] = b.node('Reshape', [t, b.const(p + name + '.shape', [1, h, s_len, hd], np.int64)],
                                   p + name + '.per_head')
        v = b.node('Reshape', [proj['v'], split_shape], p + 'v.heads')
        v = b.node('Transpose', [v], p + 'v.per_head', perm=[0, 2, 1, 3])
        keys = b.node('Concat', [f'k_cache_{layer}', rotated['k']], f'k_cache_{layer}_out', axis=-2)
        values = b.node('Concat', [f'v_cache_{layer}', v], f'v_cache_{layer}_out', axis=-2)
        outputs += [(keys, [1, h, cache + s_len, hd]), (values, [1, h, cache + s_len, hd])]
        kt = b.node('Transpose', [keys], p + 'keys.transposed', perm=[0, 1, 3, 2])
        scores = b.node('MatMul', [rotated['q'], kt], p + 'scores.matmul')
        bias = score_bias(params.score_offset[layer], cache, s_len, causal)
        scores = b.node('Add', [scores, b.const(p + 'scores.bias', bias)], p + 'scores.biased')
        scores = b.node('TrueIntegerDiv', [scores], p + 'scores.scaled', **factor_attrs)
        scores = b.requant(p + 'scores', scores, params)
        if cfg.softmax == 'ITAMax':
            attn = b.node('ITAMax', [scores], p + 'softmax', n_levels=onnx_float(LEVELS))
        else:
            attn = b.node('iSoftmax', [scores], p + 'softmax', **{k: onnx_float(v) for k, v in SOFTMAX.items()},
                          n_levels=onnx_float(LEVELS))
        o = b.requant(p + 'attn', b.node('MatMul', [attn, values], p + 'attn.matmul'), params)
        o = b.node('Transpose', [o], p + 'attn.tokens', perm=[0, 2, 1, 3])
        o = b.node('Reshape', [o, merged_shape], p + 'attn.merged')
        o = b.requant(p + 'out', b.matmul(p + 'out', o, params.weights[p + 'wo']), params)
        x = b.requant(p + 'residual1', b.node('Add', [x, o], p + 'residual1.add'), params)
        f = b.node('iRMSNorm', [x, b.const(p + 'ffn_norm.weight', params.weights[p + 'ffn_norm'])], p + 'ffn_norm',
                   D=2 ** RMS_SHIFT, n_levels=LEVELS)
        g = b.requant(p + 'gate', b.matmul(p + 'gate', f, params.weights[p + 'w_gate']), params)
        g = b.requant(p + 'hardswish', b.node('iHardswish', [g], p + 'hardswish.raw', **HARDSWISH), params)
        u = b.requant(p + 'up', b.matmul(p + 'up', f, params.weights[p + 'w_up']), params)
        m = b.requant(p + 'gated', b.node('Mul', [g, u], p + 'gated.mul'), params)
        dn = b.requant(p + 'down', b.matmul(p + 'down', m, params.weights[p + 'w_down']), params)
        x = b.requant(p + 'residual2', b.node('Add', [x, dn], p + 'residual2.add'), params)
    b.node('iRMSNorm', [x, b.const('final_norm.weight', params.weights['final_norm'])], 'y', D=2 ** RMS_SHIFT,
           n_levels=LEVELS)
    outputs = [('y', [1, s_len, d])] + outputs

    def info(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
    graph = helper.make_graph(b.nodes, f'llama_{cfg.name()}', [info(*i) for i in inputs], [info(*o) for o in outputs],
                              b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    return model


# ---------------------------------------------------------------------------- cases and checks

def case_inputs(cfg, cache, prompt, seed):
    """Random tokens, the rotary matrices of positions cache .. cache + prompt - 1, random caches."""
    rng = np.random.default_rng(seed)
    x = random_tokens(rng, cfg, prompt)
    caches = random_caches(rng, cfg, cache)
    return x, rotary(range(cache, cache + prompt), cfg.head_dim), caches


def flat_inputs(x, rope, caches):
    return [x, rope] + [t for kv in caches for t in kv]


def flat_outputs(y, caches):
    return [y] + [t for kv in caches for t in kv]


def write_case(directory, model, inputs, outputs, flat_only=False):
    os.makedirs(directory, exist_ok=True)
    if flat_only:  # tests/corpus runs it fused and unfused on the flat executor, not tiled
        open(os.path.join(directory, 'flat_only'), 'w').close()
    onnx.save(model, os.path.join(directory, 'network.onnx'))
    np.savez(os.path.join(directory, 'inputs.npz'), *[np.asarray(v, np.int64) for v in inputs])
    np.savez(os.path.join(directory, 'outputs.npz'), *[np.asarray(v, np.int64) for v in outputs])


def run_case(params, cache, prompt, seed, stats=None):
    """(model, inputs, outputs) of one network, the outputs from `decoder` and checked equal to
    reference.run on the graph."""
    cfg = params.cfg
    x, rope, caches = case_inputs(cfg, cache, prompt, seed)
    y, grown = decoder(params, x, rope, caches, prompt > 1, stats)
    model = build(params, cache, prompt)
    outputs = flat_outputs(y, grown)
    inputs = flat_inputs(x, rope, caches)
    by_graph = reference.run(model, inputs)
    for i, (a, b) in enumerate(zip(outputs, by_graph)):
        assert a.shape == b.shape and np.array_equal(a, b), f'output {i}: the graph and the reference differ'
    return model, inputs, outputs


def step_equals_prefill(params, prompt, seed):
    """Decodes `prompt` tokens one at a time (the one-step network, caches carried from each step
    to the next, from empty) and all at once (the prefill); the outputs and caches must agree."""
    cfg = params.cfg
    x, rope, _ = case_inputs(cfg, 0, prompt, seed)
    empty = [(np.zeros((1, cfg.heads, 0, cfg.head_dim), np.int64),) * 2 for _ in range(cfg.layers)]
    y_all, caches_all = decoder(params, x, rope, empty, True)
    caches = empty
    rows = []
    for t in range(prompt):
        y, caches = decoder(params, x[:, t:t + 1], rope[t:t + 1], caches, False)
        rows.append(y)
    same = np.array_equal(np.concatenate(rows, axis=1), y_all)
    for (k1, v1), (k2, v2) in zip(caches, caches_all):
        same = same and np.array_equal(k1, k2) and np.array_equal(v1, v2)
    return same


STATE_STEPS = 64     # the autoregressive run of the in-place state test
STATE_EXPORT = 4     # the cache length the one-step network is exported at
STATE_PROMPT = 8     # the prefill's tokens


def write_state_case(params, directory, seed=500):
    """The KV cache in place (onnx2hpp --state): the one-step network exported with caches of
    STATE_EXPORT positions, the prefill of STATE_PROMPT tokens, and `trajectory.npz`, an
    autoregressive run of STATE_STEPS tokens from empty caches computed step by step with the
    caches passed in explicitly (the reference `decoder`): arr_0 tokens [T, 1, d_model],
    arr_1 rotary matrices [T, hd, hd], arr_2 outputs [T, 1, d_model], arr_3 / arr_4 the K / V
    rows each step appends [layers, T, heads, hd], arr_5 the prefill's outputs
    [1, STATE_PROMPT, d_model]. Checked here: the explicit step at the export length equals
    reference.run on the exported graph, and the prefill equals the first steps. With ITAMax
    (which cannot mask: its prefill differs from the steps) no prefill and no arr_5."""
    cfg = params.cfg
    with_prefill = cfg.softmax != 'ITAMax'
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    tokens = random_tokens(rng, cfg, STATE_STEPS)[0][:, None, :]
    ropes = rotary(range(STATE_STEPS), cfg.head_dim)
    caches = [(np.zeros((1, cfg.heads, 0, cfg.head_dim), np.int64),) * 2 for _ in range(cfg.layers)]
    ys = []
    k_rows = np.zeros((cfg.layers, STATE_STEPS, cfg.heads, cfg.head_dim), np.int64)
    v_rows = np.zeros_like(k_rows)
    step_model = build(params, STATE_EXPORT, 1)
    for t in range(STATE_STEPS):
        x = tokens[t][None]
        if t == STATE_EXPORT:  # the graph as exported agrees with the explicit step
            by_graph = reference.run(step_model, flat_inputs(x, ropes[t:t + 1], caches))
        y, caches = decoder(params, x, ropes[t:t + 1], caches, False)
        if t == STATE_EXPORT:
            for a, b in zip(flat_outputs(y, caches), by_graph):
                assert np.array_equal(a, b), 'the one-step graph and the reference differ'
        ys.append(y[0])
        for layer, (k, v) in enumerate(caches):
            k_rows[layer, t] = k[0, :, t, :]
            v_rows[layer, t] = v[0, :, t, :]
    onnx.save(step_model, os.path.join(directory, 'step.onnx'))
    arrays = [tokens, ropes, np.stack(ys), k_rows, v_rows]
    if with_prefill:
        empty = [(np.zeros((1, cfg.heads, 0, cfg.head_dim), np.int64),) * 2 for _ in range(cfg.layers)]
        y_prefill, _ = decoder(params, tokens[:STATE_PROMPT].reshape(1, STATE_PROMPT, -1), ropes[:STATE_PROMPT],
                               empty, True)
        assert np.array_equal(y_prefill[0], np.concatenate(ys[:STATE_PROMPT])), 'the prefill differs from the steps'
        arrays.append(y_prefill)
        onnx.save(build(params, 0, STATE_PROMPT), os.path.join(directory, 'prefill.onnx'))
        # Two tokens after cached ones, causally masked: its mask varies along the cache length, so
        # onnx2hpp --state refuses it (tests/corpus: llama/state_error_causal_mask).
        onnx.save(build(params, STATE_EXPORT, 2), os.path.join(directory, 'chunked_prefill.onnx'))
    np.savez(os.path.join(directory, 'trajectory.npz'), *arrays)
    # The options of both networks: a capacity of the whole run.
    write_options(os.path.join(directory, 'onnx2hpp_options'), onnx2hpp_options(cfg, STATE_STEPS))


def onnx2hpp_options(cfg, capacity=None):
    """onnx2hpp's options for a decoder: every input int8 and, with a capacity, every cache a
    --state in one order (the networks that share the state list them alike)."""
    options = ['--input-type', 'x=s8', '--input-type', 'rope=s8']
    if capacity is not None:
        options = ['--max-context', str(capacity)] + options
    for layer in range(cfg.layers):
        for kv in 'kv':
            if capacity is not None:
                options += ['--state', f'{kv}_cache_{layer}={kv}_cache_{layer}_out']
            options += ['--input-type', f'{kv}_cache_{layer}=s8']
    return options


def write_options(path, options):
    """One option per line (CMake reads them with file(STRINGS))."""
    with open(path, 'w') as f:
        f.write('\n'.join(options) + '\n')


BENCH_CONTEXTS = (1, 8, 64, 256)  # positions attended by the measured steps (the table)


def write_bench(params, directory, seed=900):
    """The per-token benchmark's models (benchmarks/qemu/decoder_firmware.cpp): `state.onnx`,
    the one-step network to convert with --state and --max-context 256; `explicit_n<N>.onnx`,
    the one-step network with caches of N - 1 positions as graph I/O (Deeploy's way: caches
    copied in and out), for N in BENCH_CONTEXTS; `tokens.npz`: arr_0 256 tokens [256, 1, d],
    arr_1 their rotary matrices [256, hd, hd]; `onnx2hpp_options` for the state network."""
    cfg = params.cfg
    os.makedirs(directory, exist_ok=True)
    steps = max(BENCH_CONTEXTS)
    onnx.save(build(params, STATE_EXPORT, 1), os.path.join(directory, 'state.onnx'))
    for n in BENCH_CONTEXTS:
        onnx.save(build(params, n - 1, 1), os.path.join(directory, f'explicit_n{n}.onnx'))
    rng = np.random.default_rng(seed)
    np.savez(os.path.join(directory, 'tokens.npz'), random_tokens(rng, cfg, steps)[0][:, None, :],
             rotary(range(steps), cfg.head_dim))
    write_options(os.path.join(directory, 'onnx2hpp_options'), onnx2hpp_options(cfg, steps))
    write_options(os.path.join(directory, 'explicit_options'), onnx2hpp_options(cfg))


def corpus_checks(corpus):
    """reference.run on the corpus cases of the decoder's operators: outputs (and, where stored,
    the activations of the same shape and producing op) must equal the golden data."""
    cases = ['Kernels/Integer/RMSNorm', 'Kernels/Integer/Softmax/Regular', 'Kernels/Integer/Softmax/Large',
             'Kernels/Integer/Hardswish/Regular', 'Kernels/Integer/Hardswish/Regular_RQ',
             'Kernels/Integer/TrueIntegerDiv', 'Kernels/Integer/Attention', 'Kernels/Integer/MatMul/Batch',
             'Kernels/Integer/Concat', 'Kernels/Integer/Add/Regular_RQ']
    failures = 0
    for case in cases:
        d = os.path.join(corpus, case)
        if not os.path.exists(os.path.join(d, 'network.onnx')):
            print(f'corpus {case}: missing')
            failures += 1
            continue
        model = onnx.load(os.path.join(d, 'network.onnx'))
        inputs = np.load(os.path.join(d, 'inputs.npz'))
        golden = np.load(os.path.join(d, 'outputs.npz'))
        g = model.graph
        env = {t.name: numpy_helper.to_array(t).astype(np.int64) for t in g.initializer}
        runtime = [t.name for t in g.input if t.name not in env]
        for name, key in zip(runtime, inputs.files):
            env[name] = inputs[key].astype(np.int64)
        reference.run_nodes(g.node, env)
        got = [env[o.name] for o in g.output]
        exact = sum(int(np.array_equal(v, golden[k].astype(np.int64).reshape(v.shape)))
                    for v, k in zip(got, golden.files))
        ops = sorted({n.op_type for n in g.node})
        size = sum(v.size for v in got)
        note = ''
        if os.path.exists(os.path.join(d, 'activations.npz')) and np.load(os.path.join(d, 'activations.npz')).files:
            # Stored activations are keyed by QuantLib module names: each must equal some tensor
            # the reference computed, of the same shape.
            stored = np.load(os.path.join(d, 'activations.npz'))
            found = sum(int(any(v.shape == stored[k].shape and np.array_equal(v, stored[k].astype(np.int64))
                                for v in env.values())) for k in stored.files)
            note = f', {found}/{len(stored.files)} stored activations'
            failures += len(stored.files) - found
        print(f'corpus {case}: {exact}/{len(got)} outputs exact{note} ({size} output values; ops {", ".join(ops)})')
        failures += len(got) - exact
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('command', choices=['model', 'cases', 'check', 'bench'])
    ap.add_argument('path', nargs='?')
    ap.add_argument('--d-model', type=int)
    ap.add_argument('--heads', type=int)
    ap.add_argument('--layers', type=int)
    ap.add_argument('--d-ff', type=int)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--cache', type=int, help='one-step network with caches of N positions')
    ap.add_argument('--prompt', type=int, help='prefill network of S tokens from empty caches')
    ap.add_argument('--spec', action='store_true', help="the spec's size (d_model 64, 16 heads, 8 layers, d_ff 256)")
    ap.add_argument('--softmax', choices=['iSoftmax', 'ITAMax'], default='iSoftmax',
                    help='ITAMax: a masked score keeps a share of the sum, so its prefill differs from the steps')
    args = ap.parse_args()
    sizes = dict(SPEC if args.spec or args.command == 'model' else CI)
    for k in sizes:
        if getattr(args, k) is not None:
            sizes[k] = getattr(args, k)
    cfg = config(seed=args.seed, softmax=args.softmax, **sizes)
    params = calibrated(cfg)

    if args.command == 'model':
        if (args.cache is None) == (args.prompt is None) or not args.path:
            ap.error('model OUT.onnx needs --cache N or --prompt S')
        cache, prompt = (args.cache, 1) if args.cache is not None else (0, args.prompt)
        model, inputs, outputs = run_case(params, cache, prompt, args.seed + 1)
        onnx.save(model, args.path)
        base = os.path.splitext(args.path)[0]
        np.savez(base + '_inputs.npz', *inputs)
        np.savez(base + '_outputs.npz', *outputs)
        print(f'{args.path}: {cfg.name()}, cache {cache}, prompt {prompt}, {len(model.graph.node)} nodes')
        return 0

    if args.command == 'bench':  # the CI size unless told otherwise
        write_bench(params, args.path)
        return 0

    if args.command == 'cases':
        # one-step networks with caches of 1, 8 and 64 positions, the prefill of 8 tokens, and the
        # N = 8 step with ITAMax; the tiled executors (8 targets, most of the compile time) run
        # step_n8 and the prefill only. --spec: the four shapes at the spec's size (with --softmax),
        # named spec_*, all flat only: for runs by hand.
        shapes = [(1, 1, cfg), (8, 1, cfg), (64, 1, cfg), (0, 8, cfg)]
        if not args.spec and cfg.softmax == 'iSoftmax':
            shapes.append((8, 1, config(cfg.d_model, cfg.heads, cfg.layers, cfg.d_ff, cfg.seed, 'ITAMax')))
        for cache, prompt, c in shapes:
            case_params = params if c is cfg else calibrated(c)
            name = ('spec_' if args.spec else '') + (f'step_n{cache}' if prompt == 1 else f'prefill_s{prompt}') + \
                ('_itamax' if c.softmax == 'ITAMax' else '')
            model, inputs, outputs = run_case(case_params, cache, prompt, 100 + cache + prompt)
            write_case(os.path.join(args.path, name), model, inputs, outputs,
                       flat_only=args.spec or cache in (1, 64) or c.softmax == 'ITAMax')
        if not args.spec:  # not corpus cases (no network.onnx): tests/corpus/kv_state.cpp
            write_state_case(params, os.path.join(args.path, 'state'))
            if cfg.softmax == 'iSoftmax':  # the same decoder with ITAMax: decoding only
                ita = calibrated(config(cfg.d_model, cfg.heads, cfg.layers, cfg.d_ff, cfg.seed, 'ITAMax'))
                write_state_case(ita, os.path.join(args.path, 'state_itamax'))
        return 0

    failures = 0
    if args.path:
        failures += corpus_checks(args.path)
    stats = statistics()
    for cache, prompt in ((0, 1), (1, 1), (8, 1), (64, 1), (0, 8)):
        run_case(params, cache, prompt, 100 + cache + prompt, stats)
        print(f'{cfg.name()} cache {cache} prompt {prompt}: the graph (reference.run) equals the reference')
    for prompt, seed in ((8, 1), (16, 2), (16, 3)):
        same = step_equals_prefill(params, prompt, seed)
        print(f'{cfg.name()}: {prompt} steps {"equal" if same else "differ from"} the prefill (seed {seed})')
        failures += 0 if same or cfg.softmax == 'ITAMax' else 1  # ITAMax cannot mask (docs/semantics.md)
    if cfg.softmax == 'iSoftmax':  # the one-step networks with ITAMax: graph and reference agree
        ita = calibrated(config(cfg.d_model, cfg.heads, cfg.layers, cfg.d_ff, cfg.seed, 'ITAMax'))
        for cache in (1, 8, 64):
            run_case(ita, cache, 1, 100 + cache + 1)
            print(f'{ita.cfg.name()} cache {cache} prompt 1: the graph (reference.run) equals the reference')
    print('saturation and zeros per requantization (the networks above):')
    print(stats.report())
    print('all checks pass' if failures == 0 else f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
