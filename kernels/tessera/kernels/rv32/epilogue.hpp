// The rv32 kernels' requantizing store: `requantize` exactly, from the accumulator in a register,
// without a per-channel table in scratch (the family needs no scratch, so a cluster shares every
// tile among its cores) and without a per-element division.
//
// The accumulator starts at the bias (as the reference's does), so the store computes
// y = clamp(floor((acc*mul + A) / 2^s), lo, hi) with A = add + 2^(s-1). When 1 <= s <= 32 and
// -2^(s-1) <= mul < 2^(s-1) (the usual case: the corpus' multipliers are far below 2^(s-1)),
// scaling by 2^(32-s) makes the shift "take the high word", and splitting A = q*2^s + r0
// (0 <= r0 < 2^s) leaves a 32-bit low addend r = r0 << (32-s):
//
//     y = hi32(acc*m + r) + q,   m = mul << (32-s) (fits int32),  r < 2^32 (unsigned)
//       = mulh(acc, m) + q + carry(mul(acc, m) + r)
//
// which is six RV32IM instructions (mul, mulh, add, sltu, add, add), as many as the 64-bit
// addend of arm_dsp's SMLAL form costs without a multiply-accumulate. Example: mul = 300,
// add = -7, s = 16: m = 300 << 16, A = 32761 = 0*2^16 + 32761, r = 32761 << 16; acc = 1000:
// hi32(1000*19660800 + 2147024896) + 0 = 5 = (300000 + 32761) >> 16. The per-channel constants
// (m, q, r) take about 10 instructions and serve both pixels of the 4x2 micro-tile. The
// high word is the true quotient when |acc|*|mul|/2^s + |q| < 2^31, which `make_plan` checks
// from the kernel's bound on |acc| once per call; other cases take requantize32's 64-bit path.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include <tessera/core/requant.hpp>
#include <tessera/kernels/common/requant_epilogue.hpp>

namespace tessera::kernels::rv32 {

enum class store_kind : std::uint8_t {
  raw,    ///< requantization disabled: the int32 accumulator, converted to TOut
  high,   ///< the high-word form above, clamped to [lo, hi]
  exact,  ///< requantize32 (64-bit product and shift)
};

/// One output's constants of the high form.
struct high_form {
  std::int32_t m;
  std::int32_t q;
  std::uint32_t r;
};

/// How one kernel call requantizes: the parameters of output (row r, column c) are entry
/// `r * row_step + c * col_step` (per tensor: both 0; per channel: col_step 1; per Gemm row:
/// row_step 1).
struct store_plan {
  store_kind kind = store_kind::raw;
  int shift = 0;
  int up = 0;  ///< 32 - shift (high form)
  int row_step = 0, col_step = 0;
  std::int32_t lo = 0, hi = 0;
  const std::int32_t* mul = nullptr;
  const std::int32_t* add = nullptr;
  high_form single{};                ///< per tensor: the one entry's constants
  const high_form* table = nullptr;  ///< per channel: every channel's constants, or nullptr
};

[[gnu::always_inline]] inline high_form form_of(const store_plan& p, int k) {
  const std::int64_t a = std::int64_t{p.add[k]} + (std::int64_t{1} << (p.shift - 1));
  const auto low = static_cast<std::uint32_t>(a);
  const std::uint32_t r0 = p.shift == 32 ? low : (low & ((std::uint32_t{1} << p.shift) - 1));
  // q = floor(a / 2^s): a < 2^32 in magnitude, so its high word and the low word's top bits.
  const auto q = static_cast<std::int32_t>(a >> p.shift);
  return {static_cast<std::int32_t>(static_cast<std::uint32_t>(p.mul[k]) << p.up), q, r0 << (p.up & 31)};
}

/// hi32(acc*m + r) + q: mul, mulh, add, sltu, add, add.
[[gnu::always_inline]] inline std::int32_t high_word(std::int32_t acc, const high_form& f) {
  const std::int64_t prod = static_cast<std::int64_t>(acc) * f.m;
  const auto lo = static_cast<std::uint32_t>(prod);
  const auto hi = static_cast<std::int32_t>(static_cast<std::uint64_t>(prod) >> 32);
  const std::uint32_t sum = lo + f.r;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(hi) + static_cast<std::uint32_t>(f.q) +
                                   static_cast<std::uint32_t>(sum < f.r));
}

template <class TOut>
[[gnu::always_inline]] inline TOut clamp_to(std::int32_t y, std::int32_t lo, std::int32_t hi) {
  y = y < lo ? lo : y;
  y = y > hi ? hi : y;
  return static_cast<TOut>(y);
}

/// Per-channel constants on the stack of the calling core, computed once per call instead of
/// once per pixel pair (about 20 instructions each): channels beyond the capacity compute theirs
/// at each store.
inline constexpr int table_capacity = 128;

/// The plan of a call whose accumulators (bias included) satisfy |acc| <= acc_bound, writing
/// `channels` columns; `rowwise`: per-row parameters (Gemm), else per tensor or per column.
/// Per-column high forms go into `table` (table_capacity entries, the caller's stack).
[[gnu::noinline]] inline store_plan make_plan(const requant_params& rq, int channels, bool rowwise,
                                              std::int64_t acc_bound, high_form* table) {
  store_plan p{};
  if (!rq.enabled) return p;
  p.shift = rq.shift;
  p.lo = rq.lo;
  p.hi = rq.hi;
  p.mul = rq.mul;
  p.add = rq.add;
  if (rq.length != 1) (rowwise ? p.row_step : p.col_step) = 1;
  p.kind = store_kind::exact;
  const int s = rq.shift;
  if (s < 1 || s > 32 || acc_bound >= (std::int64_t{1} << 31)) return p;
  const int count = rq.length == 1 ? 1 : rq.length;
  const std::int64_t limit = std::int64_t{1} << (s - 1);
  for (int i = 0; i < count; ++i) {
    const std::int64_t mul = rq.mul[i];
    if (mul < -limit || mul >= limit) return p;
    const std::int64_t a = std::int64_t{rq.add[i]} + limit;
    const std::int64_t q = a >> s;
    const std::int64_t scaled = (acc_bound * (mul < 0 ? -mul : mul)) >> s;
    if (scaled + (q < 0 ? -q : q) + 2 >= (std::int64_t{1} << 31)) return p;
  }
  p.up = 32 - s;
  p.kind = store_kind::high;
  if (rq.length == 1) p.single = form_of(p, 0);
  if (p.col_step == 1 && channels <= table_capacity) {
    for (int c = 0; c < channels; ++c) table[c] = form_of(p, c);
    p.table = table;
  }
  return p;
}

/// Largest |value| of an 8-bit type, and the bound on a sum of `terms` products plus a bias.
template <class T>
constexpr std::int64_t value_bound() {
  return std::is_signed_v<T> ? 128 : 255;
}
template <class TA, class TB>
constexpr std::int64_t acc_bound(std::int64_t terms, const std::int32_t* bias, int n) {
  std::int64_t b = 0;
  for (int c = 0; bias != nullptr && c < n; ++c) {
    const std::int64_t v = bias[c] < 0 ? -std::int64_t{bias[c]} : bias[c];
    b = v > b ? v : b;
  }
  return terms * value_bound<TA>() * value_bound<TB>() + b;
}

/// Stores a block of accumulators: `acc[c * Pixels + p]` for `channels` (<= Channels) channels
/// from column c0 and `count` (<= Pixels) rows from r0, to out[p * out_stride + c].
template <int Channels, int Pixels, class TOut>
[[gnu::always_inline]] inline void store_block(const std::int32_t (&acc)[Channels * Pixels], const store_plan& p,
                                               int r0, int c0, int count, TOut* out, std::ptrdiff_t out_stride) {
  if (p.kind == store_kind::high) {
    // Locals first: the 8-bit stores may alias the plan, which would reload it per output.
    const std::int32_t lo = p.lo, hi = p.hi;
    const high_form* table = p.table;
    for (int c = 0; c < Channels; ++c) {
      if (p.row_step == 0) {
        const high_form f = table != nullptr ? table[c0 + c] : p.col_step == 0 ? p.single : form_of(p, c0 + c);
        for (int q = 0; q < Pixels; ++q) {
          if (q < count) out[q * out_stride + c] = clamp_to<TOut>(high_word(acc[c * Pixels + q], f), lo, hi);
        }
      } else {
        for (int q = 0; q < Pixels; ++q) {
          if (q < count) {
            out[q * out_stride + c] = clamp_to<TOut>(high_word(acc[c * Pixels + q], form_of(p, r0 + q)), lo, hi);
          }
        }
      }
    }
  } else if (p.kind == store_kind::raw) {
    for (int c = 0; c < Channels; ++c) {
      for (int q = 0; q < Pixels; ++q) {
        if (q < count) out[q * out_stride + c] = static_cast<TOut>(acc[c * Pixels + q]);
      }
    }
  } else {
    for (int c = 0; c < Channels; ++c) {
      for (int q = 0; q < Pixels; ++q) {
        if (q >= count) continue;
        const int k = (r0 + q) * p.row_step + (c0 + c) * p.col_step;
        out[q * out_stride + c] =
            static_cast<TOut>(requantize32(acc[c * Pixels + q], p.mul[k], p.add[k], p.shift, p.lo, p.hi));
      }
    }
  }
}

}  // namespace tessera::kernels::rv32
