"""The integer rule of docs/semantics.md ("Standard quantized ONNX"), evaluated in numpy.

    run(model, inputs) -> graph outputs

An independent evaluation of what onnx2hpp's output must compute, bit for bit, on a QDQ
model (DequantizeLinear -> float op -> QuantizeLinear), written from the documented rule and
not from the converter's code:

- an integer op accumulates exactly in int64: sum((x - zx) * (w - zw)) + bias, where padding
  reads x = zx (real 0); an int32 bias whose DequantizeLinear scale is s_x * s_w[c] (to float32
  precision) is taken as it is, any other is rounded to accumulator units half to even;
- the accumulator has the real value s_in[c] * (acc - z_in) with s_in[c] = s_x * s_w[c] in
  double precision and z_in = 0, except an Add of two equal-scale tensors (acc = a + b,
  z_in = za + zb); an Add of different scales first requantizes both inputs to int16 on
  s_c = max(s_a, s_b) / 128;
- an average pool with a constant window count is the exact sum of (x - zx), scale s_x / count;
- QuantizeLinear is the RequantShift: M[c] = s_in[c] / s_y, shift the largest s in [0, 62]
  with every mul[c] = round_half_away(M[c] * 2^s) <= 2^31 - 1 and every
  add[c] = zy * 2^s - z_in * mul[c] in int32 -- except when the accumulator comes straight
  from a Conv/Gemm (or an average pool, a depthwise conv of ones): then add is unbounded
  (shift <= 46 when zy != 0), as long as the device accumulator with the excess of add moved
  into the bias, |bias[c] + floor(add[c] / mul[c])| + sum|w[c] - zw| * max|x|, fits int32; then
  y = clamp((acc * mul[c] + add[c] + 2^(shift-1)) >> shift, lo, hi), the clamp being the
  output type's range narrowed by a Relu (lo = zy) or Clip (round_half_even(bound / s_y) + zy);
  the QuantizeLinear of an average pool's sum rounds half to even instead: t = acc * mul + add,
  y = floor(t / 2^shift) plus one when the remainder is above half, or exactly half and
  floor(t / 2^shift) - zy is odd (ONNX rounds x / s_y before adding zy); and when the mean's
  window has count = odd * 2^e cells, odd > 1, and s_x / s_y = 2^k exactly, the divisor is
  odd * 2^shift with mul = 2^(k-e) (shift 0) or mul = 1 (shift e - k), add = zy * odd * 2^shift,
  so that t / (odd * 2^shift) is the real mean / s_y + zy exactly;
  a QuantizeLinear that keeps scale, zero point and type after data movement changes nothing;
- MaxPool, Flatten, Reshape, Pad (with the zero point), Cast and the like move the integers;
- Resize (nearest, linear) works on the integers of one quantization: per axis the input
  coordinate is the exact fraction num/den of the coordinate mode (the scale being out/in),
  nearest rounds it by nearest_mode and clamps, linear clamps it to [0, in - 1] and weighs the
  two neighbours with the remainder in 11-bit fixed point rounded half up, the four products
  summed and rounded half up by >> 22 (docs/semantics.md, "Resize").
"""
import math

import numpy as np
import onnx
from onnx import numpy_helper

import reference

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
# The QuantizeLinear of a mean rounds half to even (docs/semantics.md, "Rounding of means");
# False evaluates the rule before it (half up), which make_tie_models.py measures.
MEANS_ROUND_HALF_EVEN = True
# The QuantizeLinear of a mean over an even window count that is not a power of two divides by
# the count's odd part exactly where the scales allow it (exact_mean); False evaluates the rule
# before it (a fixed-point mul / 2^shift), which make_tie_models.py measures.
EXACT_MEANS = True
RANGES = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255), np.dtype(np.int16): (-32768, 32767)}


class quantized:
    """Integers q standing for scale[c] * (q - zero_point), clamped to [lo, hi] (real) when
    quantized next. `scale` is a float64 vector (one entry, or one per index of `axis`)."""

    def __init__(self, q, scale, zero_point, dtype, axis=-1, lo=-np.inf, hi=np.inf, producer=None, mean=False):
        self.q, self.scale, self.zero_point, self.dtype = np.asarray(q, np.int64), np.atleast_1d(scale), \
            int(zero_point), np.dtype(dtype)
        self.axis, self.lo, self.hi = axis, lo, hi
        # For a Conv/Gemm accumulator: (device bias[c], sum|w[c] - zw|, max|x|) of the op, where the
        # device bias holds the zero-point term -zx * sum(w[c] - zw) (the kernel reads raw x).
        self.producer = producer
        # The sum of an average pool: its QuantizeLinear rounds half to even. (count, s_x) for the
        # exact sum of a constant window of `count` cells of an input of scale s_x (see
        # exact_mean), True for Tessera's int16 average pool.
        self.mean = mean

    def with_q(self, q):
        return quantized(q, self.scale, self.zero_point, self.dtype, self.axis, self.lo, self.hi, mean=self.mean)


class constant_q:
    """A DequantizeLinear of a constant: integers, per-tensor or per-axis scale and zero point."""

    def __init__(self, q, scale, zero_point, axis):
        self.q, self.scale, self.zero_point, self.axis = np.asarray(q, np.int64), \
            np.atleast_1d(np.asarray(scale, np.float64)), np.atleast_1d(np.asarray(zero_point, np.int64)), axis


def entry(v, i):
    return v[0] if len(v) == 1 else v[i]


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def multipliers(scale_in, zero_in, scale_out, zero_out, int32_add=True):
    """(mul[c], add[c], shift) of docs/semantics.md."""
    m = [float(s) / float(scale_out) for s in scale_in]
    for shift in range(62, -1, -1):
        if zero_out != 0 and shift > (31 if int32_add else 46):
            continue
        mul = [int(round_half_away(x * 2.0 ** shift)) for x in m]
        add = [zero_out * 2 ** shift - zero_in * k for k in mul]
        if all(k <= INT32_MAX for k in mul) and (not int32_add or all(INT32_MIN <= a <= INT32_MAX for a in add)):
            return mul, add, shift
    raise ValueError('multiplier %r cannot be expressed' % m)


def widened(v, scale_out, zero_out):
    """The unbounded-add multipliers for a Conv/Gemm accumulator, or None when the excess of add
    would not fit the device's int32 bias and accumulator."""
    if v.producer is None:
        return None
    bias, weight_sums, max_x = v.producer
    mul, add, shift = multipliers(v.scale, v.zero_point, scale_out, zero_out, int32_add=False)
    for c in range(len(bias)):
        q = entry(add, c) // entry(mul, c)
        if abs(int(bias[c]) + q) + int(weight_sums[c]) * max_x > INT32_MAX:
            return None
    return mul, add, shift


def quantize_real(r, scale, zero_point):
    return int(np.rint(r / scale)) + zero_point


def exact_mean(v, scale_out, zero_out):
    """(mul, add, shift, divisor) of an exact mean (docs/semantics.md, "Rounding of means"), or
    None: the sum of `count` cells of an input of scale s_x, s_x / s_y = 2^k exactly, count =
    odd * 2^e with odd > 1: M = 2^(k-e) / odd, so y = round((acc * mul + add) / (odd * 2^shift))
    with mul = 2^(k-e), shift 0 (k >= e) or mul 1, shift e - k, add = zy * odd * 2^shift."""
    if not EXACT_MEANS or not isinstance(v.mean, tuple):
        return None
    count, input_scale = v.mean
    odd, e = count, 0
    while odd % 2 == 0:
        odd, e = odd // 2, e + 1
    mantissa, exponent = math.frexp(input_scale / float(scale_out))
    if odd == 1 or mantissa != 0.5 or not -30 <= exponent - 1 - e <= 30:
        return None
    j = exponent - 1 - e
    mul, shift = (2 ** j, 0) if j >= 0 else (1, -j)
    add = zero_out * odd * 2 ** shift - v.zero_point * mul
    if not INT32_MIN <= add <= INT32_MAX:
        return None
    return [mul], [add], shift, odd


def requantize(v, scale_out, zero_out, dtype):
    """The RequantShift from the accumulator (or 8-bit tensor) `v` to (scale_out, zero_out, dtype)."""
    exact = exact_mean(v, scale_out, zero_out)
    divisor = 1
    if exact is not None:
        mul, add, shift, divisor = exact
    else:
        mul, add, shift = widened(v, scale_out, zero_out) or multipliers(v.scale, v.zero_point, scale_out, zero_out)
    lo, hi = RANGES[np.dtype(dtype)]
    if np.isfinite(v.lo):
        lo = max(lo, quantize_real(v.lo, scale_out, zero_out))
    if np.isfinite(v.hi):
        hi = min(hi, quantize_real(v.hi, scale_out, zero_out))
    hi = max(lo, hi)
    shape = [1] * v.q.ndim
    if len(mul) > 1:
        shape[v.axis] = len(mul)
    mul = np.array(mul, np.int64).reshape(shape)
    add = np.array(add, np.int64).reshape(shape)
    even = zero_out if v.mean and MEANS_ROUND_HALF_EVEN else None
    return np.clip(round_shift(v.q * mul + add, shift, even, divisor), lo, hi)


def round_shift(t, shift, even_zero_point=None, divisor=1):
    """t / (divisor * 2^shift) rounded half up, or with `even_zero_point` half to even counted
    from it (the tie goes to the y with y - zero point even). |acc * mul| < 2^62, |add| < 2^55:
    int64 is exact."""
    t = np.asarray(t, np.int64)
    d = divisor << shift
    if d == 1:
        return t
    q = t // d  # floor
    rem = t - q * d
    if even_zero_point is None:
        return q + (2 * rem >= d)
    return q + ((2 * rem > d) | ((2 * rem == d) & ((q - even_zero_point) % 2 == 1)))


def materialized(v):
    """An 8-bit tensor with its pending clamp applied (requantized to its own quantization)."""
    if not np.isfinite(v.lo) and not np.isfinite(v.hi):
        return v
    return quantized(requantize(v, v.scale[0], v.zero_point, v.dtype), v.scale, v.zero_point, v.dtype)


def activation(v):
    assert v.dtype in (np.dtype(np.int8), np.dtype(np.uint8)) and len(v.scale) == 1, \
        'an integer op reads an 8-bit per-tensor tensor'
    return materialized(v)


def conv_int(x, w, pads, strides, dilations, group):
    """Exact int64 convolution of (N, C, H, W) x with (F, C/group, KH, KW) w, zero padding."""
    return reference.conv(np.asarray(x, np.int64), np.asarray(w, np.int64), None, strides, pads, dilations, group)


def bias_in_accumulator_units(b, acc_scale):
    """An int32 DequantizeLinear bias with scale s_x * s_w[c] is exact; others are rounded."""
    out = []
    for c in range(len(acc_scale)):
        s, q = entry(b.scale, c), int(b.q.reshape(-1)[c]) - int(entry(b.zero_point, c))
        exact = abs(s / acc_scale[c] - 1) < 1e-6  # the product in float32, as exporters write it
        out.append(q if exact else int(np.rint(s * q / acc_scale[c])))
    return np.array(out, np.int64)


def device_terms(x, rows, bias):
    """(device bias, sum|w|, max|x|) of an op whose weights are `rows` (one per output channel)
    and whose real bias in accumulator units is `bias`: the device bias also holds -zx * sum(w)."""
    lo, hi = RANGES[x.dtype]
    return bias - x.zero_point * rows.sum(axis=1), np.abs(rows).sum(axis=1), max(abs(lo), abs(hi))


def weights_minus_zero_point(w, axis=0):
    shape = [1] * w.q.ndim
    if len(w.zero_point) > 1:
        shape[axis] = len(w.zero_point)
    return w.q - w.zero_point.reshape(shape)


def conv(x, w, b, a):
    x = activation(x)
    wz = weights_minus_zero_point(w)
    filters = wz.shape[0]
    acc_scale = np.array([np.float64(x.scale[0]) * np.float64(entry(w.scale, c)) for c in range(filters)])
    k = 2 if x.q.ndim == 4 else 1
    pads = list(a.get('pads', [0] * 2 * k))
    strides, dilations = list(a.get('strides', [1] * k)), list(a.get('dilations', [1] * k))
    xq, wq = x.q - x.zero_point, wz
    if k == 1:
        xq, wq, pads, strides, dilations = xq[:, :, None], wq[:, :, None], [0, pads[0], 0, pads[1]], \
            [1] + strides, [1] + dilations
    acc = conv_int(xq, wq, pads, strides, dilations, a.get('group', 1))
    if k == 1:
        acc = acc[:, :, 0]
    bias = bias_in_accumulator_units(b, acc_scale) if b is not None else np.zeros(filters, np.int64)
    acc = acc + bias.reshape([1, -1] + [1] * k)
    per_channel = len(w.scale) > 1
    return quantized(acc, acc_scale if per_channel else acc_scale[:1], 0, np.int32, axis=1 if per_channel else -1,
                     producer=device_terms(x, wz.reshape(filters, -1), bias))


def gemm(x, w, b, trans_b):
    x = activation(x)
    axis = 0 if trans_b else 1
    wz = weights_minus_zero_point(w, axis)
    wt = wz if trans_b else wz.T  # (N, K)
    acc_scale = np.array([np.float64(x.scale[0]) * np.float64(entry(w.scale, j)) for j in range(wt.shape[0])])
    bias = bias_in_accumulator_units(b, acc_scale) if b is not None else np.zeros(wt.shape[0], np.int64)
    acc = (x.q - x.zero_point) @ wt.T + bias
    per_channel = len(w.scale) > 1
    return quantized(acc, acc_scale if per_channel else acc_scale[:1], 0, np.int32,
                     axis=acc.ndim - 1 if per_channel else -1, producer=device_terms(x, wt, bias))


def add(a, b):
    a, b = activation(a), activation(b)
    if a.scale[0] == b.scale[0]:
        return quantized(a.q + b.q, a.scale, a.zero_point + b.zero_point, np.int32)
    common = max(a.scale[0], b.scale[0]) / 128.0
    ra, rb = (requantize(v, common, 0, np.int16) for v in (a, b))
    return quantized(ra + rb, [common], 0, np.int32)


def average(x, kernel, strides, pads, include_pad):
    x = activation(x)
    padded = any(pads)
    if padded and not include_pad:
        return padded_average(x, kernel, strides, pads)
    q = np.pad(x.q - x.zero_point, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    n, c, h, w = q.shape
    ho, wo = (h - kernel[0]) // strides[0] + 1, (w - kernel[1]) // strides[1] + 1
    acc = np.zeros((n, c, ho, wo), np.int64)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            acc += q[:, :, i:i + strides[0] * (ho - 1) + 1:strides[0], j:j + strides[1] * (wo - 1) + 1:strides[1]]
    count = kernel[0] * kernel[1]
    return quantized(acc, [x.scale[0] / count], 0, np.int32,
                     producer=device_terms(x, np.ones((c, count), np.int64), np.zeros(c, np.int64)),
                     mean=(count, float(x.scale[0])))


def padded_average(x, kernel, strides, pads):
    """A padded pool without count_include_pad: x16 = 128 * (x - zx) (scale s_x / 128, int16),
    Tessera's average pool of x16 (cells inside the input, floor((2 sum + count) / (2 count))),
    a mean whose QuantizeLinear rounds half to even."""
    scale = x.scale[0] / 128.0
    x16 = requantize(x, scale, 0, np.int16)
    n, c, h, w = x16.shape
    ho = (h + pads[0] + pads[2] - kernel[0]) // strides[0] + 1
    wo = (w + pads[1] + pads[3] - kernel[1]) // strides[1] + 1
    y = np.zeros((n, c, ho, wo), np.int64)
    for i in range(ho):
        for j in range(wo):
            y0, x0 = i * strides[0] - pads[0], j * strides[1] - pads[1]
            ys, xs, ye, xe = max(y0, 0), max(x0, 0), min(y0 + kernel[0], h), min(x0 + kernel[1], w)
            count = (ye - ys) * (xe - xs)
            total = x16[:, :, ys:ye, xs:xe].sum(axis=(2, 3))
            y[:, :, i, j] = (2 * total + count) // (2 * count)
    return quantized(y, [scale], 0, np.int16, mean=True)


def max_pool(x, a):
    kernel, strides = a['kernel_shape'], a.get('strides', [1, 1])
    pads = list(a.get('pads', [0, 0, 0, 0]))
    if a.get('ceil_mode', 0):  # the extra output's cells beyond the input are end padding
        for axis, size in ((0, x.q.shape[2]), (1, x.q.shape[3])):
            room = size + pads[axis] + pads[axis + 2] - kernel[axis]
            if room % strides[axis]:
                out = room // strides[axis] + 2
                out -= 1 if (out - 1) * strides[axis] >= size + pads[axis] else 0
                pads[axis + 2] += max(0, (out - 1) * strides[axis] + kernel[axis] - (size + pads[axis] + pads[axis + 2]))
    info = RANGES[x.dtype]
    q = np.pad(x.q, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=info[0])
    n, c, h, w = q.shape
    ho, wo = (h - kernel[0]) // strides[0] + 1, (w - kernel[1]) // strides[1] + 1
    y = np.full((n, c, ho, wo), info[0], np.int64)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            y = np.maximum(y, q[:, :, i:i + strides[0] * (ho - 1) + 1:strides[0], j:j + strides[1] * (wo - 1) + 1:
                                 strides[1]])
    return x.with_q(y)


RESIZE_WEIGHT_BITS = 11


def resize_fraction(transform, o, extent, out):
    """The input coordinate of output index o as an exact fraction (numerator, denominator)."""
    if transform in ('pytorch_half_pixel', 'align_corners') and out == 1:
        return 0, 1
    if transform in ('half_pixel', 'pytorch_half_pixel'):
        return (2 * o + 1) * extent - out, 2 * out
    if transform == 'align_corners':
        return o * (extent - 1), out - 1
    if transform == 'asymmetric':
        return o * extent, out
    raise NotImplementedError('coordinate_transformation_mode ' + transform)


def resize_taps(mode, transform, rounding, extent, out):
    """Per output index: (lo, hi, weight of hi in units of 2^-11)."""
    taps = []
    for o in range(out):
        num, den = resize_fraction(transform, o, extent, out)
        if mode == 'nearest':
            whole, rem = num // den, num % den  # Python's floor division and non-negative remainder
            up = {'floor': False, 'ceil': rem > 0, 'round_prefer_floor': 2 * rem > den,
                  'round_prefer_ceil': 2 * rem >= den}[rounding]
            i = min(max(whole + up, 0), extent - 1)
            taps.append((i, i, 0))
        else:
            num = min(max(num, 0), (extent - 1) * den)
            lo, rem = num // den, num % den
            taps.append((lo, min(lo + 1, extent - 1), (2 * rem * 2 ** RESIZE_WEIGHT_BITS + den) // (2 * den)))
    return taps


def resize(x, a, scales, sizes):
    """The integer Resize of an (N, C, H, W) tensor q (docs/semantics.md)."""
    def text(name, fallback):
        v = a.get(name, fallback)
        return v.decode() if isinstance(v, bytes) else v
    mode = text('mode', 'nearest')
    transform = text('coordinate_transformation_mode', 'half_pixel')
    rounding = text('nearest_mode', 'round_prefer_floor')
    if mode not in ('nearest', 'linear'):
        raise NotImplementedError('Resize mode ' + mode)
    n, c, h, w = x.shape
    if sizes is not None:
        out_h, out_w = int(sizes[2]), int(sizes[3])
    else:
        out_h, out_w = int(h * float(scales[2])), int(w * float(scales[3]))
        assert out_h == h * float(scales[2]) and out_w == w * float(scales[3]), 'scales must be exactly out / in'
    one = 2 ** RESIZE_WEIGHT_BITS
    ty = resize_taps(mode, transform, rounding, h, out_h)
    tx = resize_taps(mode, transform, rounding, w, out_w)
    q = np.asarray(x, np.int64)
    ylo, yhi, wy = (np.array(v, np.int64) for v in zip(*ty))
    xlo, xhi, wx = (np.array(v, np.int64) for v in zip(*tx))
    if mode == 'nearest':
        return q[:, :, ylo][:, :, :, xlo]
    wy, wx = wy[:, None], wx[None, :]
    top = q[:, :, ylo][:, :, :, xlo] * (one - wx) + q[:, :, ylo][:, :, :, xhi] * wx
    bottom = q[:, :, yhi][:, :, :, xlo] * (one - wx) + q[:, :, yhi][:, :, :, xhi] * wx
    acc = top * (one - wy) + bottom * wy
    return (acc + 2 ** (2 * RESIZE_WEIGHT_BITS - 1)) >> (2 * RESIZE_WEIGHT_BITS)


def attributes(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def run(model, inputs, quantized_tensors=None):
    """The graph outputs (integer arrays) of the QDQ `model` for the integer `inputs`."""
    # `quantized_tensors` (a dict), when given, receives the integers of every QuantizeLinear
    # output, for quantized_reference.run's `forced`.
    env = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in env]
    for name, value in zip(names, inputs):  # integers whose quantization the DequantizeLinear gives
        env[name] = quantized(value, [np.nan], 0, np.asarray(value).dtype)
    for node in model.graph.node:
        a = attributes(node)
        ins = [env[i] if i else None for i in node.input] + [None] * 4
        op = node.op_type
        if op == 'Constant':
            y = numpy_helper.to_array(a['value'])
        elif op == 'ConstantOfShape':
            value = numpy_helper.to_array(a['value']).reshape(-1) if 'value' in a else np.zeros(1, np.float32)
            y = np.full([int(d) for d in ins[0]], value[0], value.dtype)
        elif op == 'Cast':
            x = ins[0]
            target = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a['to']]
            if isinstance(x, quantized):  # only a cast that keeps the type is an integer op
                assert np.dtype(target) == x.dtype, 'Cast changes the type of a run-time tensor'
                y = x
            else:
                y = np.asarray(x).astype(target)
        elif op == 'DequantizeLinear':
            x = ins[0]
            zp = ins[2] if ins[2] is not None else np.zeros(1, np.uint8)
            if isinstance(x, quantized):  # a run-time tensor (the output of QuantizeLinear)
                assert np.asarray(ins[1]).size == 1
                y = quantized(x.q, [np.float64(np.asarray(ins[1]).reshape(-1)[0])], int(np.asarray(zp).reshape(-1)[0]),
                              x.dtype)
            else:
                y = constant_q(x, ins[1], zp, a.get('axis', 1))
        elif op == 'QuantizeLinear':
            x = ins[0]
            zp = ins[2] if ins[2] is not None else np.zeros(1, np.uint8)
            scale, zero, dtype = np.float64(np.asarray(ins[1]).reshape(-1)[0]), int(np.asarray(zp).reshape(-1)[0]), \
                np.asarray(zp).dtype
            keeps = len(x.scale) == 1 and x.scale[0] == scale and x.zero_point == zero and x.dtype == dtype and \
                not np.isfinite(x.lo) and not np.isfinite(x.hi)
            q = x.q if keeps else requantize(x, scale, zero, dtype)
            y = quantized(q, [scale], zero, dtype)
        elif op == 'Conv':
            y = conv(ins[0], ins[1], ins[2], a)
        elif op == 'Gemm':
            assert not a.get('transA', 0) and a.get('alpha', 1.0) == 1.0 and a.get('beta', 1.0) == 1.0
            y = gemm(ins[0], ins[1], ins[2], a.get('transB', 0))
        elif op == 'MatMul' and isinstance(ins[1], constant_q):
            y = gemm(ins[0], ins[1], None, False)
        elif op == 'Add' and isinstance(ins[0], quantized) and isinstance(ins[1], quantized):
            y = add(ins[0], ins[1])
        elif op == 'Relu':
            x = ins[0]
            y = quantized(x.q, x.scale, x.zero_point, x.dtype, x.axis, max(x.lo, 0.0), x.hi, x.producer, x.mean)
        elif op == 'Clip':
            x = ins[0]
            lo = -np.inf if ins[1] is None else float(ins[1])
            hi = np.inf if ins[2] is None else float(ins[2])
            y = quantized(x.q, x.scale, x.zero_point, x.dtype, x.axis, max(x.lo, lo), min(x.hi, hi), x.producer, x.mean)
        elif op == 'GlobalAveragePool':
            y = average(ins[0], ins[0].q.shape[2:], [1, 1], [0, 0, 0, 0], False)
        elif op == 'ReduceMean' and isinstance(ins[0], quantized):  # over H and W of a 4D map
            axes = sorted(int(v) % 4 for v in (a['axes'] if 'axes' in a else ins[1]))
            if ins[0].q.ndim != 4 or axes != [2, 3]:
                raise NotImplementedError('ReduceMean other than over the spatial axes of a 4D map')
            y = average(ins[0], ins[0].q.shape[2:], [1, 1], [0, 0, 0, 0], False)
            if not a.get('keepdims', 1):
                y = quantized(y.q.reshape(y.q.shape[:2]), y.scale, y.zero_point, y.dtype, producer=y.producer,
                              mean=y.mean)
        elif op in ('QLinearGlobalAveragePool', 'QLinearAveragePool'):  # com.microsoft
            x = quantized(ins[0].q, [np.float64(np.asarray(ins[1]).reshape(-1)[0])],
                          int(np.asarray(ins[2]).reshape(-1)[0]), ins[0].dtype)
            if op == 'QLinearGlobalAveragePool':
                m = average(x, x.q.shape[2:], [1, 1], [0, 0, 0, 0], False)
            else:
                if a.get('ceil_mode', 0) or int(a.get('channels_last', 0)):
                    raise NotImplementedError(op + ' with ceil_mode or channels_last')
                m = average(x, a['kernel_shape'], a.get('strides', [1, 1]), a.get('pads', [0, 0, 0, 0]),
                            a.get('count_include_pad', 0))
            zp = np.asarray(ins[4])
            scale, zero = np.float64(np.asarray(ins[3]).reshape(-1)[0]), int(zp.reshape(-1)[0])
            y = quantized(requantize(m, scale, zero, zp.dtype), [scale], zero, zp.dtype)
        elif op == 'AveragePool':
            if a.get('ceil_mode', 0):
                raise NotImplementedError('AveragePool with ceil_mode')
            y = average(ins[0], a['kernel_shape'], a.get('strides', [1, 1]), a.get('pads', [0, 0, 0, 0]),
                        a.get('count_include_pad', 0))
        elif op == 'Shape':
            y = np.asarray(ins[0].q.shape if isinstance(ins[0], quantized) else np.shape(ins[0]), np.int64)
            y = y[a.get('start', 0):a.get('end', None)]
        elif op == 'Slice' and not isinstance(ins[0], quantized):  # shape plumbing of constants
            y = np.asarray(ins[0])
            axes = list(range(len(ins[1]))) if ins[3] is None else [int(v) for v in ins[3]]
            steps = [1] * len(axes) if ins[4] is None else [int(v) for v in ins[4]]
            index = [slice(None)] * y.ndim
            for axis, start, end, step in zip(axes, ins[1], ins[2], steps):
                index[axis] = slice(int(start), int(end), step)
            y = y[tuple(index)]
        elif op == 'Concat' and not any(isinstance(v, quantized) for v in ins if v is not None):
            y = np.concatenate([np.asarray(v) for v in ins if v is not None], axis=a['axis'])
        elif op == 'Resize':
            x = ins[0]
            assert len(x.scale) == 1 and x.dtype != np.dtype(np.int32), 'Resize of an 8-bit tensor'
            given = [None if v is None or np.asarray(v).size == 0 else np.asarray(v).reshape(-1) for v in ins[2:4]]
            if a.get('mode', b'nearest') in ('linear', b'linear'):
                x = materialized(x)  # the interpolation reads the clamped values
            y = x.with_q(resize(x.q, a, given[0], given[1]))
        elif op in ('MaxPool', 'Pad', 'Flatten', 'Reshape', 'Identity'):
            x = ins[0]
            assert len(x.scale) == 1 and x.dtype != np.dtype(np.int32), 'data movement of an 8-bit tensor'
            if op == 'MaxPool':
                y = max_pool(x, a)
            elif op == 'Pad':  # real 0 is the zero point
                pads = [int(p) for p in ins[1]]
                assert ins[2] is None or float(ins[2]) == 0 and a.get('mode', 'constant') == 'constant'
                rank = x.q.ndim
                y = x.with_q(np.pad(x.q, [(pads[i], pads[i + rank]) for i in range(rank)],
                                    constant_values=x.zero_point))
            elif op == 'Flatten':
                axis = a.get('axis', 1)
                y = x.with_q(x.q.reshape(int(np.prod(x.q.shape[:axis])), -1))
            elif op == 'Reshape':
                shape = [d if d != 0 else x.q.shape[i] for i, d in enumerate(ins[1])]
                y = x.with_q(x.q.reshape(shape))
            else:
                y = x
        else:
            raise NotImplementedError(op)
        env[node.output[0]] = y
        if quantized_tensors is not None and op == 'QuantizeLinear':
            quantized_tensors[node.output[0]] = y.q.astype(y.dtype)
    outputs = []
    for o in model.graph.output:
        v = env[o.name]
        outputs.append(v.q.astype(v.dtype) if isinstance(v, quantized) else v)
    return outputs
