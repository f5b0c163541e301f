// The arm_mve requantization plan: which exact path a call takes and its per-channel table
// (requant.hpp runs it). The rule is `requantize` (../../core/requant.hpp) bit for bit.
//
// MVE has no 64-bit lanes, so the 64-bit rule y = clamp((acc*mul + add + 2^(s-1)) >> s, lo, hi)
// runs on 32-bit words. Per channel the kernel builds, once per call, the 64-bit constant
//     A = (bias + extra) * mul + add + 2^(s-1)           (extra: 128 * sum of weights for uint8)
// so that y = clamp((acc*mul + A) >> s, lo, hi) for the raw accumulator `acc`. Four paths,
// chosen once per call from the shift, the parameters and a bound on |acc| the kernel knows:
//   narrow  s <= 31 and |mul| * bound + |A| < 2^31 for every channel: the whole sum fits in
//           int32, y = (acc*mul + A) >> s.
//   fast    s >= 32: with H = VMULH(acc, mul), L = VMUL(acc, mul) and A = AH * 2^32 + AL,
//           y = (H + AH + carry(L + AL)) >> (s - 32). Also taken for s < 32 when every
//           |mul| < 2^(s-1): mul << (32 - s) still fits, and scaling mul and A by 2^(32-s)
//           turns the shift into 32.
//   high    the fast path whose shift is exactly 32 (s == 32, or pre-shifted): y is the high
//           word itself, H + AH + carry, and the final shift (a no-op) is left out: 9
//           instructions per 4 outputs instead of 10 (the Deeploy corpus and KWS take it).
//   general 1 <= s <= 31 otherwise: y = Hs * 2^k + (Lsum >> s), k = 32 - s, with Hs the high
//           word of the sum and Lsum its low word. VQSHL saturates Hs * 2^k, VQADD adds the low
//           part (in [0, 2^k)) saturating: exact when nothing saturates, INT32_MAX above, and
//           below at most INT32_MIN + 2^k - 1, which the clamp still turns into lo when
//           lo >= INT32_MIN + 2^k - 1 (true for 8-bit outputs with s >= 2).
//   scalar  everything else (s > 40, s < 0, very low lo with small s): `requantize32` per output.
// Arithmetic on high words wraps modulo 2^32, which is exact because the true value fits in
// 64 bits and its high word in 32 (|acc*mul| < 2^62, A < 2^40 for s <= 40). A disabled
// requantization (`raw`) stores acc + bias + extra.
//
// The Deeploy corpus' requantizations (shift 14 to 17, mul mostly below 2^9) take the narrow
// path on short reductions and the pre-shifted fast path otherwise; about a fifth (mul >=
// 2^(s-1)) the general one.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/arch/arm_mve.hpp>
#include <tessera/kernels/arm_mve/common.hpp>
#include <tessera/kernels/arm_mve/traits.hpp>

namespace tessera::kernels::arm_mve {

enum class requant_path : std::uint8_t { raw, narrow, fast, high, general, scalar };

/// One call's requantization: the path and its per-call scalars, plus the per-channel table
/// (groups of 4 channels, 12 words each: {M[4], X[4], AH[4]}: fast and high: X = ~AL; general: X = AL;
/// narrow: the int32 A in the AH slot; raw and scalar: the int32 bias + extra in M).
struct requant_plan {
  requant_path path = requant_path::raw;
  const std::int32_t* table = nullptr;
  std::int32_t shift_arg = 0;   ///< narrow: -s; fast: -(s - 32); high: 0; general: -s
  std::int32_t high_shift = 0;  ///< general: k = 32 - s
  std::int32_t lo = 0, hi = 0;
  requant_params rq{};  ///< scalar path
};

/// Word offset of channel `c`'s first table entry (M / offset slot).
constexpr int table_index(int c) { return (c >> 2) * 12 + (c & 3); }

/// Largest |acc| of a sum of `terms` products of int8 by int8 (-128 * -128 = 2^14 each).
constexpr std::int64_t s8_products_bound(std::int64_t terms) { return terms * 16384; }

/// Largest |acc| of any row's sum of int8 activations (|x| <= 128, uint8 ones as x - 128 too)
/// times `rows` rows of `cols` int8 weights: 128 * max over rows of sum |w|. Tighter than
/// s8_products_bound by the weights' spread (about 2x for uniform weights, more for trained
/// ones), which lets the narrow path take layers whose worst case would not fit (keyword
/// spotting's depthwise layers: 11 instructions per 4 outputs become 9). VABAV sums 16 |w| per
/// instruction: about 8 instructions a row of up to 16 weights.
inline std::int64_t s8_weights_bound(const std::int8_t* w, int rows, int cols) {
  std::uint32_t widest = 0;
  for (int r = 0; r < rows; ++r, w += cols) {
    std::uint32_t sum = 0;
    const std::int8_t* p = w;
    asm volatile(
        "vmov.i32 q1, #0\n"
        "wlstp.8 lr, %[n], 2f\n"
        "1:\n"
        "vldrb.s8 q0, [%[p]], #16\n"
        "vabav.s8 %[sum], q0, q1\n"
        "letp lr, 1b\n"
        "2:\n"
        : [p] "+r"(p), [sum] "+r"(sum)
        : [n] "r"(cols)
        : "lr", "q0", "q1", "memory");
    if (sum > widest) widest = sum;
  }
  return std::int64_t{128} * widest;
}

namespace detail {

/// max |p[i]| for i < n (VMAXAV: 4 lanes per instruction), as an int64 (|INT32_MIN| = 2^31).
inline std::int64_t max_abs_s32(const std::int32_t* p, int n) {
  std::uint32_t m = 0;
  asm volatile(
      "wlstp.32 lr, %[n], 2f\n"
      "1:\n"
      "vldrw.32 q0, [%[p]], #16\n"
      "vmaxav.s32 %[m], q0\n"
      "letp lr, 1b\n"
      "2:\n"
      : [p] "+r"(p), [m] "+r"(m)
      : [n] "r"(n)
      : "lr", "q0", "memory");
  return m;
}

/// The path of a call whose offsets are the int32 biases (no correction), decided from bounds
/// alone: max |bias| * max |mul| + max |add| + 2^(s-1) + max |mul| * acc_bound <= INT32_MAX
/// proves every channel's sum fits (narrow), a sufficient condition of the per-channel one.
inline requant_plan choose_path_s32(const requant_params& rq, std::int64_t max_off, std::int64_t acc_bound,
                                    int& pre_shift) {
  requant_plan p;
  p.rq = rq;
  p.lo = rq.lo;
  p.hi = rq.hi;
  pre_shift = 0;
  if (!rq.enabled) return p;
  if (acc_bound > std::int64_t{1} << 31) acc_bound = std::int64_t{1} << 31;  // keeps mul * bound in int64
  const int s = rq.shift;
  p.path = requant_path::scalar;
  if (s < 0 || s > 40) return p;
  const std::int64_t max_mul = max_abs_s32(rq.mul, rq.length);
  const std::int64_t max_add = max_abs_s32(rq.add, rq.length);
  const std::int64_t rounding = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  if (s <= 31 && max_off * max_mul + max_add + rounding + max_mul * acc_bound <= INT32_MAX) {
    p.path = requant_path::narrow;
    p.shift_arg = -s;
  } else if (s >= 32) {
    p.path = s == 32 ? requant_path::high : requant_path::fast;
    p.shift_arg = -(s - 32);
  } else if (s >= 1 && max_mul < (std::int64_t{1} << (s - 1))) {
    p.path = requant_path::high;
    pre_shift = 32 - s;
  } else if (s >= 1 && std::int64_t{rq.lo} >= std::int64_t{INT32_MIN} + (std::int64_t{1} << (32 - s)) - 1) {
    p.path = requant_path::general;
    p.shift_arg = -s;
    p.high_shift = 32 - s;
  }
  return p;
}

alignas(16) inline constexpr std::int32_t zeros4[4] = {0, 0, 0, 0};

/// plan_requant without a correction (int8 activations): the table 4 channels per iteration
/// of a tail-predicated loop. Per-tensor parameters and a null bias are read from 4-lane copies
/// with a step of 0.
/// The wide paths form A = bias*mul + add + 2^(s-1) in 64 bits with VMULH/VMUL and two carried
/// additions: 29 instructions per 4 channels, where int64 scalar code spent 60 to 80 per channel.
[[gnu::noinline]] inline requant_plan plan_requant_s32(const requant_params& rq, int channels,
                                                       const std::int32_t* bias, std::int64_t acc_bound,
                                                       std::int32_t* table) {
  const std::int64_t max_off = bias != nullptr ? max_abs_s32(bias, channels) : 0;
  int k = 0;
  requant_plan p = choose_path_s32(rq, max_off, acc_bound, k);
  p.table = table;
  const std::int32_t* off = bias != nullptr ? bias : zeros4;
  const int off_step = bias != nullptr ? 16 : 0;
  std::int32_t* tb = table;
  if (p.path == requant_path::raw || p.path == requant_path::scalar) {
    asm volatile(
        "wlstp.32 lr, %[n], 2f\n"
        "1:\n"
        "vldrw.32 q0, [%[off]]\n"
        "add %[off], %[off], %[ostep]\n"
        "vstrw.32 q0, [%[tb]]\n"
        "add %[tb], %[tb], #48\n"
        "letp lr, 1b\n"
        "2:\n"
        : [off] "+r"(off), [tb] "+r"(tb)
        : [n] "r"(channels), [ostep] "r"(off_step)
        : "lr", "q0", "memory");
    return p;
  }
  const int s = rq.shift;
  const std::int64_t rounding = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  // Per-tensor parameters: 4-lane copies read with a step of 0.
  std::int32_t mul4[4], add4[4];
  for (int i = 0; i < 4; ++i) mul4[i] = rq.mul[0], add4[i] = rq.add[0];
  const bool per_channel = rq.length != 1;
  const std::int32_t* mul = per_channel ? rq.mul : mul4;
  const std::int32_t* add = per_channel ? rq.add : add4;
  const int par_step = per_channel ? 16 : 0;
  if (p.path == requant_path::narrow) {  // proven to fit: int32 arithmetic is exact
    asm volatile(
        "wlstp.32 lr, %[n], 2f\n"
        "1:\n"
        "vldrw.32 q0, [%[off]]\n"
        "add %[off], %[off], %[ostep]\n"
        "vldrw.32 q1, [%[mul]]\n"
        "add %[mul], %[mul], %[pstep]\n"
        "vldrw.32 q2, [%[add]]\n"
        "add %[add], %[add], %[pstep]\n"
        "vmul.i32 q0, q0, q1\n"
        "vadd.i32 q0, q0, q2\n"
        "vadd.i32 q0, q0, %[rlo]\n"
        "vstrw.32 q1, [%[tb]]\n"
        "vstrw.32 q0, [%[tb], #32]\n"
        "add %[tb], %[tb], #48\n"
        "letp lr, 1b\n"
        "2:\n"
        : [off] "+r"(off), [mul] "+r"(mul), [add] "+r"(add), [tb] "+r"(tb)
        : [n] "r"(channels), [ostep] "r"(off_step), [pstep] "r"(par_step),
          [rlo] "r"(static_cast<std::int32_t>(rounding))
        : "lr", "q0", "q1", "q2", "memory");
    return p;
  }
  // fast / general: (hi:lo) = off*mul + add + rounding, then << k (the pre-shift, done as
  // multiplications by 2^k: lo >> (32 - k) is the high word of lo * 2^k); X = ~lo or lo.
  const int invert = p.path == requant_path::fast || p.path == requant_path::high ? -1 : 0;
  asm volatile(
      "vdup.32 q7, %[inv]\n"
      "vdup.32 q6, %[pow]\n"
      "wlstp.32 lr, %[n], 2f\n"
      "1:\n"
      "vldrw.32 q0, [%[off]]\n"
      "add %[off], %[off], %[ostep]\n"
      "vldrw.32 q1, [%[mul]]\n"
      "add %[mul], %[mul], %[pstep]\n"
      "vldrw.32 q2, [%[add]]\n"
      "add %[add], %[add], %[pstep]\n"
      "vmul.i32 q3, q0, q1\n"    // lo
      "vmulh.s32 q4, q0, q1\n"   // hi
      "vadd.i32 q5, q3, q2\n"    // lo + add
      "vshr.s32 q2, q2, #31\n"
      "vadd.i32 q4, q4, q2\n"    // + add's sign extension
      "vpt.u32 hi, q3, q5\n"
      "vaddt.i32 q4, q4, %[one]\n"
      "vadd.i32 q3, q5, %[rlo]\n"
      "vadd.i32 q4, q4, %[rhi]\n"
      "vpt.u32 hi, q5, q3\n"
      "vaddt.i32 q4, q4, %[one]\n"
      "vmul.i32 q4, q4, %[pow]\n"
      "vmulh.u32 q5, q3, q6\n"
      "vorr q4, q4, q5\n"
      "vmul.i32 q3, q3, %[pow]\n"
      "vmul.i32 q1, q1, %[pow]\n"
      "veor q3, q3, q7\n"        // ~lo on the fast path
      "vstrw.32 q1, [%[tb]]\n"
      "vstrw.32 q3, [%[tb], #16]\n"
      "vstrw.32 q4, [%[tb], #32]\n"
      "add %[tb], %[tb], #48\n"
      "letp lr, 1b\n"
      "2:\n"
      : [off] "+r"(off), [mul] "+r"(mul), [add] "+r"(add), [tb] "+r"(tb)
      : [n] "r"(channels), [ostep] "r"(off_step), [pstep] "r"(par_step), [one] "r"(1),
        [rlo] "r"(static_cast<std::uint32_t>(rounding)), [rhi] "r"(static_cast<std::int32_t>(rounding >> 32)),
        [pow] "r"(static_cast<std::uint32_t>(1u) << k), [inv] "r"(invert)
      : "lr", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "memory");
  return p;
}

}  // namespace detail

/// Builds the plan and the table for channels [0, channels). `bias` may be null; `extra(c)`
/// returns an int64 added to channel c's bias (the uint8 correction 128 * sum of weights, or a
/// MatMul column correction), called once per channel. `acc_bound` bounds |acc| of every raw
/// accumulator the table will see. `rq` must be channelwise (`is_channelwise(rq, channels)`).
template <class Extra>
requant_plan plan_requant(const requant_params& rq, int channels, const std::int32_t* bias, Extra&& extra,
                          std::int64_t acc_bound, std::int32_t* table);

/// int8 activations: no correction, the vectorized table.
inline requant_plan plan_requant(const requant_params& rq, int channels, const std::int32_t* bias, no_correction,
                                 std::int64_t acc_bound, std::int32_t* table) {
  return detail::plan_requant_s32(rq, channels, bias, acc_bound, table);
}

template <class Extra>
requant_plan plan_requant(const requant_params& rq, int channels, const std::int32_t* bias, Extra&& extra,
                          std::int64_t acc_bound, std::int32_t* table) {
  requant_plan p;
  p.table = table;
  p.rq = rq;
  p.lo = rq.lo;
  p.hi = rq.hi;
  // Pass 1: the int64 offset bias + extra of every channel, low word in M (what the raw and
  // scalar paths read), high word in X.
  for (int c = 0; c < channels; ++c) {
    const std::int64_t off = (bias != nullptr ? std::int64_t{bias[c]} : 0) + extra(c);
    std::int32_t* t = table + table_index(c);
    t[0] = static_cast<std::int32_t>(static_cast<std::uint32_t>(off));
    t[4] = static_cast<std::int32_t>(off >> 32);
  }
  if (!rq.enabled) {
    p.path = requant_path::raw;
    return p;
  }
  const int s = rq.shift;
  if (s < 0 || s > 40) {
    p.path = requant_path::scalar;
    return p;
  }
  auto offset = [table](int c) {
    const std::int32_t* t = table + table_index(c);
    return static_cast<std::int64_t>((std::uint64_t(std::uint32_t(t[4])) << 32) | std::uint32_t(t[0]));
  };
  const std::int64_t rounding = s > 0 ? std::int64_t{1} << (s - 1) : 0;
  const std::int32_t* mul = rq.mul;
  const std::int32_t* add = rq.add;
  const int step = rq.length == 1 ? 0 : 1;
  if (acc_bound > std::int64_t{1} << 31) acc_bound = std::int64_t{1} << 31;  // keeps mul * bound in int64
  std::int64_t max_mul = 0;
  for (int i = 0; i < rq.length; ++i) {
    const std::int64_t m = mul[i] < 0 ? -std::int64_t{mul[i]} : mul[i];
    if (m > max_mul) max_mul = m;
  }
  if (s <= 31 && max_mul * acc_bound < INT32_MAX) {
    // narrow: A into the AH slot; commit M only when every channel fits.
    bool fits = true;
    for (int c = 0; c < channels && fits; ++c) {
      const std::int64_t m = mul[c * step];
      const std::int64_t a = offset(c) * m + add[c * step] + rounding;
      fits = (a < 0 ? -a : a) + (m < 0 ? -m : m) * acc_bound <= INT32_MAX;
      table[table_index(c) + 8] = static_cast<std::int32_t>(a);
    }
    if (fits) {
      for (int c = 0; c < channels; ++c) table[table_index(c)] = mul[c * step];
      p.path = requant_path::narrow;
      p.shift_arg = -s;
      return p;
    }
  }
  int k = 0;  // pre-shift of mul and A on the fast path when s < 32
  if (s >= 32) {
    p.path = s == 32 ? requant_path::high : requant_path::fast;
    p.shift_arg = -(s - 32);
  } else if (s >= 1 && max_mul < (std::int64_t{1} << (s - 1))) {
    p.path = requant_path::high;
    k = 32 - s;
  } else if (s >= 1 && std::int64_t{rq.lo} >= std::int64_t{INT32_MIN} + (std::int64_t{1} << (32 - s)) - 1) {
    p.path = requant_path::general;
    p.shift_arg = -s;
    p.high_shift = 32 - s;
  } else {
    p.path = requant_path::scalar;  // the offsets are in place
    return p;
  }
  const bool fast = p.path == requant_path::fast || p.path == requant_path::high;
  for (int c = 0; c < channels; ++c) {
    const std::int32_t m = mul[c * step];
    // Modulo 2^64 on purpose: the true value fits (see the header comment).
    std::uint64_t a = static_cast<std::uint64_t>(offset(c)) * static_cast<std::uint64_t>(std::int64_t{m}) +
                      static_cast<std::uint64_t>(std::int64_t{add[c * step]} + rounding);
    a <<= k;
    std::int32_t* t = table + table_index(c);
    t[0] = static_cast<std::int32_t>(static_cast<std::uint32_t>(m) << k);
    t[4] = static_cast<std::int32_t>(fast ? ~static_cast<std::uint32_t>(a) : static_cast<std::uint32_t>(a));
    t[8] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a >> 32));
  }
  return p;
}

inline requant_plan plan_requant(const requant_params& rq, int channels, const std::int32_t* bias,
                                 std::int64_t acc_bound, std::int32_t* table) {
  return detail::plan_requant_s32(rq, channels, bias, acc_bound, table);
}

}  // namespace tessera::kernels::arm_mve
